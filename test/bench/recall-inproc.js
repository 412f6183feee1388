// In-process: a checkout's retrieve (store reads, scoring, no HTTP) over a copy of a store made by recall-serve.js
// (KEEP=1), the 300 recall-serve queries embedded once up front by the native model; the embedder then answers from
// them after MODEL_MS (a timer: the main thread is free meanwhile, as with the model worker). Prints the main thread's
// CPU and wall from the vector's return to the answer, the CPU per retrieve, and the store calls' CPU (wrapped).
// OUTJSON gets every query's answer and its full ranked candidates (pinned clock), to compare two builds with cmp.
// Usage: [MODEL_MS=4] node test/bench/recall-inproc.js CHECKOUT STORE_DB [ROUNDS] [OUTJSON]
import { join } from "node:path";
import { copyFileSync, writeFileSync, mkdtempSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
const [dir, db0, rounds = "5", out] = process.argv.slice(2);
const tmp = mkdtempSync(join(tmpdir(), "inproc-"));
const db = join(tmp, "brain.db");
copyFileSync(db0, db);
for (const ext of ["-wal", "-shm"]) if (existsSync(db0 + ext)) copyFileSync(db0 + ext, db + ext);
const { workloadQuery } = await import(new URL("./lib.js", import.meta.url).href);
const { openSqliteStore } = await import(join(dir, "dist/service/store/sqlite/index.js"));
const { VectorIndexes } = await import(join(dir, "dist/service/retrieval/vector-index.js"));
const { retrieveMemories, rankCandidates } = await import(join(dir, "dist/service/retrieval/retrieve.js"));
const { batchReadBookkeeping } = await import(join(dir, "dist/service/bookkeeping.js"));
const { loadModels } = await import(join(dir, "dist/service/models/index.js"));
const env = { ...process.env, BRAIN_MODEL_RUNTIME: "native", BRAIN_EMBED_WORKER: "0" };
const models = await loadModels(env);
const real = models.embedder;
const Q = 300;
const queries = Array.from({ length: Q }, (_, i) => workloadQuery(i));
const vecs = new Map();
for (const q of queries) vecs.set(q, (await real.embed([q], "query"))[0]);
let mark = null,
  markT = 0,
  modelMs = Number(process.env.MODEL_MS ?? 0);
const embedder = {
  id: real.id,
  dimensions: real.dimensions,
  embed: async (texts) => {
    if (modelMs > 0) {
      const until = performance.now() + modelMs;
      await new Promise((r) => setTimeout(r, modelMs));
      while (performance.now() < until);
    }
    mark = process.cpuUsage();
    markT = performance.now();
    return texts.map((t) => vecs.get(t));
  },
};
const store = openSqliteStore(db);
const timers = {};
for (const m of [
  "searchText",
  "vectorsOf",
  "getMemories",
  "vectorsSince",
  "readVectorSnapshot",
  "findKeyByHash",
  "takeRateToken",
  "maxRev",
]) {
  if (typeof store[m] !== "function") continue;
  const f = store[m].bind(store);
  timers[m] = { n: 0, cpu: 0 };
  store[m] = (...a) => {
    const c = process.cpuUsage();
    const r = f(...a);
    const d = process.cpuUsage(c);
    timers[m].n++;
    timers[m].cpu += d.user + d.system;
    return r;
  };
}
const log = { debug() {}, info() {}, warn() {}, error() {} };
const reads = batchReadBookkeeping(store, log);
const indexes = new VectorIndexes(real.dimensions, real.id, 256 * 2 ** 20);
const ws = 1;
const deps = { store, reads, indexes, embedder, now: () => new Date(Date.parse("2026-11-28T04:00:00Z")) };
const answers = [];
for (let i = 0; i < 30; i++) await retrieveMemories(deps, ws, { query: queries[i], top_k: 5, min_score: 0.1 }, { countAsRecall: false });
for (const k in timers) timers[k] = { n: 0, cpu: 0 };
const c0 = process.cpuUsage();
const t0 = performance.now();
const per = [],
  post = [],
  postWall = [];
for (let r = 0; r < Number(rounds); r++)
  for (const q of queries) {
    const c = process.cpuUsage();
    const a = await retrieveMemories(deps, ws, { query: q, top_k: 5, min_score: 0.1 }, { countAsRecall: false });
    const d = process.cpuUsage(c);
    const after = process.cpuUsage(mark);
    post.push((after.user + after.system) / 1000);
    postWall.push(performance.now() - markT);
    per.push((d.user + d.system) / 1000);
    if (r === 0) answers.push(a.memories.map((m) => [m.id, m.score, m.similarity]));
  }
const cpu = process.cpuUsage(c0);
const n = Number(rounds) * Q;
per.sort((a, b) => a - b);
console.log(
  `${dir}: after the vector: CPU mean ${(post.reduce((a, b) => a + b, 0) / post.length).toFixed(3)} ms, wall p50 ${postWall.sort((a, b) => a - b)[postWall.length >> 1].toFixed(3)} ms; CPU per retrieve mean ${((cpu.user + cpu.system) / 1000 / n).toFixed(3)} ms, p50 ${per[n >> 1].toFixed(3)}; wall mean ${((performance.now() - t0) / n).toFixed(3)} ms; ` +
    Object.entries(timers)
      .filter(([, v]) => v.n)
      .map(([k, v]) => `${k} ${(v.cpu / 1000 / n).toFixed(3)} (${(v.n / n).toFixed(1)}/q)`)
      .join(", ") +
    `; load ${(await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`,
);
if (out) {
  const full = [];
  for (const q of queries) {
    const r = await rankCandidates(deps, ws, q, Date.parse("2026-11-28T04:00:00Z"));
    full.push(r && { ...r, candidates: r.candidates.map((c) => [c.record, c.cosine, c.within, c.expired]) });
  }
  writeFileSync(out, JSON.stringify({ answers, full }));
}
await reads.close?.();
await store.close();
await models.close?.();
rmSync(tmp, { recursive: true, force: true });
process.exit(0);
