#!/usr/bin/env node
// Would the topic classifiers learn more from the model's token states than from the sentence vector they get today?
// Each labelled category row (every labeller group of test/eval/sets/category-labels*.json, the second labeller's copy
// of holdout3 left out) is run through the shipped model once; its token states are pooled four ways: the mean over all
// tokens (the service's sentence vector: the baseline), the maximum, both side by side, and the mean without [CLS] and
// [SEP]. For each pooling, one-vs-rest logistic regressions (test/judge/logistic.ts's method) are fitted with one group
// left out and scored on it, every group in turn: topic micro-F1 of the model alone (no rules, topics at or above
// 0.5, at most two, else the most likely one), per group and pooled over the groups.
// Usage: npm run build && node test/eval/categories-pooling.js [--iters 300] [--l2 0.001] [--only mean,inner]
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { TOPICS } from "../../dist/contract/taxonomy.js";
import { describeModelRuntime } from "../../dist/service/models/embed/runtime.js";

const { values } = parseArgs({
  options: { iters: { type: "string", default: "300" }, l2: { type: "string", default: "0.001" }, only: { type: "string" } },
});
const choice = describeModelRuntime({});
if (choice.runtime !== "native") {
  console.log(`no native runtime here (${choice.reason}): nothing to measure`);
  process.exit(0);
}
const require = createRequire(import.meta.url);
const ort = require(choice.package.split(" ")[0]);
const { Tokenizer } = await import("@huggingface/tokenizers");
const modelDir = new URL("../../src/service/models/embed/data/minilm/", import.meta.url);
const read = (name) => JSON.parse(readFileSync(new URL(name, modelDir), "utf8"));
const tokenizer = new Tokenizer(read("tokenizer.json"), read("tokenizer_config.json"));
const session = await ort.InferenceSession.create(new URL("model.onnx", modelDir).pathname, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  graphOptimizationLevel: "all",
});

const sets = new URL("./sets/", import.meta.url);
const rows = readdirSync(sets)
  .filter((f) => /^category-labels.*\.json$/.test(f) && !f.includes("second") && !f.includes("holdout6")) // holdout6: the seventh round, measured once
  .flatMap((f) => JSON.parse(readFileSync(new URL(f, sets), "utf8")));
const D = 384;
const unit = (v) => {
  const n = Math.hypot(...v) || 1;
  return Float64Array.from(v, (x) => x / n);
};
for (const row of rows) {
  const ids = tokenizer.encode(row.text).ids.slice(0, 256);
  const w = ids.length;
  const out = await session.run({
    input_ids: new ort.Tensor("int64", BigInt64Array.from(ids.map(BigInt)), [1, w]),
    attention_mask: new ort.Tensor("int64", new BigInt64Array(w).fill(1n), [1, w]),
    token_type_ids: new ort.Tensor("int64", new BigInt64Array(w), [1, w]),
  });
  const h = out[session.outputNames[0]].data;
  const mean = new Float64Array(D);
  const max = new Float64Array(D).fill(-Infinity);
  const inner = new Float64Array(D);
  for (let t = 0; t < w; t++) {
    for (let d = 0; d < D; d++) {
      const x = h[t * D + d];
      mean[d] += x;
      if (x > max[d]) max[d] = x;
      if (t > 0 && t < w - 1) inner[d] += x;
    }
  }
  row.features = { mean: unit(mean), max: unit(max), inner: unit(inner) };
  row.features["mean+max"] = Float64Array.from([...row.features.mean, ...row.features.max]);
}

const M = TOPICS.length;
function fit(X, Y, iters, l2) {
  const d = X[0].length;
  const W = new Float64Array(M * d);
  const b = new Float64Array(M);
  for (let c = 0; c < M; c++) {
    const p = (Y.reduce((s, y) => s + y[c], 0) + 0.5) / (Y.length + 1);
    b[c] = Math.log(p / (1 - p));
  }
  const gW = new Float64Array(M * d);
  const gb = new Float64Array(M);
  for (let it = 0; it < iters; it++) {
    gW.fill(0);
    gb.fill(0);
    X.forEach((x, i) => {
      for (let c = 0; c < M; c++) {
        let z = b[c];
        for (let t = 0; t < d; t++) z += W[c * d + t] * x[t];
        const g = 1 / (1 + Math.exp(-z)) - Y[i][c];
        gb[c] += g;
        for (let t = 0; t < d; t++) gW[c * d + t] += g * x[t];
      }
    });
    for (let c = 0; c < M; c++) {
      b[c] -= (2 * gb[c]) / X.length;
      for (let t = 0; t < d; t++) W[c * d + t] -= 2 * (gW[c * d + t] / X.length + l2 * W[c * d + t]);
    }
  }
  return (x) =>
    Array.from({ length: M }, (_, c) => {
      let z = b[c];
      for (let t = 0; t < d; t++) z += W[c * d + t] * x[t];
      return 1 / (1 + Math.exp(-z));
    });
}
function topicsOf(p) {
  const order = p.map((_, c) => c).sort((a, c) => p[c] - p[a]);
  const kept = order.filter((c) => p[c] >= 0.5).slice(0, 2);
  return (kept.length ? kept : [order[0]]).map((c) => TOPICS[c]);
}
function microF1(pairs) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [given, gold] of pairs) {
    for (const t of given) gold.includes(t) ? tp++ : fp++;
    for (const t of gold) if (!given.includes(t)) fn++;
  }
  return (2 * tp) / (2 * tp + fp + fn);
}

const groups = [...new Set(rows.map((r) => r.split))];
const poolings = values.only ? values.only.split(",") : ["mean", "max", "mean+max", "inner"];
console.log(`${rows.length} rows in ${groups.length} labeller groups; ${values.iters} steps, L2 ${values.l2}; ${choice.package}`);
console.log(`${"pooling".padEnd(9)} ${groups.map((g) => g.padStart(9)).join(" ")}   pooled`);
for (const pooling of poolings) {
  const all = [];
  const cells = [];
  for (const group of groups) {
    const train = rows.filter((r) => r.split !== group);
    const predict = fit(
      train.map((r) => r.features[pooling]),
      train.map((r) => TOPICS.map((t) => (r.topics.includes(t) ? 1 : 0))),
      Number(values.iters),
      Number(values.l2),
    );
    const pairs = rows.filter((r) => r.split === group).map((r) => [topicsOf(predict(r.features[pooling])), r.topics]);
    all.push(...pairs);
    cells.push(microF1(pairs).toFixed(3).padStart(9));
  }
  console.log(
    `${pooling.padEnd(9)} ${cells.join(" ")}   ${microF1(all).toFixed(3)}${pooling === "mean" ? "  (the baseline: the service's vector)" : ""}`,
  );
}
