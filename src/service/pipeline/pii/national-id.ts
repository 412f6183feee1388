// National identity numbers: each format is validated by its own check digits or range rules. Formats that
// collide with everyday numbers (bare 9-12 digits) count only when a label names them.
import {
  bsnValid,
  chineseIdValid,
  codiceFiscaleValid,
  cpfValid,
  luhnValid,
  nirValid,
  nricValid,
  peselValid,
  plausibleDate,
  spanishIdValid,
  steuerIdValid,
  tfnValid,
  verhoeffValid,
} from "./checksums.js";
import { PHONE_LEAD, before, namesOtherNumber } from "./context.js";
import { maskIbans } from "./iban.js";

// A label starts a word: after a non-letter, or anywhere when it is written in Chinese, Japanese or Korean, which
// put no space before a noun ("我的身份证号码是…").
const WORD_START = "(?:^|[^\\p{L}\\p{N}]|(?=[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Hangul}]))";

/** A label within the few characters before a candidate (only non-digits in between). */
function label(words: string): RegExp {
  return new RegExp(`${WORD_START}(?:${words})[^\\p{N}\\n]{0,24}$`, "iu");
}

/** The label anywhere in the text. */
function mention(words: string): RegExp {
  return new RegExp(`${WORD_START}(?:${words})(?![\\p{L}])`, "iu");
}

const LABEL_WORDS = {
  ssn: "ssn|ss#|ss no|social security(?: number| no| #)?|soc\\.? sec\\.?",
  itin: "itin|individual taxpayer identification|tin|taxpayer id",
  sin: "sin|social insurance(?: number)?|nas|num[ée]ro d'assurance sociale",
  nino: "ni|nino|ni number|ni no|national insurance(?: number| no)?",
  dni: "dni|nie|nif|documento nacional de identidad|n[uú]mero de identidad",
  bsn: "bsn|burgerservicenummer|sofinummer|sofi(?:-?nummer)?|citizen service number",
  cf: "codice fiscale|c\\.?f\\.?|tax code|fiscal code",
  steuer:
    "steuer-?id|steuer-?identifikationsnummer|steuerliche identifikationsnummer|identifikationsnummer|idnr|steuernummer|tax id|tin|tax identification number",
  aadhaar: "aadhaar|aadhar|adhaar|uidai|uid|आधार",
  cpf: "cpf|cadastro de pessoas f[ií]sicas",
  pesel: "pesel",
  chinese:
    "(?:居民)?身[份分]证(?:号码?)?|(?:居民)?身[份分]證(?:號碼?)?|公民身份号码|resident id(?:entity)?(?: card)?(?: number| no)?|chinese id|prc id|id card(?: number| no)?",
  tfn: "tfn|tax file number",
  nhs: "nhs(?: number| no)?|chi number",
  personnummer: "personnummer|personnr|person number|personal identity number",
  norway: "f[øo]dselsnummer|fnr|personal number",
  cpr: "cpr(?:-nummer| number| no)?|personnummer",
};
type LabelName = keyof typeof LABEL_WORDS;
const names = Object.keys(LABEL_WORDS) as LabelName[];
const LABEL = Object.fromEntries(names.map((n) => [n, label(LABEL_WORDS[n])])) as Record<LabelName, RegExp>;
const MENTION = Object.fromEntries(names.map((n) => [n, mention(LABEL_WORDS[n])])) as Record<LabelName, RegExp>;

type Check = (text: string) => boolean;

/** Runs `pattern` over `text` and asks `accept` about each match (with its start offset). */
function some(text: string, pattern: RegExp, accept: (m: RegExpMatchArray, start: number) => boolean): boolean {
  for (const m of text.matchAll(pattern)) if (accept(m, m.index ?? 0)) return true;
  return false;
}

/** Upper-case-only and any-case forms of a letter-bearing format: lower case counts only when labelled. */
function cased(pattern: RegExp): { upper: RegExp; anyCase: RegExp } {
  return { upper: pattern, anyCase: new RegExp(pattern.source, pattern.flags + "i") };
}
/** Any-case matching only when the format's label appears somewhere (it is checked per match later). */
const caseFor = (text: string, forms: { upper: RegExp; anyCase: RegExp }, mentioned: RegExp): RegExp =>
  mentioned.test(text) ? forms.anyCase : forms.upper;

const labelled = (text: string, start: number, re: RegExp): boolean => re.test(before(text, start, 60));
const notOtherId = (text: string, start: number): boolean => {
  const lead = before(text, start, 40);
  return !namesOtherNumber(lead) && !PHONE_LEAD.test(lead);
};

