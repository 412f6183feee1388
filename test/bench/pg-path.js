// Round trips and CPU of one store and one retrieve through HTTP on PostgreSQL, for a checkout's build.
// Starts a throwaway cluster (pg.js) and the checkout's `serve` on it with pg-path-hook.js loaded; stores SEED memories,
// then COUNTED stores (with an Idempotency-Key) and retrieves one at a time with a pause after each (so the read
// bookkeeping's flush is counted apart), then TIMED retrieves and stores back to back for the CPU per request
// (the main thread's, from the hook, and the whole process's from /proc).
// Usage: [SEED=300 COUNTED=20 TIMED=200 PROFILE=dir] node test/bench/pg-path.js CHECKOUT
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startPostgres } from "./pg.js";
import { clusterCpu, percentile, threadCpu, workloadFact as fact, workloadQuery as query } from "./lib.js";

const dir = resolve(process.argv[2] ?? ".");
const SEED = Number(process.env.SEED ?? 300);
const COUNTED = Number(process.env.COUNTED ?? 20);
const TIMED = Number(process.env.TIMED ?? 200);
const pg = await startPostgres();
const home = mkdtempSync(join(tmpdir(), "pgpath-"));
const outFile = join(home, "requests.jsonl");
writeFileSync(outFile, "");
const env = {
  PATH: process.env.PATH,
  HOME: home,
  BRAIN_MODEL_RUNTIME: process.env.BRAIN_MODEL_RUNTIME ?? "native",
  BRAIN_LOG: "error",
  BRAIN_RATE_LIMIT_RPS: "100000",
  BRAIN_RATE_LIMIT_BURST: "100000",
  PG_PATH_OUT: outFile,
  PG_PATH_FROM: dir,
  NODE_OPTIONS: `--import ${new URL("./pg-path-hook.js", import.meta.url).pathname}`,
};
const bin = join(dir, "bin/brain-mcp.js");
// PROFILE=dir: serve runs with --cpu-prof into dir
const nodeArgs = process.env.PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.PROFILE] : [];
const child = spawn(process.execPath, [...nodeArgs, bin, "serve", "--port", "0", "--database-url", pg.url], {
  env,
  stdio: ["ignore", "pipe", "pipe"],
});
let out = "";
child.stdout.on("data", (d) => (out += d));
child.stderr.on("data", (d) => (out += d));
const t0 = Date.now();
while (!/listening on/.test(out)) {
  if (child.exitCode !== null || Date.now() - t0 > 120000) throw new Error(out);
  await new Promise((r) => setTimeout(r, 100));
}
const url = /listening on (http:\/\/[0-9.:]+)/.exec(out)[1];
const { execFileSync } = await import("node:child_process");
const admin = (...a) =>
  JSON.parse(execFileSync(process.execPath, [bin, "admin", ...a, "--database-url", pg.url, "--json"], { env }).toString());
