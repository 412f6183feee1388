// One-vs-rest logistic regressions over sentence vectors, fitted by full-batch gradient descent with an L2 penalty: the
// judge's domain and topic classifiers (test/judge/train-classifiers.ts), and the categories test's own small fit.
export interface Logistic {
  W: number[][];
  b: number[];
}

/** `weights`: each row's weight in the loss (default 1; their mean should be about 1). */
export function fitLogistic(Xs: Float32Array[], Ys: number[][], l2: number, iters = 300, weights?: number[]): Logistic {
  const d = Xs[0]!.length;
  const m = Ys[0]!.length;
  const W = Array.from({ length: m }, () => new Array<number>(d).fill(0));
  const b = Ys[0]!.map((_, c) => {
    const p = (Ys.reduce((s, y) => s + y[c]!, 0) + 0.5) / (Ys.length + 1);
    return Math.log(p / (1 - p));
  });
  const lr = 2;
  for (let it = 0; it < iters; it++) {
    const gW = Array.from({ length: m }, () => new Array<number>(d).fill(0));
    const gb = new Array<number>(m).fill(0);
    Xs.forEach((x, i) => {
      for (let c = 0; c < m; c++) {
        const w = W[c]!;
        let z = b[c]!;
        for (let t = 0; t < d; t++) z += w[t]! * x[t]!;
        const g = (1 / (1 + Math.exp(-z)) - Ys[i]![c]!) * (weights?.[i] ?? 1);
        gb[c]! += g;
        const gw = gW[c]!;
        for (let t = 0; t < d; t++) gw[t]! += g * x[t]!;
      }
    });
    for (let c = 0; c < m; c++) {
      b[c]! -= (lr * gb[c]!) / Xs.length;
      for (let t = 0; t < d; t++) W[c]![t]! -= lr * (gW[c]![t]! / Xs.length + l2 * W[c]![t]!);
    }
  }
  return { W, b };
}

export const predictLogistic = (f: Logistic, x: Float32Array) =>
  f.W.map((w, c) => 1 / (1 + Math.exp(-w.reduce((s, wi, t) => s + wi * x[t]!, f.b[c]!))));