/** US SSN: area not 000/666/900-999, group not 00, serial not 0000. */
export function ssnValid(area: string, group: string, serial: string): boolean {
  const a = Number(area);
  return a !== 0 && a !== 666 && a < 900 && group !== "00" && serial !== "0000";
}

/** US ITIN: area 9xx with group 50-65, 70-88, 90-92 or 94-99. */
function itinValid(area: string, group: string): boolean {
  const g = Number(group);
  return area[0] === "9" && ((g >= 50 && g <= 65) || (g >= 70 && g <= 88) || (g >= 90 && g <= 92) || g >= 94);
}

const US_SSN = /(?<![\w-]|\d[ .-])(\d{3})([- .]?)(\d{2})\2(\d{4})(?![\w-]|[ .,-]\d)/g;
const usSsn: Check = (text) =>
  some(text, US_SSN, (m, at) => {
    const [, area, sep, group, serial] = m;
    if (labelled(text, at, LABEL.itin) && itinValid(area, group)) return true;
    if (!ssnValid(area, group, serial)) return false;
    if (labelled(text, at, LABEL.ssn)) return true;
    return sep === "-" && notOtherId(text, at); // ###-##-#### is the SSN's own shape
  });

// UK National Insurance number: no D F I Q U V anywhere in the prefix, no O second, not BG GB NK KN TN NT ZZ.
const UK_NINO = cased(/(?<![\p{L}\p{N}])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z])( ?)(\d{2})\2(\d{2})\2(\d{2})\2([A-D])(?![\p{L}\p{N}])/gu);
const ukNino: Check = (text) =>
  some(text, caseFor(text, UK_NINO, MENTION.nino), (m, at) => {
    const prefix = m[1].toUpperCase();
    if (["BG", "GB", "NK", "KN", "TN", "NT", "ZZ"].includes(prefix)) return false;
    if (labelled(text, at, LABEL.nino)) return true;
    return m[0] === m[0].toUpperCase() && notOtherId(text, at);
  });

const CA_SIN = /(?<![\w-]|\d[ .-])(\d{3})([- ]?)(\d{3})\2(\d{3})(?![\w-]|[ .,-]\d)/g;
const caSin: Check = (text) =>
  some(text, CA_SIN, (m, at) => {
    const digits = m[1] + m[3] + m[4];
    if (digits[0] === "0" || digits[0] === "8" || !luhnValid(digits)) return false;
    if (labelled(text, at, LABEL.sin)) return true;
    return m[2] === "-" && notOtherId(text, at); // ### ### ### is also how Spanish and other phones are printed
  });

const ES_DNI = cased(/(?<![\p{L}\p{N}])(\d{8}|[XYZ]-?\d{7})[- ]?([A-Z])(?![\p{L}\p{N}])/gu);
const esDni: Check = (text) =>
  some(text, caseFor(text, ES_DNI, MENTION.dni), (m, at) => {
    const id = (m[1] + m[2]).replace("-", "").toUpperCase();
    if (!spanishIdValid(id)) return false;
    if (labelled(text, at, LABEL.dni)) return true;
    return m[0] === m[0].toUpperCase() && notOtherId(text, at);
  });

const NL_BSN =
  /(?<![\w.-]|\d[ .-])(\d{4})\.?(\d{2})\.?(\d{3})(?![\w-]|[ .,-]\d)|(?<![\w.-]|\d[ .-])(\d{3})([ .-]?)(\d{3})\5(\d{3})(?![\w-]|[ .,-]\d)/g;
const nlBsn: Check = (text) => some(text, NL_BSN, (m, at) => bsnValid(m[0].replace(/\D/g, "")) && labelled(text, at, LABEL.bsn));

const IT_CF = cased(
  /(?<![\p{L}\p{N}])[A-Z]{6}[0-9LMNPQRSTUV]{2}[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z](?![\p{L}\p{N}])/gu,
);
const itCodiceFiscale: Check = (text) =>
  some(text, caseFor(text, IT_CF, MENTION.cf), (m, at) => {
    const cf = m[0].toUpperCase();
    if (!codiceFiscaleValid(cf)) return false;
    const day = Number(cf.slice(9, 11).replace(/[LMNPQRSTUV]/g, (c) => String("LMNPQRSTUV".indexOf(c))));
    if (!((day >= 1 && day <= 31) || (day >= 41 && day <= 71))) return false;
    if (labelled(text, at, LABEL.cf)) return true;
    return m[0] === cf && notOtherId(text, at);
  });

