// One-vs-rest logistic regressions over sentence vectors, fitted by full-batch gradient descent with an L2 penalty: the
// judge's domain and topic classifiers (test/judge/train-classifiers.ts), and the categories test's own small fit.
export interface Logistic {
  W: number[][];
  b: number[];
}

/** How the fit steps: plain gradient descent (step 2), or Adam with its own step size (`lr`). */
export interface FitMethod {
  method: "gd" | "adam";
  lr?: number;
}

/** `weights`: each row's weight in the loss (default 1; their mean should be about 1). */
export function fitLogistic(
  Xs: Float32Array[],
  Ys: number[][],
  l2: number,
  iters = 300,
  weights?: number[],
  how: FitMethod = { method: "gd" },
): Logistic {
  const d = Xs[0]!.length;
  const m = Ys[0]!.length;
  const W = Array.from({ length: m }, () => new Array<number>(d).fill(0));
  const b = Ys[0]!.map((_, c) => {
    const p = (Ys.reduce((s, y) => s + y[c]!, 0) + 0.5) / (Ys.length + 1);
    return Math.log(p / (1 - p));
  });
  const adam = how.method === "adam";
  const lr = how.lr ?? (adam ? 0.05 : 2);
  // Adam's moment estimates (β1 0.9, β2 0.999), one per weight and bias
  const mW = adam ? Array.from({ length: m }, () => new Float64Array(d)) : [];
  const vW = adam ? Array.from({ length: m }, () => new Float64Array(d)) : [];
  const mb = new Float64Array(m);
  const vb = new Float64Array(m);
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
    if (adam) {
      const c1 = 1 - 0.9 ** (it + 1);
      const c2 = 1 - 0.999 ** (it + 1);
      const step = (g: number, mo: Float64Array, ve: Float64Array, k: number) => {
        mo[k] = 0.9 * mo[k]! + 0.1 * g;
        ve[k] = 0.999 * ve[k]! + 0.001 * g * g;
        return (lr * (mo[k]! / c1)) / (Math.sqrt(ve[k]! / c2) + 1e-8);
      };
      for (let c = 0; c < m; c++) {
        b[c]! -= step(gb[c]! / Xs.length, mb, vb, c);
        for (let t = 0; t < d; t++) W[c]![t]! -= step(gW[c]![t]! / Xs.length + l2 * W[c]![t]!, mW[c]!, vW[c]!, t);
      }
      continue;
    }
    for (let c = 0; c < m; c++) {
      b[c]! -= (lr * gb[c]!) / Xs.length;
      for (let t = 0; t < d; t++) W[c]![t]! -= lr * (gW[c]![t]! / Xs.length + l2 * W[c]![t]!);
    }
  }
  return { W, b };
}

export const predictLogistic = (f: Logistic, x: Float32Array) =>
  f.W.map((w, c) => 1 / (1 + Math.exp(-w.reduce((s, wi, t) => s + wi * x[t]!, f.b[c]!))));