const ws = admin("workspace", "create", "--name", "pgpath");
const key = admin("key", "create", String(ws.workspace_id)).api_key;
const call = async (path, body, headers = {}) => {
  const r = await fetch(url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path} ${r.status} ${await r.text()}`);
  return r.json();
};
const store = (i, idem) =>
  call("/v1/memory/store", { text: fact(i), meta: { source: "bench" } }, idem ? { "idempotency-key": `k-${i}` } : {});
const answers = [];
const retrieve = async (i) => {
  const r = await call("/v1/memory/retrieve", { query: query(i), top_k: 5 });
  answers.push(r.memories.map((m) => [m.text, m.similarity]));
  return r;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
for (let i = 0; i < SEED; i++) await store(i);
for (let i = 0; i < 30; i++) await retrieve(i);
await sleep(200);
const mark = () => readFileSync(outFile, "utf8").trim().split("\n").length;
let from = mark();
for (let i = 0; i < COUNTED; i++) {
  await store(SEED + i, true);
  await sleep(120);
}
for (let i = 0; i < COUNTED; i++) {
  await retrieve(1000 + i);
  await sleep(120);
}
await store(SEED + COUNTED, false); // carries the last retrieve's flush as `before`
const rows = readFileSync(outFile, "utf8")
  .trim()
  .split("\n")
  .slice(from)
  .map((l) => JSON.parse(l));
const summary = (kind) => {
  const rs = rows.filter((r, i) => r.url.includes(kind) && i < rows.length);
  const n = rs.map((r) => r.sql.length);
  return {
    requests: rs.length,
    roundTripsMin: Math.min(...n),
    roundTripsMax: Math.max(...n),
    mean: n.reduce((a, b) => a + b, 0) / n.length,
  };
};
const after = (kind) => {
  // the statements sent between a request's end and the next request's start (bookkeeping flushes)
  const n = [];
  for (let i = 1; i < rows.length; i++) if (rows[i - 1].url.includes(kind)) n.push(rows[i].before.length);
  return n.reduce((a, b) => a + b, 0) / n.length;
};
const example = (kind) => rows.find((r) => r.url.includes(kind)).sql;
const storeRt = summary("store");
const retrieveRt = summary("retrieve");
// CPU per request: back to back, no pauses
from = mark();
const proc0 = [...threadCpu(child.pid).values()].reduce((a, b) => a + b, 0);
const db0 = clusterCpu(pg.pid);
let t = performance.now();
for (let i = 0; i < TIMED; i++) await retrieve(2000 + i);
const retrieveWall = performance.now() - t;
const proc1 = [...threadCpu(child.pid).values()].reduce((a, b) => a + b, 0);
const db1 = clusterCpu(pg.pid);
t = performance.now();
for (let i = 0; i < TIMED / 2; i++) await store(5000 + i, true);
const storeWall = performance.now() - t;
const proc2 = [...threadCpu(child.pid).values()].reduce((a, b) => a + b, 0);
const db2 = clusterCpu(pg.pid);
const timed = readFileSync(outFile, "utf8")
  .trim()
  .split("\n")
  .slice(from)
  .map((l) => JSON.parse(l));
const stat = (kind, f) => {
  const v = timed.filter((r) => r.url.includes(kind)).map(f);
  return `p50 ${percentile(v, 50).toFixed(2)} mean ${(v.reduce((a, b) => a + b, 0) / v.length).toFixed(2)}`;
};
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];
console.log(`${dir} (load ${load()})`);
console.log(
  `  store (new memory, Idempotency-Key): round trips on the path ${storeRt.roundTripsMin}-${storeRt.roundTripsMax} (mean ${storeRt.mean.toFixed(2)}), after it ${after("store").toFixed(2)}`,
);
console.log(`    ${example("store").join(" | ")}`);
console.log(
  `  retrieve: round trips on the path ${retrieveRt.roundTripsMin}-${retrieveRt.roundTripsMax} (mean ${retrieveRt.mean.toFixed(2)}), after it ${after("retrieve").toFixed(2)}`,
);
console.log(`    ${example("retrieve").join(" | ")}`);
console.log(
  `  retrieve x${TIMED}: in-server ms ${stat("retrieve", (r) => r.ms)}; main-thread CPU ms ${stat("retrieve", (r) => r.cpu)}; process CPU/req ${((proc1 - proc0) / TIMED).toFixed(2)} ms; PostgreSQL CPU/req ${((db1 - db0) / TIMED).toFixed(2)} ms; client ${(retrieveWall / TIMED).toFixed(2)} ms/req`,
);
console.log(
  `  store x${TIMED / 2}: in-server ms ${stat("store", (r) => r.ms)}; main-thread CPU ms ${stat("store", (r) => r.cpu)}; process CPU/req ${((proc2 - proc1) / (TIMED / 2)).toFixed(2)} ms; PostgreSQL CPU/req ${((db2 - db1) / (TIMED / 2)).toFixed(2)} ms; client ${(storeWall / (TIMED / 2)).toFixed(2)} ms/req`,
);
console.log(`  load ${load()}`);
const { createHash } = await import("node:crypto");
console.log(
  `  answers: ${answers.length} retrieves, digest of their texts and similarities in order ${createHash("sha256").update(JSON.stringify(answers)).digest("hex").slice(0, 16)}`,
);
child.kill("SIGINT");
await new Promise((r) => child.once("exit", r));
pg.stop?.();
rmSync(home, { recursive: true, force: true });
process.exit(0);