const FR_NIR = /(?<![\w])([1-478]) ?(\d{2}) ?(\d{2}) ?(\d{2}|2[AB]) ?(\d{3}) ?(\d{3}) ?(\d{2})(?![\w]|[.,]\d)/g;
const frNir: Check = (text) =>
  some(text, FR_NIR, (m, at) => {
    const month = Number(m[3]);
    if (!((month >= 1 && month <= 12) || month >= 20)) return false;
    return nirValid(m[0].replace(/ /g, "")) && notOtherId(text, at);
  });

const DE_STEUER_ID = /(?<![\w-]|\d[ .-])(\d{2}) ?(\d{3}) ?(\d{3}) ?(\d{3})(?![\w-]|[ .,-]\d)/g;
const deSteuerId: Check = (text) =>
  some(text, DE_STEUER_ID, (m, at) => steuerIdValid(m[0].replace(/ /g, "")) && labelled(text, at, LABEL.steuer));

const IN_AADHAAR = /(?<![\w-]|\d[ .-])([2-9]\d{3})([ -]?)(\d{4})\2(\d{4})(?![\w-]|[ .,-]\d)/g;
const inAadhaar: Check = (text) =>
  some(text, IN_AADHAAR, (m, at) => {
    // Only when labelled: 12-digit numbers, bare or in fours, are FedEx tracking numbers, gift cards and the like.
    return verhoeffValid(m[1] + m[3] + m[4]) && labelled(text, at, LABEL.aadhaar);
  });

const BR_CPF = /(?<![\w.-]|\d[ .-])(\d{3})(\.?)(\d{3})\2(\d{3})-?(\d{2})(?![\w-]|[ .,-]\d)/g;
const brCpf: Check = (text) =>
  some(text, BR_CPF, (m, at) => {
    if (!cpfValid(m[0].replace(/\D/g, ""))) return false;
    if (labelled(text, at, LABEL.cpf)) return true;
    return m[2] === "." && m[0].includes("-") && notOtherId(text, at);
  });

const ELEVEN_DIGITS = /(?<![\w.-]|\d[ .-])\d{11}(?![\w-]|[ .,-]\d)/g;
const plPesel: Check = (text) => some(text, ELEVEN_DIGITS, (m, at) => peselValid(m[0]) && labelled(text, at, LABEL.pesel));

const CN_RESIDENT_ID = /(?<![\w-]|\d[ .-])[1-9]\d{16}[\dXx](?![\w-])/g;
// Unlabelled, an 18-character id still needs its province code, a birth date that has passed and its check digit
// (about 2 in 100,000 random 18-digit numbers pass all three), and no label naming it another id (an order number).
const CN_PROVINCE = /^(?:1[1-5]|2[1-3]|3[1-7]|4[1-6]|5[0-4]|6[1-5]|71|8[1-3]|91)/;
const cnResidentId: Check = (text) =>
  some(text, CN_RESIDENT_ID, (m, at) => {
    const id = m[0].toUpperCase();
    if (!chineseIdValid(id)) return false;
    if (labelled(text, at, LABEL.chinese)) return true;
    return CN_PROVINCE.test(id) && Number(id.slice(6, 10)) <= new Date().getUTCFullYear() && notOtherId(text, at);
  });

const SG_NRIC = /(?<![\p{L}\p{N}])[STFG]\d{7}[A-Z](?![\p{L}\p{N}])/gu;
const sgNric: Check = (text) => some(text, SG_NRIC, (m, at) => nricValid(m[0]) && notOtherId(text, at));

const AU_TFN = /(?<![\w-]|\d[ .-])(\d{3}) ?(\d{3}) ?(\d{3})(?![\w-]|[ .,-]\d)/g;
const auTfn: Check = (text) => some(text, AU_TFN, (m, at) => tfnValid(m[0].replace(/ /g, "")) && labelled(text, at, LABEL.tfn));

const KR_RRN = /(?<![\w-]|\d[ .-])(\d{2})(\d{2})(\d{2})-([1-8])(\d{6})(?![\w-])/g;
const krRrn: Check = (text) =>
  some(text, KR_RRN, (m, at) => {
    const century = "1256".includes(m[4]) ? 1900 : 2000;
    if (!plausibleDate(century + Number(m[1]), Number(m[2]), Number(m[3]))) return false;
    const digits = m[0].replace("-", "");
    const w = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5];
    let sum = 0;
    for (let i = 0; i < 12; i++) sum += Number(digits[i]) * w[i];
    return (11 - (sum % 11)) % 10 === Number(digits[12]) && notOtherId(text, at);
  });

