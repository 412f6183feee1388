#!/usr/bin/env node
// Where a retrieve's and a store's p99 goes at 10,000 memories, for several builds alternated over one store (branch
// `pgtail`): the store is seeded once (service.js's texts and cached vectors), then each round starts each build's
// `serve` over it in turn with tail-hook.js loaded, warms it, and times RETRIEVES retrieves then STORES stores one at a
// time through HTTP. Per build and round: client p50/p90/p99/max, the serve process's CPU per request and the
// cluster's (PostgreSQL) from /proc, the 1-minute load; and, for the slowest 3 % of each kind, what the hook saw inside
// them: the model worker's round trips, GC pauses, main-thread CPU.
// Usage: node test/bench/tail.js [--store postgres|sqlite] [--builds /work/base2,.] [--rounds 2] [--size 10000]
//          [--retrieves 300] [--stores 150] [--env K=V,K=V] (serve's environment) [--node-options='--cpu-prof ...'] (node's flags for serve)
//          [--hold] (keep the seeded store after the rounds, until Ctrl-C)
import { readdirSync, readFileSync, existsSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { corpus, shuffled } from "./corpus.js";
import { startPostgres } from "./pg.js";
import { startService } from "./service-proc.js";
import { percentile } from "./lib.js";
import { openStore } from "../../dist/service/store/open-store.js";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "postgres" },
    builds: { type: "string", default: "/work/base2,." },
    rounds: { type: "string", default: "2" },
    size: { type: "string", default: "10000" },
    retrieves: { type: "string", default: "300" },
    stores: { type: "string", default: "150" },
    env: { type: "string", default: "" },
    "node-options": { type: "string", default: "" },
    hold: { type: "boolean", default: false },
  },
});
const builds = values.builds.split(",").map((b) => resolve(b));
const size = Number(values.size);
const nRetrieves = Number(values.retrieves);
const nStores = Number(values.stores);
const rounds = Number(values.rounds);
const extraEnv = Object.fromEntries(
  values.env
    .split(",")
    .filter(Boolean)
    .map((kv) => kv.split("=")),
);
const hook = new URL("./tail-hook.js", import.meta.url).pathname;
const load = () => loadavg()[0].toFixed(2);

const { passages, pieces } = corpus();
const pool = [...shuffled(passages, 1), ...shuffled(pieces, 2)];
const cacheFile = join(new URL("./data/", import.meta.url).pathname, `seed-minilm-l6_1-${pool.length}.f32`);
if (!existsSync(cacheFile)) throw new Error(`no cached vectors (${cacheFile}): run service.js once`);
const cached = readFileSync(cacheFile);
const WIDTH = 384 * 4;

const pg = values.store === "postgres" ? await startPostgres() : null;
const location = pg ? { databaseUrl: pg.url } : { dbPath: join(mkdtempSync(join(tmpdir(), "brain-tail-")), "brain.db") };
const env = { BRAIN_RATE_LIMIT_RPS: "100000", BRAIN_RATE_LIMIT_BURST: "100000", ...extraEnv };
let service = await startService({ ...location, env });
const credentials = { apiKey: service.apiKey, workspaceId: service.workspaceId };
await service.stop();

