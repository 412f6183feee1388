// The one relevance term, fed by two channels (DESIGN.md "Retrieval and decay"): the dense cosine, normalized from
// the relevance floor to the query's best cosine, and the store's lexical score, relative to the query's best lexical
// match but discounted when even that match is weak (so a question worded apart from every memory, where only a name
// matches, stays ranked by meaning). A calibrated convex combination: measured against reciprocal rank fusion on
// LoCoMo's development half and the project's own set (docs/decisions.md, issue 18).
import { speakerOf } from "../pipeline/same-fact.js";
import { FUSION } from "./weights.js";

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
 * lexical' = lexical / max(best lexical + s, 0.9 × the whole query's weight).
 */
export function fusedRelevance(cosine: number, lexical: number, ctx: FusionContext): number {
  const span = ctx.bestCosine - ctx.floor;
  const dense = span > 1e-9 ? clamp01((cosine - ctx.floor) / span) : 1;
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
