// Passwords stated or assigned ("my password is …", "DB_PASSWORD=…", "pin: 4821"). Each label occurrence is
// read forwards (label, qualifier, connector, value) and backwards ("hunter2 is my password"); the value must
// look like a secret and not like commentary, so sentences that only talk about passwords pass.
import { isPlaceholder } from "./context.js";
import { isCommentary } from "./words.js";

const PASSWORD_WORDS = [
  "passwords?",
  "passwd",
  "passphrase",
  "pass ?word",
  "pgpassword",
  "mysql_pwd",
  "contrase[ñn]as?",
  "clave de acceso",
  "mot de passe",
  "mots de passe",
  "passwort",
  "kennwort",
  "senha",
  "wachtwoord",
  "l[öo]senord",
  "salasana",
  "has[łl]o",
  "heslo",
  "пароль",
  "密码",
  "口令",
  "パスワード",
  "비밀번호",
  "wpa2? key",
  "wpa2?-psk",
  "wi-?fi key",
  "wlan key",
  "network key",
  "psk",
  // Abbreviations that mean nothing but "password", so they read like it: "pw is x", "wifi pwd hunter2!".
  "pwd",
  "pw",
  "pword",
  "psswd",
  "pswd",
  "passw",
  "mdp",
].join("|");
/** "key" is a password label only in a Wi-Fi context ("Wi-Fi: GuestNet / key: …"). */
const WIFI_CONTEXT = /\b(?:wi-?fi|wlan|ssid|wireless|hotspot|router|network)\b/i;
/** Everyday words that count only with ':' or '=' ("pass: x", "key=x" on a Wi-Fi line). */
const TERSE_WORDS = ["pass(?! ?codes?)", "key"].join("|");
const CODE_WORDS = [
  "pin",
  "pin ?codes?",
  "pin-codes?",
  "pin numbers?",
  "passcodes?",
  "pass codes?",
  "security codes?",
  "door codes?",
  "gate codes?",
  "alarm codes?",
  "garage codes?",
  "lock codes?",
  "safe codes?",
  "keypad codes?",
  "entry codes?",
  "access codes?",
  "lockbox codes?",
  "combination",
  "code pin",
  "c[oó]digo pin",
  "geheimzahl",
  "recovery codes?",
  "backup codes?",
].join("|");
/** Login pairs: "creds: admin/hunter2", "login admin : hunter2". */
const CREDENTIAL_WORDS = ["credentials?", "creds", "logins?", "user/pass", "username/password", "user ?& ?pass"].join("|");

