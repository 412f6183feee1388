// What every detector reads: the text as a person sees it. A secret written in fullwidth or Arabic-Indic digits,
// split by zero-width characters, or grouped with dots, slashes or odd spaces is the same secret, so the screen
// first folds those forms into the plain ASCII ones the detectors know. Only the screen reads this form; the stored
// text is the caller's own.

/** Characters that render as nothing (zero-width spaces and joiners, soft hyphens, BOMs, bidi marks, selectors). */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;
const HAS_INVISIBLE = new RegExp(INVISIBLE.source, "u");
/** A decimal digit other than ASCII 0-9 (Arabic-Indic, Devanagari, Thai, …), after NFKC. */
const OTHER_DIGIT = /(?![0-9])\p{Nd}/gu;
/** A run of spacing, dash and grouping marks between two digits. */
const DIGIT_SEPARATORS = /(?<=\d)[\p{Zs}\t\p{Pd}\u2212./_·•‧∙]+(?=\d)/gu;
const DASH = /[\p{Pd}\u2212]/u;

// Unicode encodes decimal digits only in runs of ten, 0 to 9 in order, so a digit's value is its distance from the
// start of its run, modulo ten (some runs, like the mathematical digits, are several sets of ten back to back).
const digitValues = new Map<string, string>();
const isDigit = (codePoint: number) => /\p{Nd}/u.test(String.fromCodePoint(codePoint));

function asciiDigit(ch: string): string {
  let value = digitValues.get(ch);
  if (value === undefined) {
    const codePoint = ch.codePointAt(0)!;
    let start = codePoint;
    while (isDigit(start - 1)) start--;
    value = String((codePoint - start) % 10);
    digitValues.set(ch, value);
  }
  return value;
}

/** One separator for a run: a dash if it holds one, else its first mark, else a plain space. */
function canonicalSeparator(run: string): string {
  if (DASH.test(run)) return "-";
  const mark = /[./_·•‧∙]/.exec(run)?.[0];
  if (mark === undefined) return " ";
  return mark === "." || mark === "/" || mark === "_" ? mark : ".";
}

/**
 * The text the detectors screen: NFKC (fullwidth and other compatibility forms to plain ones), every decimal digit
 * as ASCII, invisible characters removed, and each run of separators between two digits as one ASCII separator.
 */
export function normalizeForScreening(text: string): string {
  let out = text.normalize("NFKC");
  if (HAS_INVISIBLE.test(out)) out = out.replace(INVISIBLE, "");
  if (/[^\x00-\x7F]/.test(out)) out = out.replace(OTHER_DIGIT, asciiDigit);
  return out.replace(DIGIT_SEPARATORS, canonicalSeparator);
}
