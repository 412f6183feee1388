// Build-time trainer for the judge's small classifiers over the sentence encoder (all-MiniLM-L6-v2): a ridge regression
// for importance and one-vs-rest ridge scores for each domain and topic, trained on
// src/service/models/judge/data/training.json (never on test/eval/sets). Writes data/classifier-weights.ts.
// Run: npx esbuild test/judge/train-classifiers.ts --bundle --platform=node --format=esm --packages=external \
//        --outfile=test/judge/.train.mjs && BRAIN_MODEL_DIR=src/service/models/embed/data/minilm node test/judge/.train.mjs \
//        && rm test/judge/.train.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DOMAINS, TOPICS } from "../../src/contract/taxonomy.js";
import { createSemanticEmbedder } from "../../src/service/models/embed/index.js";
import { CLASSIFIER_SPACE } from "../../src/service/models/judge/classifier.js";
import { addModelScores, chooseCategories, scoreCategories } from "../../src/service/models/judge/categories.js";
import { rateImportanceByRules } from "../../src/service/models/judge/importance.js";

interface Example {
  text: string;
  importance: number;
  domain: string;
  topics: string[];
}
const dataUrl = new URL("../../src/service/models/judge/data/", import.meta.url);
const examples = JSON.parse(readFileSync(fileURLToPath(new URL("training.json", dataUrl)), "utf8")) as Example[];

const embedder = createSemanticEmbedder();
await embedder.load();
const X = await embedder.embed(
  examples.map((e) => e.text),
  "document",
);
const n = X.length,
  d = X[0]!.length;
const labels = ["importance", ...DOMAINS.map((x) => `domain:${x}`), ...TOPICS.map((x) => `topic:${x}`)];
// Importance is learned as a correction to the rules (label − rules), so where the model knows little the rules stand.
const rulesScores = examples.map((e) => rateImportanceByRules(e.text));
const Y = examples.map((e, i) => [
  e.importance - rulesScores[i]!,
  ...DOMAINS.map((x) => (e.domain === x ? 1 : 0)),
  ...TOPICS.map((x) => (e.topics.includes(x) ? 1 : 0)),
]);
const means = labels.map((_, j) => Y.reduce((s, y) => s + y[j]!, 0) / n);

const K = X.map((a) => X.map((b) => a.reduce((s, v, i) => s + v * b[i]!, 0)));

/** Solves (K + λI) A = B by Gauss-Jordan (n is small). */
function solve(lambda: number, B: number[][]): number[][] {
  const M = K.map((row, i) => [...row.map((v, j) => v + (i === j ? lambda : 0)), ...B[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    const pivot = M[c]![c]!;
    for (let k = c; k < M[c]!.length; k++) M[c]![k]! /= pivot;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r]![c]!;
      if (f) for (let k = c; k < M[r]!.length; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  return M.map((row) => row.slice(n));
}

const centered = Y.map((y) => y.map((v, j) => v - means[j]!));
/** Leave-one-out predictions in closed form: ŷ_-i = (ŷ_i - H_ii y_i) / (1 - H_ii). */
function looPredictions(lambda: number): number[][] {
  const Kinv = solve(
    lambda,
    K.map((_, i) => K.map((__, j) => (i === j ? 1 : 0))),
  );
  const H = K.map((row) => K.map((_, j) => row.reduce((s, v, k) => s + v * Kinv[k]![j]!, 0)));
  const A = solve(lambda, centered);
  return centered.map((_, i) =>
    labels.map((__, j) => {
      const fit = K[i]!.reduce((s, v, k) => s + v * A[k]![j]!, 0);
      return (fit - H[i]![i]! * centered[i]![j]!) / (1 - H[i]![i]!) + means[j]!;
    }),
  );
}

const rules = examples.map((e) => rateImportanceByRules(e.text));
let best = { lambda: 0, alpha: 0, mae: Infinity };
let bestLoo: number[][] = [];
for (const lambda of [0.003, 0.01, 0.03, 0.1, 0.3, 1]) {
  const loo = looPredictions(lambda);
  for (let alpha = 0; alpha <= 1.0001; alpha += 0.1) {
    const mae =
      examples.reduce((s, e, i) => s + Math.abs(Math.min(10, Math.max(1, Math.round(rules[i]! + alpha * loo[i]![0]!))) - e.importance), 0) /
      n;
    if (mae < best.mae - 1e-9) {
      best = { lambda, alpha: Math.round(alpha * 10) / 10, mae };
      bestLoo = loo;
    }
  }
}
const rulesMae = examples.reduce((s, e, i) => s + Math.abs(rules[i]! - e.importance), 0) / n;
console.log(
  `importance LOO MAE: rules ${rulesMae.toFixed(2)}, blend ${best.mae.toFixed(2)} (lambda ${best.lambda}, correction weight ${best.alpha})`,
);

// Categories: pick the weight of the classifier's scores beside the lexicon's by LOO topic F1 on the training set.
function categoryF1(beta: number): { f1: number; domainAcc: number } {
  let tp = 0,
    fp = 0,
    fn = 0,
    dom = 0;
  examples.forEach((e, i) => {
    const model = {
      domains: new Map(DOMAINS.map((x, k) => [x, bestLoo[i]![1 + k]!] as const)),
      topics: new Map(TOPICS.map((x, k) => [x, bestLoo[i]![1 + DOMAINS.length + k]!] as const)),
    };
    const s = addModelScores(scoreCategories(e.text), model, beta);
    const [domain, ...topics] = chooseCategories(s, DOMAINS, TOPICS);
    if (domain === e.domain) dom++;
    for (const t of topics) e.topics.includes(t) ? tp++ : fp++;
    for (const t of e.topics) if (!topics.includes(t)) fn++;
  });
  return { f1: (2 * tp) / (2 * tp + fp + fn), domainAcc: dom / n };
}
let bestBeta = { beta: 0, f1: -1, domainAcc: 0 };
for (const beta of [0, 1, 2, 3, 4, 6, 8]) {
  const r = categoryF1(beta);
  console.log(`categories LOO: beta ${beta} topic F1 ${r.f1.toFixed(3)} domain accuracy ${r.domainAcc.toFixed(3)}`);
  if (r.f1 + r.domainAcc > bestBeta.f1 + bestBeta.domainAcc + 1e-9) bestBeta = { beta, ...r };
}

const A = solve(best.lambda, centered);
const weights = labels.map((_, j) =>
  Array.from({ length: d }, (_, t) => Number(X.reduce((s, x, i) => s + x[t]! * A[i]![j]!, 0).toPrecision(4))),
);
const json = JSON.stringify({
  space: CLASSIFIER_SPACE,
  trained_on: `data/training.json (${n} examples)`,
  lambda: best.lambda,
  importance_correction_weight: best.alpha,
  category_model_weight: bestBeta.beta,
  labels,
  bias: means.map((m) => Number(m.toPrecision(6))),
  weights,
});
writeFileSync(
  fileURLToPath(new URL("classifier-weights.ts", dataUrl)),
  `// Generated by test/judge/train-classifiers.ts from data/training.json; do not edit by hand.\n` +
    `import type { ClassifierWeights } from "../classifier.js";\n\n` +
    `export const CLASSIFIER_WEIGHTS: ClassifierWeights = ${json};\n`,
);
console.log(`wrote classifier-weights.ts: ${labels.length} outputs x ${d} dims; category weight ${bestBeta.beta}`);
