// 0.3.0's default vector was a hybrid, [√(1−s)·meaning ; √s·wording], and its id starts with the sentence model's
// (`minilm-l6/1+lex512@0.2`). Wording now lives in the store's lexical index, so the default is the sentence model
// alone, and the meaning block of an old vector, scaled back to unit length, is exactly the model's vector for that
// text: old memories stay comparable with no model run, and `serve` rewrites them in place in the background.

/** Ids of vectors whose first block is `embedderId`'s own vector. */
export const derivedPrefix = (embedderId: string) => `${embedderId}+lex`;

/** The vector as `embedderId`'s (its own, or derived from a hybrid of the same model), or null for another model's. */
export function comparableVector(
  record: { embedder_id: string; vector: Float32Array },
  embedderId: string,
  dimensions: number,
): Float32Array | null {
  if (record.embedder_id === embedderId) return record.vector.length === dimensions ? record.vector : null;
  if (!record.embedder_id.startsWith(derivedPrefix(embedderId)) || record.vector.length <= dimensions) return null;
  const meaning = record.vector.slice(0, dimensions);
  let norm = 0;
  for (let d = 0; d < dimensions; d++) norm += meaning[d]! * meaning[d]!;
  if (norm === 0) return null;
  const scale = 1 / Math.sqrt(norm);
  for (let d = 0; d < dimensions; d++) meaning[d]! *= scale;
  return meaning;
}