const store = await openStore(location);
const now = Date.now();
for (let i = 0; i < size; i += 500) {
  await store.writeInWorkspace(credentials.workspaceId, async (tx) => {
    for (let n = i; n < Math.min(size, i + 500); n++) {
      await tx.insertMemory({
        workspace_id: credentials.workspaceId,
        text: pool[n],
        meta: { seeded: true },
        vector: new Float32Array(cached.buffer.slice(cached.byteOffset + n * WIDTH, cached.byteOffset + (n + 1) * WIDTH)),
        embedder_id: "minilm-l6/1",
        importance: 1 + ((n * 7) % 10),
        temporal_type: "persistent",
        valid_until: null,
        categories: ["personal", "learning"],
        created_at: now - 60 * 86_400_000 + Math.floor((n / size) * 59 * 86_400_000),
      });
    }
  });
}
await store.close();
console.log(
  `seeded ${size} on ${pg ? "PostgreSQL" : "SQLite"}; builds ${builds.join(" | ")}; load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);

const queryFor = (text, i) => {
  const words = text.split(/\s+/);
  const len = 4 + (i % 7);
  const start = words.length > len ? (i * 31) % (words.length - len) : 0;
  return words
    .slice(start, start + len)
    .join(" ")
    .slice(0, 2000);
};
let storeCursor = pool.length - 1;

/** CPU (ms) of a process and its children (PostgreSQL's postmaster and backends), from /proc. */
function treeCpu(rootPid) {
  let total = 0;
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(p) === rootPid || Number(f[1]) === rootPid) total += (Number(f[11]) + Number(f[12])) * 10;
    } catch {}
  }
  return total;
}
const pgCpu = () => (pg ? treeCpu(pg.pid ?? pg.postmasterPid ?? 0) : 0);

async function http(method, path, body) {
  const started = performance.now();
  const res = await fetch(service.url + path, {
    method,
    headers: { authorization: `Bearer ${credentials.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return [performance.now() - started, json];
}

const pct = (v, p) => percentile(v, p).toFixed(1);
const summary = (v) => `p50 ${pct(v, 50)} p90 ${pct(v, 90)} p99 ${pct(v, 99)} max ${Math.max(...v).toFixed(1)}`;

async function phase(name, count, one, outFile) {
  process.kill(service.pid, "SIGUSR2"); // clears what the hook gathered before this phase
  await new Promise((r) => setTimeout(r, 200));
  const times = [];
  const cpu0 = service.cpuMs();
  const pg0 = pgCpu();
  const load0 = load();
  for (let i = 0; i < count; i++) times.push((await one(i))[0]);
  await new Promise((r) => setTimeout(r, 120)); // the read bookkeeping's flush after the last one
  const cpu = (service.cpuMs() - cpu0) / count;
  const pgMs = (pgCpu() - pg0) / count;
  process.kill(service.pid, "SIGUSR2");
  await new Promise((r) => setTimeout(r, 300));
  const inside = JSON.parse(readFileSync(outFile, "utf8"));
  const rows = inside.rows.filter((r) => r.url.includes(name)).map((r) => ({ ...r, wall: r.end - r.start }));
  const slow = [...rows].sort((a, b) => b.wall - a.wall).slice(0, Math.max(1, Math.ceil(rows.length * 0.03)));
  const mean = (xs, f) => (xs.reduce((a, x) => a + f(x), 0) / xs.length).toFixed(1);
  console.log(
    `  ${name.padEnd(8)} load ${load0}->${load()}  client ${summary(times)} ms; CPU/request serve ${cpu.toFixed(2)} ms` +
      (pg ? ` + PostgreSQL ${pgMs.toFixed(2)} ms` : ""),
  );
  console.log(
    `           in-server ${summary(rows.map((r) => r.wall))}; model round trip ${summary(rows.map((r) => r.embedMs))}; main CPU ${summary(rows.map((r) => r.cpu))}; GC in request ${summary(rows.map((r) => r.gcMs))}`,
  );
  console.log(
    `           slowest ${slow.length}: wall ${mean(slow, (r) => r.wall)}, model round trips ${mean(slow, (r) => r.embedMs)}, main CPU ${mean(slow, (r) => r.cpu)}, GC ${mean(slow, (r) => r.gcMs)} ms (means); ` +
      `each: ${slow.map((r) => `${r.wall.toFixed(0)}=${r.embedMs.toFixed(0)}m/${r.cpu.toFixed(0)}c/${r.gcMs.toFixed(0)}g`).join(" ")}`,
  );
  const byKind = new Map();
  for (const [, d, kind] of inside.gcs) {
    const k = byKind.get(kind) ?? { n: 0, total: 0, max: 0 };
    byKind.set(kind, { n: k.n + 1, total: k.total + d, max: Math.max(k.max, d) });
  }
  const kinds = { 1: "minor", 2: "major", 4: "incremental", 8: "weak" };
  console.log(
    `           GC over the phase: ${[...byKind].map(([k, v]) => `${kinds[k] ?? k} ${v.n}× ${v.total.toFixed(0)} ms (max ${v.max.toFixed(1)})`).join(", ")}`,
  );
  console.log(`           event loop delay p99 ${inside.loopP99.toFixed(1)} max ${inside.loopMax.toFixed(1)} ms over the phase`);
  return { times, cpu, pgMs, load0 };
}

const all = [];
for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    const outFile = join(mkdtempSync(join(tmpdir(), "brain-tail-out-")), "tail.json");
    service = await startService({
      ...location,
      credentials,
      env: { ...env, TAIL_OUT: outFile, NODE_OPTIONS: `--import=${hook}` },
      binPath: join(build, "bin", "brain-mcp.js"),
      nodeArgs: values["node-options"].split(" ").filter(Boolean),
    });
    // warm: the index load, the model's first runs of each kind
    for (let i = 0; i < 20; i++) await http("POST", "/v1/memory/retrieve", { query: queryFor(pool[(i * 13) % size], i) });
    for (let i = 0; i < 5; i++) await http("POST", "/v1/memory/store", { text: pool[storeCursor--] });
    console.log(`round ${round + 1}, ${build}:`);
    const r = await phase(
      "retrieve",
      nRetrieves,
      (i) => http("POST", "/v1/memory/retrieve", { query: queryFor(pool[(i * 104729 + 11 + round * 7) % size], i + 1) }),
      outFile,
    );
    const s = await phase("store", nStores, () => http("POST", "/v1/memory/store", { text: pool[storeCursor--] }), outFile);
    all.push({ round, build, retrieve: r, store: s });
    await service.stop();
  }
}
for (const build of builds) {
  const mine = all.filter((x) => x.build === build);
  const cat = (k) => mine.flatMap((x) => x[k].times);
  console.log(`${build}: all rounds retrieve ${summary(cat("retrieve"))}; store ${summary(cat("store"))}`);
}
if (values.hold) {
  console.log(
    `holding the store: ${pg?.url ?? location.dbPath} (key ${credentials.apiKey.slice(0, 6)}…, workspace ${credentials.workspaceId}); Ctrl-C ends`,
  );
  await new Promise((r) => process.once("SIGINT", r));
}
await pg?.stop();
