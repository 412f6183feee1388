#!/usr/bin/env node
// Resident set of one onnxruntime-web session of the sentence model under given session options (issue 27), and its
// speed: a 24-token query and a batch of 8 x 64 tokens, one thread.
// Usage: node test/bench/wasm-session.js '{"graphOptimizationLevel":"all"}' [model.onnx]
import { readFileSync } from "node:fs";
const opts = JSON.parse(process.argv[2] ?? "{}");
const modelFile = process.argv[3] ?? new URL("../../src/service/models/embed/data/minilm/model.onnx", import.meta.url).pathname;
const rss = () => (process.memoryUsage().rss / 2 ** 20).toFixed(0);
const r0 = rss();
const ort = await import("onnxruntime-web");
ort.env.wasm.numThreads = opts.numThreads ?? 1;
const r1 = rss();
const bytes = new Uint8Array(readFileSync(modelFile));
const { numThreads, ...so } = opts;
const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, ...so });
const r2 = rss();
const W = 64,
  B = 8;
const ids = new BigInt64Array(B * W).fill(1012n);
const mask = new BigInt64Array(B * W).fill(1n);
const feeds = { input_ids: new ort.Tensor("int64", ids, [B, W]), attention_mask: new ort.Tensor("int64", mask, [B, W]) };
if (session.inputNames.includes("token_type_ids")) feeds.token_type_ids = new ort.Tensor("int64", new BigInt64Array(B * W), [B, W]);
let t = performance.now();
await session.run(feeds);
const firstMs = performance.now() - t;
const r3 = rss();
const q = {
  input_ids: new ort.Tensor("int64", ids.slice(0, 24), [1, 24]),
  attention_mask: new ort.Tensor("int64", mask.slice(0, 24), [1, 24]),
};
if (feeds.token_type_ids) q.token_type_ids = new ort.Tensor("int64", new BigInt64Array(24), [1, 24]);
const times = [];
for (let i = 0; i < 20; i++) {
  t = performance.now();
  await session.run(q);
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const bt = [];
for (let i = 0; i < 5; i++) {
  t = performance.now();
  await session.run(feeds);
  bt.push(performance.now() - t);
}
bt.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    opts,
    start: +r0,
    imported: +r1,
    session: +r2,
    afterBatch: +r3,
    firstBatchMs: Math.round(firstMs),
    final: +rss(),
    q24p50: +times[10].toFixed(1),
    b8x64p50: +bt[2].toFixed(1),
    load: (await import("node:os")).loadavg()[0].toFixed(1),
  }),
);
process.exit(0);
