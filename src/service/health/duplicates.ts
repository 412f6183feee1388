// Counts pairs of memories whose cosine reaches the dedup threshold although dedup should have merged them
// (stored under another model or threshold, or made similar to a third memory by a later merge).
import type { WorkspaceIndex } from "../retrieval/vector-index.js";

/**
 * Pairs are counted exactly among this many most recently written memories (highest rev: new memories, merges and
 * re-embeds, where duplicates arise); older memories were each compared with every earlier one by dedup when
 * stored. Bounds the work at 1,000²/2 = half a million dot products, whatever the workspace's size (about 0.1 s on
 * a loaded 2-core machine; 2,000 took 0.3-0.6 s: test/bench/README.md).
 */
export const DUPLICATE_SCAN_LIMIT = 1_000;

export function countDuplicatePairs(index: WorkspaceIndex, threshold: number): number {
  return index.pairsAbove(threshold, DUPLICATE_SCAN_LIMIT);
}

export interface DuplicatePair {
  a: number;
  b: number;
  cosine: number;
}

/** The pairs countDuplicatePairs counts, most similar first, at most `max` of them. */
export function listDuplicatePairs(index: WorkspaceIndex, threshold: number, max: number): DuplicatePair[] {
  const pairs: DuplicatePair[] = [];
  index.pairsAbove(threshold, DUPLICATE_SCAN_LIMIT, (a, b, cosine) => pairs.push({ a, b, cosine }));
  return pairs.sort((x, y) => y.cosine - x.cosine).slice(0, max);
}
