// The evaluation's measures, as pure functions over what the service answered.

/** 1-based rank of the first relevant id in `ranked`, or 0 when absent. */
export function firstRank(ranked, relevant) {
  const index = ranked.findIndex((id) => relevant.includes(id));
  return index === -1 ? 0 : index + 1;
}

/** recall@1, recall@3 and MRR over ranks (0 = not found). */
export function rankMeasures(ranks) {
  const n = ranks.length || 1;
  return {
    n: ranks.length,
    r1: ranks.filter((r) => r === 1).length / n,
    r3: ranks.filter((r) => r >= 1 && r <= 3).length / n,
    mrr: ranks.reduce((sum, r) => sum + (r ? 1 / r : 0), 0) / n,
  };
}

/** Micro-averaged F1 of predicted label lists against expected ones. */
export function microF1(pairs) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const { expected, predicted } of pairs) {
    const want = new Set(expected);
    const got = new Set(predicted);
    for (const label of got) want.has(label) ? tp++ : fp++;
    for (const label of want) if (!got.has(label)) fn++;
  }
  const precision = tp / (tp + fp || 1);
  const recall = tp / (tp + fn || 1);
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

export const ISO_SECOND_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
