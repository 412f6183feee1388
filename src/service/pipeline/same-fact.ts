// The rules that decide whether two near texts state the same fact about the same subject (DESIGN.md: "a merge
// keeps every distinct fact of both texts, or it is not made"). Pure functions; the cosines come from the caller.
import { STOPWORDS, distinctFacts, wordsOf } from "../models/embed/lexical.js";

/** Why two texts are not the same fact, or null when no rule tells them apart. */
export type FactConflict = "speaker" | "key-terms";

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

/**
 * Two texts are different facts when their speakers differ (one naming a speaker and the other none counts as
 * different: who said it is unknown), or when a number, name, date, qualifier or negation of one is not in the other.
 */
export function factConflict(a: string, b: string): FactConflict | null {
  if (speakerOf(a) !== speakerOf(b)) return "speaker";
  if (distinctFacts(withoutSpeaker(a), withoutSpeaker(b))) return "key-terms";
  return null;
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
