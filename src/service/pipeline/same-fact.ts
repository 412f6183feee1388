// The rules that decide whether two near texts state the same fact about the same subject (DESIGN.md: "a merge
// keeps every distinct fact of both texts, or it is not made"). Pure functions; the cosines come from the caller.
import { STOPWORDS, keyTerms, wordsOf } from "../models/embed/lexical.js";
import { timeOrderStateConflict } from "./opposed-words.js";

/** Why two texts are not the same fact, or null when no rule tells them apart. */
export type FactConflict = "speaker" | "key-terms" | "time-order-state";

/** A leading `Name:` or `First Last:` (up to three capitalized words) names who said the text. */
const SPEAKER_PREFIX = /^\s*(\p{Lu}[\p{L}\p{M}'’.-]*(?:[ \t]+\p{Lu}[\p{L}\p{M}'’.-]*){0,2})[ \t]*:[ \t]+(?=\S)/u;

/** Who said the text, by its `Speaker:` prefix (lower-cased), or null when it names no speaker. */
export function speakerOf(text: string): string | null {
  const match = SPEAKER_PREFIX.exec(text.normalize("NFKC"));
  return match ? match[1]!.toLowerCase() : null;
}

/** The text without its `Speaker:` prefix. */
export function withoutSpeaker(text: string): string {
  return text.normalize("NFKC").replace(SPEAKER_PREFIX, "");
}

/** A time of day, with or without minutes and am/pm: "9:30", "9.30am", "3 p.m.". */
const TIME_OF_DAY = /\b(\d{1,2})(?:([:.])(\d{2}))?(?:\s*([ap])\.?\s?m\b\.?)?/gi;
const MONTH = "January|February|March|April|June|July|August|September|October|November|December";
const DAY_OF_MONTH = "\\d{1,2}(?:st|nd|rd|th)?|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth";
/** A calendar date: a month, with its day before or after it and a year ("the 22nd of August", "May 14, 2025"). */
const CALENDAR_DATE = new RegExp(
  `(?:\\b(?:${DAY_OF_MONTH})\\s+(?:of\\s+)?)?(?:\\b(?:${MONTH})\\b|(?<=\\b(?:in|of|since|until|by|early|late|mid)\\s+|\\d\\s+)May\\b|\\bMay(?=\\s+\\d))` +
    `(?:\\s+(?:${DAY_OF_MONTH})\\b)?(?:,?\\s+\\d{4}\\b)?|\\b(?:in|since|until)\\s+(?:19|20)\\d{2}\\b`,
  "g",
);
const CALENDAR_MONTH = new RegExp(`\\b(?:${MONTH}|May)\\b`, "g");
/** A place: a name after a preposition of place or direction ("in Porto", "at Heathrow", "from New York"). */
const PLACE =
  /\b(?:[Ii]n|[Aa]t|[Nn]ear|[Aa]round|[Oo]utside|[Ii]nside|[Ff]rom|[Tt]o|[Ii]nto)\s+(?:the\s+)?(\p{Lu}[\p{L}\p{M}'’.-]*(?:\s+\p{Lu}[\p{L}\p{M}'’.-]*){0,2})/gu;

/** Times of day written one way, so "9:30am", "9.30 a.m." and "09:30" are one term (24-hour when am/pm is said). */
function withTimesWrittenAlike(text: string): string {
  return text.replace(
    TIME_OF_DAY,
    (whole, hour: string, sep: string | undefined, minutes: string | undefined, half: string | undefined) => {
      const h = Number(hour);
      if (half === undefined && sep !== ":") return whole;
      if (half !== undefined && (h < 1 || h > 12)) return whole;
      const h24 = half === undefined ? h : (h % 12) + (half.toLowerCase() === "p" ? 12 : 0);
      return `${h24}:${minutes ?? "00"}`;
    },
  );
}

interface FactTerms {
  terms: Map<string, number>;
  elaborative: Set<string>;
}

/**
 * The facts a text states, as key terms (numbers, names, qualifiers, days, negation; models/embed/lexical.ts) plus
 * the months of its dates. `elaborative` holds the terms that only say when or where (a day, a time of day, a
 * calendar date, a place): named on one side only they elaborate, not contradict.
 */
function factTermsOf(text: string): FactTerms {
  const body = withTimesWrittenAlike(withoutSpeaker(text));
  const terms = keyTerms(body);
  const elaborative = new Set([...terms.keys()].filter((term) => term.startsWith("d:")));
  const phrases = [
    ...[...body.matchAll(/\b\d{1,2}:\d{2}\b/g)].map((m) => m[0]),
    ...[...body.matchAll(CALENDAR_DATE)].map((m) => m[0]),
    ...[...body.matchAll(PLACE)].map((m) => m[1]!),
  ];
  for (const phrase of phrases) for (const term of keyTerms(phrase).keys()) elaborative.add(term);
  // A month is a term even where the key terms read "May" as the verb.
  for (const month of phrases.join(" ").match(CALENDAR_MONTH) ?? []) {
    terms.set(month.toLowerCase(), 1);
    elaborative.add(month.toLowerCase());
  }
  return { terms, elaborative };
}

