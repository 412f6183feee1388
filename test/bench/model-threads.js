#!/usr/bin/env node
// One model run on one thread (the service's setting) against the same run split across two threads (ONNX Runtime's
// intra-op threads, with and without its helper threads spinning for work between parallel sections): wall time and
// CPU per run at several token counts, and whether the two settings give the same vectors bit for bit.
// The model file and tokenizer are the shipped ones; the runtime is the native one this checkout installed.
// Usage: npm run build && node test/bench/model-threads.js [--runs 30]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { loadavg } from "node:os";
import { corpus, shuffled } from "./corpus.js";
import { machine } from "./lib.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "30" } } });
const runs = Number(values.runs);
const require = createRequire(import.meta.url);
const { describeModelRuntime } = await import("../../dist/service/models/embed/runtime.js");
const choice = describeModelRuntime({});
if (choice.runtime !== "native") {
  console.log(`no native runtime here (${choice.reason}): nothing to measure`);
  process.exit(0);
}
const ort = require(choice.package.split(" ")[0]);
const { Tokenizer } = await import("@huggingface/tokenizers");
const dir = new URL("../../src/service/models/embed/data/minilm/", import.meta.url);
const read = (name) => JSON.parse(readFileSync(new URL(name, dir), "utf8"));
const tokenizer = new Tokenizer(read("tokenizer.json"), read("tokenizer_config.json"));
const modelFile = new URL("model.onnx", dir).pathname;

const base = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: "all" };
const settings = {
  "1 thread (shipped)": base,
  "2 threads, spinning": { ...base, intraOpNumThreads: 2 },
  "2 threads, no spinning": { ...base, intraOpNumThreads: 2, extra: { session: { intra_op: { allow_spinning: "0" } } } },
};
const sessions = {};
for (const [name, options] of Object.entries(settings)) sessions[name] = await ort.InferenceSession.create(modelFile, options);

function feeds(ids) {
  const w = ids.length;
  return {
    input_ids: new ort.Tensor("int64", BigInt64Array.from(ids.map(BigInt)), [1, w]),
    attention_mask: new ort.Tensor("int64", new BigInt64Array(w).fill(1n), [1, w]),
    token_type_ids: new ort.Tensor("int64", new BigInt64Array(w), [1, w]),
  };
}
const hidden = async (session, ids) => (await session.run(feeds(ids)))[session.outputNames[0]].data;

// Token counts from a query's to a long memory's, cut from real text (Debian's fortunes, ./corpus.js).
const { passages } = corpus();
const long = shuffled(passages, 5).filter((t) => tokenizer.encode(t).ids.length > 200);
const source = tokenizer.encode(long[0]).ids;
console.log(`machine: ${machine()}; load ${loadavg()[0].toFixed(1)}; ${choice.package}; ${runs} runs each`);
for (const n of [12, 24, 48, 88, 190]) {
  const ids = [...source.slice(0, n - 1), source.at(-1)];
  const cells = [];
  for (const [name, session] of Object.entries(sessions)) {
    for (let k = 0; k < 3; k++) await hidden(session, ids);
    const wall = [];
    const cpu0 = process.cpuUsage();
    for (let k = 0; k < runs; k++) {
      const t = performance.now();
      await hidden(session, ids);
      wall.push(performance.now() - t);
    }
    const cpu = process.cpuUsage(cpu0);
    wall.sort((a, b) => a - b);
    cells.push(`${name} p50 ${wall[Math.floor(runs / 2)].toFixed(2)} ms, CPU ${((cpu.user + cpu.system) / 1000 / runs).toFixed(2)} ms`);
  }
  console.log(`${String(n).padStart(3)} tokens: ${cells.join(" | ")}`);
}

// The same vectors? Token states of 200 texts of every length, compared value by value.
let identical = 0;
let maxDiff = 0;
const texts = shuffled(passages, 3).slice(0, 200);
const one = sessions["1 thread (shipped)"];
const two = sessions["2 threads, no spinning"];
for (const text of texts) {
  const ids = tokenizer.encode(text).ids.slice(0, 256);
  const [a, b] = [await hidden(one, ids), await hidden(two, ids)];
  let same = true;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) same = false;
    maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
  }
  if (same) identical++;
}
console.log(
  `token states identical bit for bit between 1 and 2 threads: ${identical} of ${texts.length} texts (largest difference ${maxDiff})`,
);
