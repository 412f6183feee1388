// Payment card numbers: 13-19 digits in consistent groups, a known issuer range, and a valid Luhn check.
import { luhnValid } from "./checksums.js";
import { after, before, namesOtherNumber } from "./context.js";
import { maskIbans } from "./iban.js";

// Digits and separators (space, hyphen, dot, slash, underscore: ./normalize.ts folds every other form into these)
// at least 13 long, then split into runs with single separators; what touches a run is checked in code rather than
// by lookarounds, so long inputs cannot make the regex backtrack.
const DIGIT_RUN = /\d[\d ./_-]{11,}\d/g;
const SINGLE_SEPARATED = /\d+(?:[ ./_-]\d+)*/g;
const SEPARATOR = /[ ./_-]/;
// After "%": a percent-escape ("%234611…" is "#4611…"), read decoded instead (./encoded.ts).
const GLUED_BEFORE = /[\w.,/+%-]/;
// A card copied from a form, a PDF or a chat is split by whatever the source used, often several kinds at once:
// spaces and tabs around at most one line break, or one comma, or a dash (unambiguous, so it cannot backtrack).
// Line breaks and commas are never mixed in one number: together they are a CSV grid. Dots, slashes and underscores
// count only when they are the one separator throughout (decimals, paths, dates), above.
const looseSeparator = (brk: string) => `(?:[ \\t]+(?:(?:${brk}|-)[ \\t]*)?|(?:${brk}|-)[ \\t]*)`;
const LOOSE = ["\\r?\\n", ","].map((brk) => ({
  run: new RegExp(`(?<!\\d)\\d+(?:${looseSeparator(brk)}\\d+){2,}`, "g"),
  separators: new RegExp(looseSeparator(brk), "g"),
}));
/** Digit groups just before a run, joined to it by loose separators: a label before them names the run too. */
const GROUPS_BEFORE = new RegExp(`(?:\\d+${looseSeparator("\\r?\\n|,")})+$`);

const CARD_WORDS =
  /\b(?:cards?|credit|debit|visa|master ?card|mc|amex|american express|discover|jcb|diners|unionpay|union pay|maestro|mir|rupay|cc|ccn|pan|cvv|cvc|cvv2|exp|expiry|expires|expiration|paid with|pay with|charged?|billing)\b/;

/** Lengths a network issues, keyed by a predicate on the leading digits. */
function issuerLengths(d: string): number[] | null {
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  const p6 = Number(d.slice(0, 6));
  if (d[0] === "4") return [13, 16, 19]; // Visa
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return [16]; // Mastercard
  if (p4 >= 2200 && p4 <= 2204) return [16, 17, 18, 19]; // Mir
  if (p2 === 34 || p2 === 37) return [15]; // American Express
  if (p4 >= 3528 && p4 <= 3589) return [16, 17, 18, 19]; // JCB
  if ((p3 >= 300 && p3 <= 305) || p4 === 3095 || p2 === 36 || p2 === 38 || p2 === 39) return [14, 15, 16, 17, 18, 19]; // Diners
  if (p4 === 6011 || (p3 >= 644 && p3 <= 649) || p2 === 65) return [16, 17, 18, 19]; // Discover, RuPay 65
  if (p2 === 62 || p2 === 81) return [16, 17, 18, 19]; // UnionPay
  if (p2 === 60 || p3 === 508 || p2 === 82) return [16]; // RuPay
  if ((p6 >= 506099 && p6 <= 506198) || (p6 >= 650002 && p6 <= 650027)) return [16, 18, 19]; // Verve
  if (p2 === 50 || (p2 >= 56 && p2 <= 69)) return [12, 13, 14, 15, 16, 17, 18, 19]; // Maestro
  return null;
}

/** A number a card network could have issued: known range, issued length, Luhn-valid. */
export function isCardNumber(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  const lengths = issuerLengths(digits);
  return lengths !== null && lengths.includes(digits.length) && luhnValid(digits);
}

/** Group lengths people print card numbers in: 4-4-4-4(-3), Amex 4-6-5, Diners 4-6-4, or one block. */
function cardShape(lengths: number[]): boolean {
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total < 13 || total > 19) return false;
  if (lengths.length === 1) return true;
  const key = lengths.join("-");
  if (key === "4-6-5" || key === "4-6-4" || key === "4-4-5" || key === "6-13") return true;
  const last = lengths[lengths.length - 1];
  return lengths.slice(0, -1).every((n) => n === 4) && last >= 1 && last <= 4;
}

