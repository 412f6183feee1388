// Counts pairs of memories whose cosine reaches the dedup threshold although dedup should have merged them
// (stored under another model or threshold, or made similar to a third memory by a later merge).
import type { FloatRows, WorkspaceIndex } from "../retrieval/vector-index.js";

/**
 * Pairs are counted exactly among this many most recently written memories (highest rev: new memories, merges and
 * re-embeds, where duplicates arise); older memories were each compared with every earlier one by dedup when
 * stored. Bounds the work at 1,000²/2 = half a million dot products, whatever the workspace's size (about 0.1 s on
 * a loaded 2-core machine; 2,000 took 0.3-0.6 s: test/bench/README.md).
 */
export const DUPLICATE_SCAN_LIMIT = 1_000;

export function countDuplicatePairs(index: WorkspaceIndex, threshold: number, floats: FloatRows): Promise<number> {
  return index.pairsAbove(threshold, DUPLICATE_SCAN_LIMIT, floats);
}

export interface DuplicatePair {
  a: number;
  b: number;
  cosine: number;
}

/** The pairs countDuplicatePairs counts, most similar first, at most `max` of them. */
export async function listDuplicatePairs(
  index: WorkspaceIndex,
  threshold: number,
  max: number,
  floats: FloatRows,
): Promise<DuplicatePair[]> {
  const pairs: DuplicatePair[] = [];
  await index.pairsAbove(threshold, DUPLICATE_SCAN_LIMIT, floats, (a, b, cosine) => pairs.push({ a, b, cosine }));
  return pairs.sort((x, y) => y.cosine - x.cosine).slice(0, max);
}