const isContentWord = (word: string) => !STOPWORDS.has(word);

/** The terms of `a` that `b` does not state, and of those the ones of full weight (not a sentence-initial capital). */
function termsOnlyIn(a: FactTerms, b: FactTerms): { all: string[]; firm: string[] } {
  const only = [...a.terms].filter(([term]) => !b.terms.has(term));
  return { all: only.map(([term]) => term), firm: only.filter(([, weight]) => weight === 1).map(([term]) => term) };
}

/**
 * Two texts are different facts when their speakers differ (one naming a speaker and the other none counts as
 * different: who said it is unknown); when they disagree on time, order or state (opposed-words.ts); when one states
 * a number, name, qualifier or negation the other lacks; or when each names a day, time, date or place the other does
 * not. Named on one side only, a day, time, date or place is an elaboration: the two may merge into the text that
 * names it (survivorOf). A sentence-initial capital (half weight, maybe grammar) tells two texts apart
 * only when both open with a different one ("Marcus owns…" / "Priya owns…").
 */
export function factConflict(a: string, b: string): FactConflict | null {
  if (speakerOf(a) !== speakerOf(b)) return "speaker";
  if (timeOrderStateConflict(withoutSpeaker(a), withoutSpeaker(b), isContentWord)) return "time-order-state";
  const fa = factTermsOf(a);
  const fb = factTermsOf(b);
  const onlyA = termsOnlyIn(fa, fb);
  const onlyB = termsOnlyIn(fb, fa);
  if (onlyA.firm.some((t) => !fa.elaborative.has(t)) || onlyB.firm.some((t) => !fb.elaborative.has(t))) return "key-terms";
  if (onlyA.firm.length > 0 && onlyB.firm.length > 0) return "key-terms";
  if (onlyA.all.length > onlyA.firm.length && onlyB.all.length > onlyB.firm.length) return "key-terms";
  return null;
}

/**
 * Which text a merge must keep so that no term is lost: "a" or "b" when only that one names a day, time, date or place
 * the other does not (an elaboration), "either" otherwise. Asked only of texts factConflict let pass.
 */
export function survivorOf(a: string, b: string): "a" | "b" | "either" {
  const fa = factTermsOf(a);
  const fb = factTermsOf(b);
  if (termsOnlyIn(fa, fb).firm.length > 0) return "a";
  if (termsOnlyIn(fb, fa).firm.length > 0) return "b";
  return "either";
}

const sentenceSegmenter = new Intl.Segmenter("en", { granularity: "sentence" });

/** The sentences of a text (its speaker prefix left out), as ICU segments them. */
export function sentencesOf(text: string): string[] {
  return [...sentenceSegmenter.segment(withoutSpeaker(text))].map((s) => s.segment.trim()).filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/** The words that carry content: lower-cased, stopwords left out, a plural or possessive "s" dropped. */
export function contentWords(text: string): Set<string> {
  const words = wordsOf(text).filter((w) => !STOPWORDS.has(w));
  return new Set(words.map((w) => w.replace(/'s$/, "").replace(/(?<=\p{L}{3})s$/u, "")));
}

/** The sentences of `dropped` that say a word `kept` does not: only these need a measured match to be covered. */
export function sentencesNotContained(dropped: string, kept: string): string[] {
  const keptWords = contentWords(kept);
  return sentencesOf(dropped).filter((sentence) => [...contentWords(sentence)].some((w) => !keptWords.has(w)));
}

/** Cosines of each sentence in `sentences` (rows) to each in `keptSentences` (columns). */
export type SentenceCosines = (sentences: string[], keptSentences: string[]) => Promise<number[][]>;

/** SentenceCosines measured by embedding the sentences (unit vectors, so a dot product is the cosine). */
export function cosinesByEmbedding(embed: (texts: string[]) => Promise<Float32Array[]>): SentenceCosines {
  return async (sentences, keptSentences) => {
    const vectors = await embed([...sentences, ...keptSentences]);
    const kept = vectors.slice(sentences.length);
    return sentences.map((_, i) => kept.map((k) => dot(vectors[i]!, k)));
  };
}

/**
 * Whether every sentence of `dropped` is stated by `kept`: each is either contained word for word (its content words
 * all in `kept`) or close to one sentence of `kept` (cosine >= threshold). When true, a merge that keeps `kept` loses
 * no fact of `dropped`.
 */
export async function keepsEveryFact(kept: string, dropped: string, cosines: SentenceCosines, threshold: number): Promise<boolean> {
  const open = sentencesNotContained(dropped, kept);
  if (open.length === 0) return true;
  const keptSentences = sentencesOf(kept);
  if (keptSentences.length === 0) return false;
  return (await cosines(open, keptSentences)).every((row) => row.some((cosine) => cosine >= threshold));
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
