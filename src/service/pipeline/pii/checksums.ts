// Check-digit algorithms the detectors validate candidates with. Inputs are already-stripped strings.

const digitAt = (s: string, i: number): number => s.charCodeAt(i) - 48;

/** Luhn mod 10 (payment cards, Canadian SIN, IMEI). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digitAt(digits, digits.length - 1 - i);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

const VERHOEFF_D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const VERHOEFF_P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

/** Verhoeff dihedral check (Indian Aadhaar). */
export function verhoeffValid(digits: string): boolean {
  let c = 0;
  for (let i = 0; i < digits.length; i++) {
    c = VERHOEFF_D[c][VERHOEFF_P[i % 8][digitAt(digits, digits.length - 1 - i)]];
  }
  return c === 0;
}

/** The remainder of a long decimal string modulo m, without BigInt. */
export function decimalMod(digits: string, m: number): number {
  let r = 0;
  for (let i = 0; i < digits.length; i++) r = (r * 10 + digitAt(digits, i)) % m;
  return r;
}

/** ISO 13616 IBAN: country letters + 2 check digits + BBAN, mod 97 == 1. */
export function ibanValid(compact: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let numeric = "";
  for (const ch of rearranged) {
    numeric += ch >= "A" && ch <= "Z" ? String(ch.charCodeAt(0) - 55) : ch;
  }
  return decimalMod(numeric, 97) === 1;
}

/** ISO 7064 MOD 11,10 (German Steuer-ID). */
export function iso7064Mod11_10Valid(digits: string): boolean {
  let product = 10;
  for (let i = 0; i < digits.length - 1; i++) {
    let sum = (digitAt(digits, i) + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  let check = 11 - product;
  if (check === 10) check = 0;
  return check === digitAt(digits, digits.length - 1);
}

/** German Steuer-ID: 11 digits, no leading 0, one digit repeated 2-3 times in the first ten, MOD 11,10. */
export function steuerIdValid(digits: string): boolean {
  if (!/^[1-9]\d{10}$/.test(digits)) return false;
  const counts = new Array<number>(10).fill(0);
  for (let i = 0; i < 10; i++) counts[digitAt(digits, i)]++;
  const repeated = counts.filter((c) => c >= 2);
  if (repeated.length !== 1 || repeated[0] > 3) return false;
  return iso7064Mod11_10Valid(digits);
}

/** Dutch BSN "11-test": 9·d1 + 8·d2 + … + 2·d8 − d9 ≡ 0 (mod 11). */
export function bsnValid(digits: string): boolean {
  if (!/^\d{9}$/.test(digits) || /^0+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += digitAt(digits, i) * (9 - i);
  sum -= digitAt(digits, 8);
  return sum % 11 === 0;
}

const DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";

/** Spanish DNI (8 digits + letter) and NIE (X/Y/Z + 7 digits + letter): letter = table[n mod 23]. */
export function spanishIdValid(id: string): boolean {
  const m = /^([XYZ]|\d)(\d{7})([A-Z])$/.exec(id);
  if (!m) return false;
  const lead = m[1] === "X" ? "0" : m[1] === "Y" ? "1" : m[1] === "Z" ? "2" : m[1];
  return DNI_LETTERS[Number(lead + m[2]) % 23] === m[3];
}

const CF_ODD: Record<string, number> = {
  "0": 1,
  "1": 0,
  "2": 5,
  "3": 7,
  "4": 9,
  "5": 13,
  "6": 15,
  "7": 17,
  "8": 19,
  "9": 21,
  A: 1,
  B: 0,
  C: 5,
  D: 7,
  E: 9,
  F: 13,
  G: 15,
  H: 17,
  I: 19,
  J: 21,
  K: 2,
  L: 4,
  M: 18,
  N: 20,
  O: 11,
  P: 3,
  Q: 6,
  R: 8,
  S: 12,
  T: 14,
  U: 16,
  V: 10,
  W: 22,
  X: 25,
  Y: 24,
  Z: 23,
};

/** Italian codice fiscale: the 16th character is a weighted sum of the first 15, mod 26. */
export function codiceFiscaleValid(cf: string): boolean {
  if (cf.length !== 16) return false;
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    const ch = cf[i];
    if (i % 2 === 0) sum += CF_ODD[ch] ?? 0;
    else sum += ch >= "0" && ch <= "9" ? digitAt(ch, 0) : ch.charCodeAt(0) - 65;
  }
  return String.fromCharCode(65 + (sum % 26)) === cf[15];
}

/** French NIR (INSEE number): key = 97 − (first 13 digits mod 97); Corsica 2A/2B count as 19/18. */
export function nirValid(compact: string): boolean {
  if (!/^[1-478]\d{4}(?:\d{2}|2[AB])\d{8}$/.test(compact)) return false;
  const body = compact.slice(0, 13).replace("2A", "19").replace("2B", "18");
  const key = Number(compact.slice(13));
  return key >= 1 && key <= 97 && 97 - decimalMod(body, 97) === key;
}

/** Brazilian CPF: two mod-11 check digits; repeated-digit numbers are invalid. */
export function cpfValid(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || /^(\d)\1{10}$/.test(digits)) return false;
  for (const len of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += digitAt(digits, i) * (len + 1 - i);
    const check = ((sum * 10) % 11) % 10;
    if (check !== digitAt(digits, len)) return false;
  }
  return true;
}

/** Polish PESEL: weights 1,3,7,9 repeating; check = (10 − sum mod 10) mod 10. */
export function peselValid(digits: string): boolean {
  if (!/^\d{11}$/.test(digits)) return false;
  const w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += digitAt(digits, i) * w[i];
  return (10 - (sum % 10)) % 10 === digitAt(digits, 10);
}

/** Chinese resident identity number: 17 digits + ISO 7064 MOD 11-2 check (0-9 or X), with a real birth date. */
export function chineseIdValid(id: string): boolean {
  if (!/^[1-9]\d{16}[\dX]$/.test(id)) return false;
  if (!plausibleDate(Number(id.slice(6, 10)), Number(id.slice(10, 12)), Number(id.slice(12, 14)))) return false;
  const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += digitAt(id, i) * w[i];
  return "10X98765432"[sum % 11] === id[17];
}

/** Singapore NRIC/FIN (S/T/F/G series): 7 digits, check letter from weights 2,7,6,5,4,3,2. */
export function nricValid(id: string): boolean {
  const m = /^([STFG])(\d{7})([A-Z])$/.exec(id);
  if (!m) return false;
  const w = [2, 7, 6, 5, 4, 3, 2];
  let sum = m[1] === "T" || m[1] === "G" ? 4 : 0;
  for (let i = 0; i < 7; i++) sum += digitAt(m[2], i) * w[i];
  const table = m[1] === "S" || m[1] === "T" ? "JZIHGFEDCBA" : "XWUTRQPNMLK";
  return table[sum % 11] === m[3];
}

/** Australian TFN: 9 digits, weights 1,4,3,7,5,8,6,9,10, sum ≡ 0 (mod 11). */
export function tfnValid(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  const w = [1, 4, 3, 7, 5, 8, 6, 9, 10];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += digitAt(digits, i) * w[i];
  return sum % 11 === 0;
}

/** A calendar date that exists, in a plausible range for a living person's birth. */
export function plausibleDate(year: number, month: number, day: number): boolean {
  if (year < 1900 || year > 2100 || month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}