const UK_NHS = /(?<![\w-]|\d[ .-])(\d{3})([ -]?)(\d{3})\2(\d{4})(?![\w-]|[ .,-]\d)/g;
const ukNhs: Check = (text) =>
  some(text, UK_NHS, (m, at) => {
    const d = m[1] + m[3] + m[4];
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += Number(d[i]) * (10 - i);
    const check = 11 - (sum % 11);
    return check !== 10 && check % 11 === Number(d[9]) && labelled(text, at, LABEL.nhs);
  });

// Nordic personal numbers: a birth date, then serial digits; Sweden adds a Luhn digit, Finland a mod-31 letter.
const SE_PERSONNUMMER = /(?<![\w-]|\d[ .-])(?:19|20)?(\d{2})(\d{2})(\d{2})[-+]?(\d{4})(?![\w-])/g;
const sePersonnummer: Check = (text) =>
  some(text, SE_PERSONNUMMER, (m, at) => {
    const ten = m[1] + m[2] + m[3] + m[4];
    return luhnValid(ten) && Number(m[2]) >= 1 && Number(m[2]) <= 12 && labelled(text, at, LABEL.personnummer);
  });

const FI_HETU = /(?<![\w-]|\d[ .-])(\d{2})(\d{2})(\d{2})([-+A-FU-Y])(\d{3})([0-9A-Y])(?![\w-])/g;
const fiHetu: Check = (text) =>
  some(text, FI_HETU, (m, at) => {
    const century = m[4] === "+" ? 1800 : m[4] === "-" || "UVWXY".includes(m[4]) ? 1900 : 2000;
    const year = century + Number(m[3]);
    if (!plausibleDate(Math.max(year, 1900), Number(m[2]), Number(m[1]))) return false;
    const chars = "0123456789ABCDEFHJKLMNPRSTUVWXY";
    return chars[Number(m[1] + m[2] + m[3] + m[5]) % 31] === m[6] && notOtherId(text, at);
  });

const DK_CPR = /(?<![\w-]|\d[ .-])(\d{2})(\d{2})(\d{2})-?(\d{4})(?![\w-])/g;
const dkCpr: Check = (text) =>
  some(text, DK_CPR, (m, at) => {
    if (!plausibleDate(1900 + Number(m[3]), Number(m[2]), Number(m[1]))) return false;
    return labelled(text, at, LABEL.cpr);
  });

const NO_FNR = /(?<![\w-]|\d[ .-])\d{6} ?\d{5}(?![\w-])/g;
const noFodselsnummer: Check = (text) =>
  some(text, NO_FNR, (m, at) => {
    const d = m[0].replace(" ", "").split("").map(Number);
    const k1 = 11 - ([3, 7, 6, 1, 8, 9, 4, 5, 2].reduce((s, w, i) => s + w * d[i], 0) % 11);
    const k2 = 11 - ([5, 4, 3, 2, 7, 6, 5, 4, 3, 2].reduce((s, w, i) => s + w * d[i], 0) % 11);
    return k1 % 11 === d[9] && k2 % 11 === d[10] && labelled(text, at, LABEL.norway);
  });

// Belgian national register number: YY.MM.DD-SSS.CC, check = 97 − (first nine digits mod 97), +2000000000 after 2000.
const BE_RRN = /(?<![\w.-]|\d[ .-])(\d{2})\.(\d{2})\.(\d{2})-(\d{3})\.(\d{2})(?![\w-]|[ .,-]\d)/g;
const beRrn: Check = (text) =>
  some(text, BE_RRN, (m, at) => {
    const nine = m[1] + m[2] + m[3] + m[4];
    const check = Number(m[5]);
    const valid = 97 - (Number(nine) % 97) === check || 97 - (Number("2" + nine) % 97) === check;
    return valid && notOtherId(text, at);
  });

// A number an explicit identity-document label names, in any country (passport, ID card, driver's licence).
const DOCUMENT_WORDS =
  "national id(?:entity)?(?: card)?(?: number| no\\.?|#)?|national identification number|identity (?:card )?number|id card (?:number|no\\.?)|citizen id(?: number)?|personal id(?:entification)? number|personal code|national number|n[uú]mero de identificaci[oó]n|num[ée]ro d'identification|personalausweis(?:nummer)?|ausweisnummer|passport(?: number| no\\.?| nr\\.?| #|#)|driver'?s? licen[cs]e(?: number| no\\.?| #|#)|dl#|f[üu]hrerschein(?:nummer)?";
