// The hybrid score's constants (DESIGN.md "Retrieval and decay"), in one place; the README documents them.
//
//   score = 0.60·similarity' + 0.15·recency + 0.15·importance' + 0.10·frequency      (× 0.2 when expired)
//   similarity' = (cosine − floor) / (best cosine among the candidates − floor)        (1 for the best match)
//   recency     = 2^(−days since last access, or creation, / 30)
//   importance' = (importance − 1) / 9
//   frequency   = min(1, log2(1 + access_count) / 6)
//
// Only memories whose cosine reaches the relevance floor are candidates: a query unrelated to every memory
// returns nothing, and recency, importance and frequency (at most 0.40 together) only reorder memories that are
// relevant. Normalizing from the floor (not from the weakest candidate) keeps a memory's similarity' independent of
// which weaker memories happen to clear the floor.

export const WEIGHTS = {
  similarity: 0.6,
  recency: 0.15,
  importance: 0.15,
  frequency: 0.1,
} as const;

/** Recency halves every 30 days without access. */
export const RECENCY_HALF_LIFE_DAYS = 30;
/** frequency reaches 1 at 63 accesses (log2(64) = 6). */
export const FREQUENCY_SATURATION_LOG2 = 6;
/** A time-bound memory past its valid_until keeps a fifth of its score. */
export const EXPIRED_FACTOR = 0.2;

/** Cosine below which a memory is unrelated to a query (for embedders not listed below). */
export const RELEVANCE_FLOOR = 0.2;

/** Per-embedder floors, keyed by the start of `Embedder.id`; calibrated on the evaluation sets. */
export const RELEVANCE_FLOOR_BY_EMBEDDER: ReadonlyArray<readonly [idPrefix: string, floor: number]> = [
  ["lexical-hash/", 0.2],
];

/** At most this many of the most similar memories are scored (bounds the work per retrieve). */
export const CANDIDATE_LIMIT = 200;

export function relevanceFloorFor(embedderId: string): number {
  for (const [prefix, floor] of RELEVANCE_FLOOR_BY_EMBEDDER) if (embedderId.startsWith(prefix)) return floor;
  return RELEVANCE_FLOOR;
}
