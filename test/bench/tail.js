#!/usr/bin/env node
// Where a retrieve's and a store's p99 goes at 10,000 memories, for several builds alternated (branch `pgtail`): each
// build gets a store of its own, made and seeded by that build (service.js's texts and cached vectors, the same rows),
// then each round starts each build's `serve` over its store in turn with tail-hook.js loaded, warms it, and times RETRIEVES retrieves then STORES stores one at a
// time through HTTP. Per build and round: client p50/p90/p99/max, the serve process's CPU per request and the
// cluster's (PostgreSQL) from /proc, the 1-minute load; and, for the slowest 3 % of each kind, what the hook saw inside
// them: the model worker's round trips, GC pauses, main-thread CPU.
// Usage: node test/bench/tail.js [--store postgres|sqlite] [--builds /work/base2,.] [--rounds 2] [--size 10000]
//          [--retrieves 300] [--stores 150] [--env K=V,K=V] (serve's environment) [--node-options='--cpu-prof ...'] (node's flags for serve)
//          [--hold] (keep the seeded store after the rounds, until Ctrl-C)
import { readFileSync, existsSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { corpus, shuffled } from "./corpus.js";
import { startPostgres } from "./pg.js";
import { startService } from "./service-proc.js";
import { clusterCpu, percentile, recallQuery } from "./lib.js";

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
// A build is a checkout, optionally with node flags for its serve (in NODE_OPTIONS, which worker threads do not take
// as execArgv) after a "+" (e.g. `.+--max-semi-space-size=64`).
const builds = values.builds.split(",").map((b) => {
  const [path, ...flags] = b.split("+");
  return flags.length > 0 ? `${resolve(path)}+${flags.join("+")}` : resolve(path);
});
const checkoutOf = (build) => build.split("+")[0];
const flagsOf = (build) => build.split("+").slice(1);
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
const env = { BRAIN_RATE_LIMIT_RPS: "100000", BRAIN_RATE_LIMIT_BURST: "100000", ...extraEnv };
let service;

/**
 * Each build gets a store of its own, made, migrated and seeded by that build (a schema change of one build must not
 * reach the other's): a database per build in the one cluster, or a SQLite file per build.
 */
async function seededStore(build, k) {
  let location;
  if (pg) {
    const { default: PgClient } = await import("pg");
    const admin = new PgClient.Client({ connectionString: pg.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE tail_${k}`);
    await admin.end();
    const url = new URL(pg.url);
    url.pathname = `/tail_${k}`;
    location = { databaseUrl: url.toString() };
  } else {
    location = { dbPath: join(mkdtempSync(join(tmpdir(), "brain-tail-")), "brain.db") };
  }
  const binPath = join(checkoutOf(build), "bin", "brain-mcp.js");
  service = await startService({ ...location, env, binPath });
  const credentials = { apiKey: service.apiKey, workspaceId: service.workspaceId };
  await service.stop();
  const { openStore } = await import(join(checkoutOf(build), "dist/service/store/open-store.js"));
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
  return { location, credentials };
}
const stores = new Map();
for (const [k, build] of builds.entries()) stores.set(build, await seededStore(build, k));
// A restart of the cluster's statistics and a checkpoint would otherwise land on whichever build runs first.
await new Promise((r) => setTimeout(r, 2_000));
console.log(
  `seeded ${size} per build on ${pg ? "PostgreSQL" : "SQLite"}; builds ${builds.join(" | ")}; load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);

const queryFor = recallQuery;
let storeCursor = pool.length - 1;

const pgCpu = () => (pg ? clusterCpu(pg.pid) : 0);

let credentials;
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
  if (!pg) {
    const cps = inside.commits.filter((c) => c[1] === 2);
    console.log(
      `           SQLite in request ${summary(rows.map((r) => r.sqlMs))} (the main thread's CPU in it ${summary(rows.map((r) => r.sqlCpuMs))}); commit ${summary(rows.map((r) => r.commitMs))}; ` +
        `slowest ${slow.length}: SQLite ${mean(slow, (r) => r.sqlMs)}, commit ${mean(slow, (r) => r.commitMs)}, checkpoint ${mean(slow, (r) => r.checkpointMs)} ms (means); ` +
        `commits on the main thread over the phase ${inside.commits.length} (p99 ${pct(
          inside.commits.map((c) => c[0]),
          99,
        )} max ${Math.max(0, ...inside.commits.map((c) => c[0])).toFixed(1)} ms, most WAL frames before one ${Math.max(0, ...inside.commits.map((c) => c[2]))}), ` +
        `${cps.length} with a checkpoint inside (${cps.map((c) => c[0].toFixed(1)).join(" ")} ms), ` +
        `${inside.commits.filter((c) => c[1] === 3).length} starting the WAL over (${inside.commits
          .filter((c) => c[1] === 3)
          .map((c) => c[0].toFixed(1))
          .join(" ")} ms), ` +
        `${rows.filter((r) => r.checkpointMs > 0).length} of them in a request`,
    );
  }
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
  console.log(
    `           event loop delay p99 ${inside.loopP99.toFixed(1)} max ${inside.loopMax.toFixed(1)} ms over the phase; serve's resident set ${service.rssMb().toFixed(0)} MB`,
  );
  return { times, cpu, pgMs, load0 };
}

const all = [];
for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    const outFile = join(mkdtempSync(join(tmpdir(), "brain-tail-out-")), "tail.json");
    const { location } = stores.get(build);
    credentials = stores.get(build).credentials;
    service = await startService({
      ...location,
      credentials,
      env: { ...env, TAIL_OUT: outFile, NODE_OPTIONS: [`--import=${hook}`, ...flagsOf(build)].join(" ") },
      binPath: join(checkoutOf(build), "bin", "brain-mcp.js"),
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
  for (const [build, { location }] of stores) console.log(`holding ${build}'s store: ${location.databaseUrl ?? location.dbPath}`);
  await new Promise((r) => process.once("SIGINT", r));
}
await pg?.stop();