const LABELLED_DOCUMENT = new RegExp(
  `(?:^|[^\\p{L}\\p{N}])(?:${DOCUMENT_WORDS})\\s*(?:(?:is|was|:|=|#|-|–)\\s*)*([A-Z0-9][A-Z0-9-]{4,16})(?![\\p{L}\\p{N}])`,
  "giu",
);
const labelledDocument: Check = (text) => some(text, LABELLED_DOCUMENT, (m) => m[1].replace(/\D/g, "").length >= 5);

// A number its own label names is that number, whatever its check digits or ranges say: people mistype, formats
// change, and a labelled "SIN 046 454 286" is a secret to the person even when no checksum confirms it. So each
// labelled format also counts by its shape alone (digit count and grouping); unlabelled numbers still need the
// format's validation above, which keeps everyday numbers out.
const LABELLED_SHAPES: readonly [LabelName, RegExp][] = [
  ["ssn", /(?<![\w-]|\d[ .-])\d{3}[- .]?\d{2}[- .]?\d{4}(?![\w-]|[ .,-]\d)/g],
  ["itin", /(?<![\w-]|\d[ .-])9\d{2}[- .]?\d{2}[- .]?\d{4}(?![\w-]|[ .,-]\d)/g],
  ["sin", /(?<![\w-]|\d[ .-])\d{3}[- ]?\d{3}[- ]?\d{3}(?![\w-]|[ .,-]\d)/g],
  ["nino", /(?<![\p{L}\p{N}])[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\p{L}\p{N}])/giu],
  ["dni", /(?<![\p{L}\p{N}])(?:\d{8}|[XYZ]-?\d{7})[- ]?[A-Z](?![\p{L}\p{N}])/giu],
  ["bsn", /(?<![\w.-]|\d[ .-])(?:\d{9}|\d{3}[ .-]\d{3}[ .-]\d{3}|\d{4}\.\d{2}\.\d{3})(?![\w-]|[ .,-]\d)/g],
  ["cf", /(?<![\p{L}\p{N}])[A-Z]{6}[0-9A-Z]{2}[A-Z][0-9A-Z]{2}[A-Z][0-9A-Z]{3}[A-Z](?![\p{L}\p{N}])/giu],
  ["steuer", /(?<![\w-]|\d[ .-])\d{2} ?\d{3} ?\d{3} ?\d{3}(?![\w-]|[ .,-]\d)/g],
  ["aadhaar", /(?<![\w-]|\d[ .-])\d{4}[ -]?\d{4}[ -]?\d{4}(?![\w-]|[ .,-]\d)/g],
  ["cpf", /(?<![\w.-]|\d[ .-])\d{3}\.?\d{3}\.?\d{3}-?\d{2}(?![\w-]|[ .,-]\d)/g],
  ["pesel", /(?<![\w.-]|\d[ .-])\d{11}(?![\w-]|[ .,-]\d)/g],
  ["chinese", /(?<![\w-]|\d[ .-])\d{17}[\dXx](?![\w-])/g],
  ["tfn", /(?<![\w-]|\d[ .-])\d{3} ?\d{3} ?\d{2,3}(?![\w-]|[ .,-]\d)/g],
  ["nhs", /(?<![\w-]|\d[ .-])\d{3}[ -]?\d{3}[ -]?\d{4}(?![\w-]|[ .,-]\d)/g],
  ["personnummer", /(?<![\w-]|\d[ .-])(?:19|20)?\d{6}[-+]?\d{4}(?![\w-])/g],
  ["norway", /(?<![\w-]|\d[ .-])\d{6} ?\d{5}(?![\w-])/g],
  ["cpr", /(?<![\w-]|\d[ .-])\d{6}-?\d{4}(?![\w-])/g],
];
const labelledShape: Check = (text) =>
  LABELLED_SHAPES.some(([name, shape]) => some(text, shape, (_m, at) => labelled(text, at, LABEL[name])));

const CHECKS: readonly Check[] = [
  usSsn,
  ukNino,
  caSin,
  esDni,
  nlBsn,
  itCodiceFiscale,
  frNir,
  deSteuerId,
  inAadhaar,
  brCpf,
  plPesel,
  cnResidentId,
  sgNric,
  auTfn,
  krRrn,
  ukNhs,
  sePersonnummer,
  fiHetu,
  dkCpr,
  noFodselsnummer,
  beRrn,
  labelledDocument,
  labelledShape,
];

/** True when the text holds a national identity number that passes its format's validation. */
export function containsNationalId(text: string): boolean {
  if (!/\d\d/.test(text)) return false; // every format has at least two adjacent digits
  const scanned = maskIbans(text);
  return CHECKS.some((check) => check(scanned));
}
