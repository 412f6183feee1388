// The one relevance term, fed by two channels (DESIGN.md "Retrieval and decay"): the dense cosine, normalized from
// the relevance floor to the query's best cosine, and the store's lexical score, relative to the query's best lexical
// match but discounted when even that match is weak (so a question worded apart from every memory, where only a name
// matches, stays ranked by meaning). A calibrated convex combination: measured against reciprocal rank fusion on
// LoCoMo's development half and the project's own set (docs/decisions.md, issue 18).
import { speakerOf, withoutSpeaker } from "../pipeline/same-fact.js";
import type { LexicalMatch } from "../store/types.js";
import { foldText, stemOf, wordMatch, wordsOf } from "./search-terms.js";
import { FUSION, LEXICAL_EVIDENCE } from "./weights.js";

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);

export interface FusionContext {
  floor: number;
  /** The best cosine among the query's dense candidates. */
  bestCosine: number;
  /** The best lexical score of the query (0 when the lexical index found nothing). */
  bestLexical: number;
  /** The whole query's lexical weight (LexicalMatch.queryWeight; 0 when the lexical index found nothing). */
  queryWeight: number;
}

/**
 * (1 − share)·cosine' + share·lexical', in 0..1; `lexical` is 0 for a memory the lexical index did not find.
 * cosine' = (cosine − floor) / max(best cosine − floor, FUSION.minDenseSpan).
 * lexical' = lexical / max(best lexical + s, FUSION.wholeQueryShare (0.7) × the whole query's weight).
 */
export function fusedRelevance(cosine: number, lexical: number, ctx: FusionContext): number {
  // When even the best cosine barely clears the floor, the cosines' differences are noise: stretch over at least this.
  const span = Math.max(ctx.bestCosine - ctx.floor, FUSION.minDenseSpan);
  const dense = clamp01((cosine - ctx.floor) / span);
  // A match of one word of a many-word question (however it ranks among the matches) earns only its share of the query.
  const scale = Math.max(ctx.bestLexical + FUSION.lexicalSaturation, FUSION.wholeQueryShare * ctx.queryWeight);
  const words = lexical > 0 ? lexical / scale : 0;
  return (1 - FUSION.lexicalShare) * dense + FUSION.lexicalShare * clamp01(words);
}

/** The words of a text as the query side reads them (lower case, letters and digits). */
export const wordSet = (text: string) =>
  new Set(
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [],
  );

/**
 * FUSION.namedSpeaker when the query names the memory's speaker (its `Name:` prefix, every word of the name), else 1:
 * "What did Caroline paint?" means Caroline's own statements more than those that mention her. A memory without a
 * speaker prefix (an isolated fact) is never lifted.
 */
export function speakerFactor(queryWords: ReadonlySet<string>, memoryText: string): number {
  const speaker = speakerOf(memoryText);
  if (speaker === null) return 1;
  return [...wordSet(speaker)].every((w) => queryWords.has(w)) ? FUSION.namedSpeaker : 1;
}

/** Sentences: runs of text up to their end marks, Latin and full-width. */
const SENTENCE = /[^.!?。！？]+[.!?。！？]*/gu;
const QUESTION_END = /[?？]$/u;

/**
 * 1 − FUSION.askedShare × the share of the memory's sentences that are questions: a memory that asks ("How long have
 * you been married?") echoes a question's wording and meaning without holding its answer, so it yields to one that
 * tells. LoCoMo's development half: +0.018 R@5, +0.006 MRR@10 (test/eval/README.md, issue 30's second pass).
 */
export function askingFactor(memoryText: string): number {
  const sentences = (withoutSpeaker(memoryText).match(SENTENCE) ?? []).map((s) => s.trim()).filter((s) => /[\p{L}\p{N}]/u.test(s));
  if (sentences.length === 0) return 1;
  const asked = sentences.filter((s) => QUESTION_END.test(s)).length;
  return 1 - FUSION.askedShare * (asked / sentences.length);
}

/** A question that asks when: "When did…", "What date/time/year/month/day…", "How long ago…". */
const ASKS_WHEN = /^\s*(?:when\b|what\s+(?:date|time|year|month|day)\b|how\s+long\s+ago\b)/iu;
/** A word or number that says when (English; "May" is left out, it is more often the verb). */
const SAYS_WHEN = new RegExp(
  "\\b(?:yesterday|today|tomorrow|tonight|ago|last|next|weekend|weeks?|months?|years?|" +
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|" +
    "january|february|march|april|june|july|august|september|october|november|december|" +
    "\\d{4}|\\d{1,2}(?:st|nd|rd|th))\\b",
  "iu",
);

/**
 * FUSION.saysWhen when the query asks when and the memory says when (a date, a weekday, a month, "yesterday", "last
 * week"), else 1: "When did Melanie sign up for pottery?" is answered by "I just signed up for a pottery class
 * yesterday", not by "Pottery is so relaxing". LoCoMo's development half: +0.006 MRR@10 (issue 30, second pass).
 */
export function whenFactor(queryText: string, memoryText: string): number {
  return ASKS_WHEN.test(queryText) && SAYS_WHEN.test(memoryText) ? FUSION.saysWhen : 1;
}