const LABEL = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:(${PASSWORD_WORDS})|(${TERSE_WORDS})|(${CODE_WORDS})|(${CREDENTIAL_WORDS}))(?![\\p{L}\\p{N}])`,
  "giu",
);

// Between label and connector: an optional name suffix (DB_PASSWORD_PROD), a "for the staging db" or "(prod)".
const QUALIFIER =
  "(?:_[A-Za-z0-9_]{1,30})?[\"']?(?:\\s*\\([^()\\n]{1,30}\\)|\\s+(?:for|to|of|on|at|in|from|de|del|du|des|pour|für|fuer|van|voor|da|do|per|para)(?:\\s+[\\p{L}\\p{N}_.@/'-]{1,30}){1,3}?)?";
const STRONG = "\\s*(?::=|=>|->|→|[:=：])\\s*";
const NATURAL =
  "\\s*(?:'s|’s|[?,:;—–-]?\\s*(?:it's|it’s|it is|its|that's|that is)(?![\\p{L}\\p{N}])\\s*:?|\\s(?:is|was|are|were|es|est|ist|lautet|é|è|är|er|jest|je|is nu|wird)(?![\\p{L}\\p{N}])(?:\\s+(?:now|still|currently|just|actually|simply|literally|set to|changed to|ahora|maintenant|jetzt)(?![\\p{L}\\p{N}]))?\\s*:?)\\s*";
const VALUE = "(\"[^\"\\n]{1,120}\"|'[^'\\n]{1,120}'|`[^`\\n]{1,120}`|“[^”\\n]{1,120}”|«[^»\\n]{1,120}»|[^\\s\"'`]{1,120})";

const TAIL_STRONG = new RegExp(`^${QUALIFIER}${STRONG}${VALUE}(.{0,16})`, "u");
const TAIL_NATURAL = new RegExp(`^${QUALIFIER}${NATURAL}${VALUE}(.{0,16})`, "u");
// After a lone word, what ends the statement: "password: sunflower." vs "password: check with IT".
const CLAUSE_END = /^\s*(?:$|[.,;!?()[\]—–\n-]|(?:and|but|or|so|then|yesterday|today|now|since|until|which|btw)(?![\p{L}]))/iu;
const TAIL_PAIR = /^\s*(?:[:=]|is|are)?\s*([^\s/:|]{1,64})\s*[/:|]\s*([^\s]{3,120})/u;
const TAIL_BARE = new RegExp(`^\\s+${VALUE}`, "u");
const TAIL_TO = new RegExp(`^\\s+(?:to|as|into|=)\\s+${VALUE}(.{0,12})`, "u");
const HEAD_CHANGE =
  /\b(?:set|sets|setting|change|changed|changes|changing|reset|resets|resetting|update|updated|updating|rotated?|make|made)\s+(?:[\p{L}\p{N}'’-]+\s+){0,3}$/iu;
const REVERSE_VERBS = new Set(["is", "was", "=", "es", "est", "ist", "é"]);

/** "hunter2 is my (github) password": the token before "is" + one to three words that end at the label. */
function reverseValue(head: string): string | null {
  const words = head.slice(-100).trimEnd().split(/\s+/);
  for (let k = 1; k <= 3 && k + 2 <= words.length; k++) {
    if (!REVERSE_VERBS.has(words[words.length - k - 1].toLowerCase())) continue;
    const between = words.slice(words.length - k);
    if (!between.every((w) => /^[\p{L}'’-]{1,20}$/u.test(w))) return null;
    return words[words.length - k - 2];
  }
  return null;
}

/** Strips quotes and sentence punctuation around a captured value. */
function unwrap(raw: string): { value: string; quoted: boolean } {
  const quoted = /^["'`“«]/.test(raw);
  if (quoted) return { value: raw.slice(1, -1).trim(), quoted };
  return { value: raw.replace(/[.,;:!?)\]}>]+$/, ""), quoted };
}

/** Mixed like a chosen secret: letters with digits or symbols, or several cases (not a path, email, version). */
function looksLikePassword(value: string): boolean {
  if (value.length < 4) return false;
  if (/^[~.]?\/[\w./-]*$/.test(value) || /^[\w.+-]+@[\w-]+\.[\w.-]+$/.test(value)) return false; // path, email
  if (/^v?\d+(?:\.\d+)+$/.test(value) || /^\d+[-–]?(?:char(?:acter)?s?|days?|digits?|months?|min|max|bit|chars?)$/i.test(value))
    return false;
  if (
    /^(?:argon2(?:id|i|d)?|bcrypt|scrypt|pbkdf2|sha-?\d+|md5|sha1|2fa|mfa|totp|1password|keepass(?:xc)?|lastpass|bitwarden|vault)$/i.test(
      value,
    )
  )
    return false;
  const letters = /\p{L}/u.test(value);
  const digits = /\d/.test(value);
  const symbols = /[^\p{L}\p{N}]/u.test(value);
  const mixedCase = /\p{Lu}/u.test(value.slice(1)) && /\p{Ll}/u.test(value);
  if (symbols && /^[\p{L}]+(?:-[\p{L}]+)+$/u.test(value)) return false; // hyphenated words: "self-service"
  return (letters && (digits || symbols || mixedCase)) || (digits && symbols);
}

/** Is the value stated after a password label a password (rather than a word about it)? */
function isStatedPassword(raw: string, mode: "strong" | "natural" | "bare", rest = ""): boolean {
  if (isPlaceholder(raw)) return false;
  const { value, quoted } = unwrap(raw);
  if (value.length < 3 || isPlaceholder(value)) return false;
  if (quoted) return !isCommentary(value) && value.length >= 3;
  if (mode === "bare") return looksLikePassword(value);
  if (/^\d{4,}$/.test(value)) return true;
  if (/^\d+$/.test(value)) return false;
  if (isCommentary(value)) return false;
  if (looksLikePassword(value)) return true;
  // A single word stated as the password ("my password is swordfish"); after ':' it must end the statement,
  // since "password: check with IT" is an instruction.
  if (!/^\p{L}{4,}$/u.test(value)) return false;
  return mode === "natural" || /[.,;!?)]$/.test(raw) || CLAUSE_END.test(rest);
}

/** A PIN or door code: 3-10 digits (a trailing # or * is how keypads confirm), or a password-like passcode. */
function isStatedCode(raw: string, label: string): boolean {
  const { value } = unwrap(raw);
  const code = value.replace(/[#*]$/, "").replace(/^(\d(?:-\d){2,9})$/, (c) => c.replace(/-/g, "")); // "1-9-8-4"
  if (!/^\d{3,10}$/.test(code)) return !/^pin/i.test(label) && looksLikePassword(value) && !isPlaceholder(value);
  if (/^pin[ -]?code/i.test(label) && code.length === 6) return false; // an Indian postal PIN code
  return label.toLowerCase().startsWith("pin") ? code.length >= 4 && code.length <= 8 : true;
}

// Chinese, Japanese and Korean write no space between words and attach particles to nouns ("密码是x", "パスワードはx
// です", "비밀번호는 x 입니다"), so their labels are matched inside a sentence, and the value is the run of Latin
// letters, digits and symbols after the label and its particle or verb: these scripts end it.
const CJK_PASSWORD_WORDS = "密码|密碼|口令|パスワード|暗証番号|비밀번호|비번|패스워드|암호";
const CJK_CONNECTOR = "(?:是|为|為|改成|改为|改為|换成|換成|设为|设置为|設為|設定為|は|が|を|も|은|는|이|가|을|를|도)";
const CJK_STATED = new RegExp(
  `(?:${CJK_PASSWORD_WORDS})\\s*(?:${CJK_CONNECTOR}\\s*)?(?:[:=]\\s*)?[「『“"'\`]?([\\x21-\\x7e]{3,120})`,
  "gu",
);
const CJK_SCRIPT = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u;
/** What ends a statement after a lone word: an ideographic stop, a copula ("です", "입니다"), or nothing. */
const CJK_CLAUSE_END = /^\s*(?:$|[.,;!?。，、！？；)）」』”"'\n]|です|でした|だ|입니다|이에요|예요|이야|이다|였어요|야(?![\p{L}]))/u;
/** The value is compared with or owns something, not stated: "AppleIDと同じ", "AppleID와 같아요", "MySQL的root密码". */
const CJK_COMPARED = /^(?:と|の|와|과|랑|하고|처럼|같|의|的|之|一样|一樣|相同)/u;

/** A password stated after a CJK or Korean label, inside a sentence. */
function containsCjkPassword(text: string): boolean {
  if (!CJK_SCRIPT.test(text)) return false;
  for (const m of text.matchAll(CJK_STATED)) {
    const value = m[1].replace(/[.,;:!?)\]}>"'`]+$/, "");
    const rest = text.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 12);
    if (value.length < 3 || CJK_COMPARED.test(rest) || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) continue;
    if (isPlaceholder(value) || isCommentary(value)) continue;
    if (/^\d{4,}$/.test(value) || looksLikePassword(value)) return true;
    if (/^\p{L}{4,}$/u.test(value) && CJK_CLAUSE_END.test(rest)) return true; // "비번은 sunflower 이에요"
  }
  return false;
}

/** True when the text states or assigns a password, passphrase, PIN or access code. */
export function containsPassword(text: string): boolean {
  for (const m of text.matchAll(LABEL)) if (statedAt(text, m)) return true;
  return containsCjkPassword(text);
}

/** Reads one label occurrence forwards and backwards for a stated value. */
function statedAt(text: string, m: RegExpMatchArray): boolean {
  const start = m.index ?? 0;
  const end = start + m[0].length;
  const tail = text.slice(end, end + 200);
  const [, passwordWord, terseWord, codeWord, credentialWord] = m;
  if (credentialWord !== undefined) {
    const pair = TAIL_PAIR.exec(tail);
    return pair !== null && isStatedPassword(pair[2], "bare");
  }
  if (codeWord !== undefined) {
    const assigned = TAIL_STRONG.exec(tail) ?? TAIL_NATURAL.exec(tail) ?? TAIL_BARE.exec(tail);
    return assigned !== null && isStatedCode(assigned[1], codeWord);
  }
  if (/^key$/i.test(m[0]) && !WIFI_CONTEXT.test(text.slice(Math.max(0, start - 60), start))) return false;
  const strong = TAIL_STRONG.exec(tail);
  if (strong && isStatedPassword(strong[1], "strong", strong[2])) return true;
  if (terseWord !== undefined) return false; // "pass", "pw": everyday words unless assigned with ':' or '='
  if (/^passwords$/i.test(passwordWord)) return false; // plural: talk about passwords in general
  const natural = TAIL_NATURAL.exec(tail);
  if (natural && isStatedPassword(natural[1], "natural", natural[2])) return true;
  const head = text.slice(Math.max(0, start - 80), start);
  const to = TAIL_TO.exec(tail);
  if (to && HEAD_CHANGE.test(head) && isStatedChange(to[1], to[2])) return true;
  const reverse = reverseValue(head);
  if (reverse !== null && isStatedPassword(reverse, "bare")) return true;
  const bare = TAIL_BARE.exec(tail);
  return bare !== null && isStatedPassword(bare[1], "bare");
}

/** "changed the password to X": X is a password when it looks like one, or a lone word that ends the clause. */
function isStatedChange(raw: string, rest: string): boolean {
  if (isStatedPassword(raw, "bare")) return true;
  const { value, quoted } = unwrap(raw);
  if (quoted) return isStatedPassword(raw, "strong");
  if (/^\d{4,}$/.test(value)) return true;
  const endsClause = /[.,;!?)]$/.test(raw) || CLAUSE_END.test(rest);
  return endsClause && /^\p{L}{4,}$/u.test(value) && !isCommentary(value);
}