/**
 * A number spread out digit by digit or in pairs ("4 1 1 1 …", "41 11 11 …"), one separator throughout: the whole
 * run is the candidate, never a slice of it, so neighbouring short numbers are not joined into one. Groups of three
 * are how phone numbers and thousands are printed, so they are not read as a spread card.
 */
function spreadCandidate(groups: string[], seps: string): string | null {
  const size = groups[0]!.length;
  if (size > 2 || groups.length < 7 || new Set(seps).size !== 1) return null;
  const last = groups[groups.length - 1]!.length;
  if (!groups.slice(0, -1).every((g) => g.length === size) || last > size) return null;
  const digits = groups.join("");
  return digits.length >= 13 && digits.length <= 19 ? digits : null;
}

/** Digit strings in a run that are printed like one card number (not a slice of a longer grouped number). */
function* cardCandidates(run: string): Generator<string> {
  const groups = run.split(SEPARATOR);
  const seps = run.replace(/\d+/g, "");
  const spread = spreadCandidate(groups, seps);
  if (spread !== null) {
    yield spread;
    return;
  }
  for (let i = 0; i < groups.length; i++) {
    if (i > 0 && seps[i - 1] !== " " && seps[i - 1] !== "-") continue; // after a dot or slash: a fraction, a path part
    const lengths: number[] = [];
    let total = 0;
    for (let j = i; j < groups.length; j++) {
      if (j > i && (seps[j - 1] !== seps[i] || (groups[j - 1].length !== 4 && groups[j - 1].length !== 6))) break;
      total += groups[j].length;
      if (total > 19) break;
      lengths.push(groups[j].length);
      if (total < 13 || !cardShape(lengths)) continue;
      const uniform = lengths.every((n) => n === 4);
      const sep = seps[i];
      const extendsLeft = j > i && i > 0 && seps[i - 1] === sep && groups[i - 1].length === 4 && lengths[0] === 4;
      const extendsRight = j > i && j < groups.length - 1 && seps[j] === sep && groups[j + 1].length === 4 && uniform;
      if (!extendsLeft && !extendsRight) yield groups.slice(i, j + 1).join("");
    }
  }
}

/** True when the text holds a payment card number, unless a label names it as an order/tracking id. */
export function containsCreditCard(text: string): boolean {
  const scanned = maskIbans(text);
  for (const span of scanned.matchAll(DIGIT_RUN)) {
    for (const m of span[0].matchAll(SINGLE_SEPARATED)) {
      const start = span.index + m.index;
      if (cardRun(scanned, start, start + m[0].length, m[0])) return true;
    }
  }
  // Mixed separators and line breaks: each one read as a space, so the groups are judged as above.
  for (const loose of LOOSE) {
    for (const m of scanned.matchAll(loose.run)) {
      if (!/[\n,]/.test(m[0]) && !(m[0].includes("-") && /[ \t]/.test(m[0]))) continue; // one separator: done above
      if (cardRun(scanned, m.index, m.index + m[0].length, m[0].replace(loose.separators, " "))) return true;
    }
  }
  return false;
}

/** Does this run (one separator between groups), found at `start`, hold a card number that no label explains away? */
function cardRun(scanned: string, start: number, end: number, run: string): boolean {
  if (run.length < 13) return false;
  if (start > 0 && GLUED_BEFORE.test(scanned[start - 1])) return false; // part of a longer token or a decimal
  if (/^[A-Za-z_]/.test(scanned.slice(end, end + 1))) return false;
  for (const digits of cardCandidates(run)) {
    if (!isCardNumber(digits)) continue;
    const lead = scanned.slice(Math.max(0, start - 60), start);
    const label = before(scanned, start - (GROUPS_BEFORE.exec(lead)?.[0].length ?? 0), 40);
    const cardContext = CARD_WORDS.test(label + " " + after(scanned, end, 30));
    if (digits.length === 13 && !cardContext) continue; // 13 digits: too many EAN-13 look-alikes without a label
    if (!cardContext && namesOtherNumber(label)) continue;
    return true;
  }
  return false;
}