/** A question that asks how long, many, much, often, old or far ("How long ago…" asks when: whenFactor). */
const ASKS_HOW_MUCH = /^\s*how\s+(?:long|many|much|often|old|far)\b(?!\s+ago)/iu;
/** A number, in digits or words, or a word of duration or frequency (English). */
const SAYS_HOW_MUCH = new RegExp(
  "\\b(?:\\d+(?:[.,]\\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|" +
    "dozen|couple|few|several|once|twice|daily|weekly|monthly|yearly|every|since|years?|months?|weeks?|days?|hours?|minutes?)\\b",
  "iu",
);

/**
 * FUSION.saysHowMuch when the query asks how long/many/much/often/old/far and the memory (without its speaker prefix)
 * says a number or a duration, else 1: "How long have Mel and her husband been married?" is answered by "5 years
 * already!", not by "How long have you been married?". LoCoMo's development half, chosen leaving one conversation out
 * (1.4 in four folds of five): R@5 +0.004, MRR@10 +0.004; the project set's dev rows unchanged (issue 30, third pass).
 */
export function howMuchFactor(queryText: string, memoryText: string): number {
  return ASKS_HOW_MUCH.test(queryText) && SAYS_HOW_MUCH.test(withoutSpeaker(memoryText)) ? FUSION.saysHowMuch : 1;
}

export interface LexicalEvidence {
  /** Σ IDF of the query words it holds, a word found only inside a longer word counting LEXICAL_EVIDENCE.fragment. */
  score: number;
  /** Σ IDF of the query words it holds whole (or inflected). */
  wordScore: number;
  /** Several query words held whole, or one rare word: enough for a memory below the relevance floor to join. */
  carriesWeight: boolean;
}

/** BM25's inverse document frequency of a word `n` of `total` memories hold (../store/shared-sql.ts). */
const idf = (n: number, total: number) => Math.log(1 + (total - n + 0.5) / (n + 0.5));

/**
 * Weighs each query word the index matched by how the memory's text holds it: whole or inflected counts in full, a
 * fragment inside a longer word (SQLite's trigrams find `use` in `user`, PostgreSQL's prefixes `use` in `user` too)
 * only LEXICAL_EVIDENCE.fragment of it. Computed here over the text, so both stores weigh a match alike.
 */
export function lexicalEvidence(match: LexicalMatch, text: string): LexicalEvidence {
  const words = wordsOf(foldText(text));
  const rareAtMost = Math.max(1, LEXICAL_EVIDENCE.rareShare * match.total);
  let score = 0;
  let wordScore = 0;
  let whole = 0;
  let rare = false;
  for (const [term, n] of Object.entries(match.terms)) {
    const weight = idf(n, match.total);
    if (wordMatch(term, words) === "word") {
      score += weight;
      wordScore += weight;
      whole += 1;
      if (n <= rareAtMost) rare = true;
    } else score += LEXICAL_EVIDENCE.fragment * weight;
  }
  return { score, wordScore, carriesWeight: whole >= LEXICAL_EVIDENCE.severalWords || rare };
}

/** A text of ASCII only: its lower case is its folded form (./search-terms.ts foldText). */
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * The lexical weight a memory earns for the query words the lexical index did not find in it but that it holds in
 * another inflection ("camped" asked, "camping" held: no trigram of the one is in the other): LEXICAL_EVIDENCE.inflected
 * × the word's inverse document frequency per such word (its count from any of the query's lexical matches, else 1:
 * a word the index found nowhere is rare). Words of fewer than four letters are left out. `terms` are the query's
 * search terms (./search-terms.ts), `counts` every matched word's count over the query's matches, `total` the
 * workspace's size; the scorer takes the words the index matched in a memory (LexicalMatch.terms) and its text. Built
 * once per query: a memory whose text does not contain a stem at all is passed over without reading its words.
 */
export function inflectedScorer(
  terms: readonly string[],
  counts: ReadonlyMap<string, number>,
  total: number,
): (found: Readonly<Record<string, number>> | undefined, text: string) => number {
  const asked = terms
    .filter((term) => term.length >= 4)
    .map((term) => ({
      term,
      stem: stemOf(foldText(term)),
      weight: LEXICAL_EVIDENCE.inflected * idf(Math.max(1, counts.get(term) ?? 0), total),
    }));
  return (found, text) => {
    if (asked.length === 0) return 0;
    const lower = ASCII_ONLY.test(text) ? text.toLowerCase() : null;
    let stems: Set<string> | null = null;
    let score = 0;
    for (const { term, stem, weight } of asked) {
      if ((found !== undefined && term in found) || (lower !== null && !lower.includes(stem))) continue;
      stems ??= new Set([...wordsOf(lower ?? foldText(text))].map(stemOf));
      if (stems.has(stem)) score += weight;
    }
    return score;
  };
}

/** inflectedScorer(terms, counts, total)(found, text): one memory's weight (tests and tools). */
export const inflectedEvidence = (
  terms: readonly string[],
  found: Readonly<Record<string, number>> | undefined,
  text: string,
  counts: ReadonlyMap<string, number>,
  total: number,
) => inflectedScorer(terms, counts, total)(found, text);
