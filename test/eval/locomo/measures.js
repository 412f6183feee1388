// Rankings and their measures: recall@k and MRR@10 over first-hit ranks, and reciprocal rank fusion.

/** 1-based rank of the first relevant item among the first `depth` of `ranked`, or 0 when absent. */
export function firstHit(ranked, relevant, depth = 10) {
  const want = relevant instanceof Set ? relevant : new Set(relevant);
  const limit = Math.min(depth, ranked.length);
  for (let i = 0; i < limit; i++) if (want.has(ranked[i])) return i + 1;
  return 0;
}

/** R@1, R@5, R@10 and MRR@10 of a list of first-hit ranks (0 = not in the first 10). */
export function summarize(ranks) {
  const n = ranks.length || 1;
  const within = (k) => ranks.filter((r) => r >= 1 && r <= k).length / n;
  return {
    n: ranks.length,
    r1: within(1),
    r5: within(5),
    r10: within(10),
    mrr: ranks.reduce((s, r) => s + (r && r <= 10 ? 1 / r : 0), 0) / n,
  };
}

/** Indices of `scores` best first, ties by index; only positive scores when `positiveOnly`. */
export function rankByScore(scores, depth = Infinity, positiveOnly = false) {
  const order = [];
  for (let i = 0; i < scores.length; i++) if (!positiveOnly || scores[i] > 0) order.push(i);
  order.sort((a, b) => scores[b] - scores[a] || a - b);
  return order.slice(0, depth);
}

/** Reciprocal rank fusion: Σ 1/(k + rank) over the lists, each cut at `depth`; best first, ties by first appearance. */
export function reciprocalRankFusion(lists, { k = 60, depth = 50, weights } = {}) {
  const fused = new Map();
  lists.forEach((list, li) => {
    const w = weights ? weights[li] : 1;
    list.slice(0, depth).forEach((item, i) => fused.set(item, (fused.get(item) ?? 0) + w / (k + i + 1)));
  });
  return [...fused.entries()].sort((a, b) => b[1] - a[1]).map(([item]) => item);
}
