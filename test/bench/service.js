#!/usr/bin/env node
// Service store and retrieve latency at growing workspace sizes (issue 4), through HTTP against a real
// `brain-mcp serve`, on SQLite or PostgreSQL, with where the time goes measured in-process.
//
// For each size: the workspace is filled to that many memories directly through the store layer (bulk inserts, with
// vectors from the service's own embedder in batches, cached in test/bench/data/ so later runs seed in seconds:
// seeding 100,000 memories through HTTP would take far longer); then, with the service stopped, each part of a
// store and a retrieve is timed in this process; then a fresh `serve` is started over the store and timed through
// HTTP: the first retrieve (which builds the workspace's vector index), sequential retrieves and stores, health.
// Texts are Debian's fortunes, their sentences, lines and clauses (./corpus.js): real, varied and distinct.
//
// Usage: npm run build && node test/bench/service.js [--store sqlite|postgres] [--sizes 1000,10000,100000]
//          [--retrieves 300] [--stores 200] [--database-url URL] [--health-only [--healths 10]] [--analyze]
// --analyze (PostgreSQL): ANALYZE after seeding each size, as autovacuum does in a deployment within a minute or so
// of the rows arriving; without it, the planner meets the new workspace with the statistics of before it was filled.
// --health-only: seed each size, then time only health through HTTP (the first call, which also builds the vector
// index for the duplicate scan, then --healths more); no breakdown, retrieves or stores.
import { parseArgs } from "node:util";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { corpus, shuffled } from "./corpus.js";
import { startService } from "./service-proc.js";
import { startPostgres } from "./pg.js";
import { machine, percentile, recallQuery } from "./lib.js";
import { openStore } from "../../dist/service/store/open-store.js";
import { loadModels } from "../../dist/service/models/index.js";
import { createOfflineEmbedder, offlineEmbedderKind } from "../../dist/service/models/embed/index.js";
import { createWorkerEmbedder } from "../../dist/service/models/worker-embedder.js";
import { WorkspaceIndex } from "../../dist/service/retrieval/vector-index.js";
import { hybridScore } from "../../dist/service/retrieval/score.js";
import { FUSION, relevanceFloorFor } from "../../dist/service/retrieval/weights.js";

const CANDIDATE_LIMIT = FUSION.denseDepth;
import { healthCountsQuery } from "../../dist/service/health/index.js";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "sqlite" },
    sizes: { type: "string", default: "1000,10000,100000" },
    retrieves: { type: "string", default: "300" },
    stores: { type: "string", default: "200" },
    "database-url": { type: "string" },
    "health-only": { type: "boolean", default: false },
    healths: { type: "string", default: "10" },
    analyze: { type: "boolean", default: false },
  },
});
const healthOnly = values["health-only"];
const nHealths = Number(values.healths);
const sizes = values.sizes.split(",").map(Number);
const nRetrieves = Number(values.retrieves);
const nStores = Number(values.stores);
const usePostgres = values.store === "postgres";
// Latency, not the rate limit, is measured here (the fleet benchmark runs under the default limit).
const serveEnv = { BRAIN_RATE_LIMIT_RPS: "100000", BRAIN_RATE_LIMIT_BURST: "100000" };

const load = () => loadavg()[0].toFixed(1);
const f1 = (v) => (Number.isFinite(v) ? v.toFixed(1) : "n/a");
const f2 = (v) => (Number.isFinite(v) ? v.toFixed(2) : "n/a");
const stats = (v) => ({ n: v.length, p50: percentile(v, 50), p99: percentile(v, 99), mean: v.reduce((a, b) => a + b, 0) / v.length });
const fmt = (s) => `p50 ${f2(s.p50)} ms  p99 ${f2(s.p99)} ms  (n=${s.n})`;
async function timed(fn) {
  const t = performance.now();
  const result = await fn();
  return [performance.now() - t, result];
}

// --- texts --------------------------------------------------------------------------------------------------------
const { passages, pieces } = corpus();
// Whole fortunes first, so the smaller workspaces hold whole passages; then sentences, lines and clauses.
const pool = [...shuffled(passages, 1), ...shuffled(pieces, 2)];
const maxSize = Math.max(...sizes);
const spare = pool.length - maxSize;
const storeBudget = sizes.length * (nStores + 40);
if (spare < storeBudget) throw new Error(`corpus too small: ${pool.length} texts for ${maxSize} seeded + ${storeBudget} stored`);
// Texts stored through HTTP (and in the in-process commit timing) are never seeded: taken from the end of the pool.
const heldOut = pool.slice(pool.length - storeBudget);
let heldCursor = 0;
const takeHeldOut = (n) => heldOut.slice(heldCursor, (heldCursor += n));
const queryFor = recallQuery;

// --- store and models ---------------------------------------------------------------------------------------------
let pg = null;
let location;
if (usePostgres) {
  const url = values["database-url"] ?? (pg = await startPostgres()).url;
  location = { databaseUrl: url };
} else {
  location = { dbPath: join(mkdtempSync(join(tmpdir(), "brain-bench-svc-")), "brain.db") };
}
const env = { ...process.env };
const models = await loadModels(env);
const embedder = models.embedder;
// Seeding vectors: the service's own model in this process, each pool text embedded once and cached on disk.
const seeder = createOfflineEmbedder(offlineEmbedderKind(env));
await seeder.load();
if (seeder.id !== embedder.id) throw new Error(`seeder ${seeder.id} differs from the service's embedder ${embedder.id}`);
const cacheDir = new URL("./data/", import.meta.url).pathname;
mkdirSync(cacheDir, { recursive: true });
const cacheFile = join(cacheDir, `seed-${embedder.id.replace(/[^\w.@+-]/g, "_")}-${pool.length}.f32`);
/** Vectors of pool[from..to), from the cache file (pool order, appended as computed). */
const seedWorkers = [0, 1].map(() => createWorkerEmbedder(offlineEmbedderKind(env)));
async function seedVectors(from, to) {
  const width = embedder.dimensions * 4;
  let cached = existsSync(cacheFile) ? readFileSync(cacheFile) : Buffer.alloc(0);
  if (cached.length < to * width) {
    for (let i = cached.length / width; i < to; i += 256) {
      const texts = pool.slice(i, Math.min(to, i + 256));
      // one worker thread per core: a model run occupies the thread that calls it
      const halves = await Promise.all([
        seedWorkers[0].embed(texts.slice(0, 128), "document"),
        seedWorkers[1].embed(texts.slice(128), "document"),
      ]);
      for (const v of halves.flat()) appendFileSync(cacheFile, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    }
    cached = readFileSync(cacheFile);
  }
  return Array.from(
    { length: to - from },
    (_, k) => new Float32Array(cached.buffer.slice(cached.byteOffset + (from + k) * width, cached.byteOffset + (from + k + 1) * width)),
  );
}
const floor = relevanceFloorFor(embedder.id);

// The first serve makes the workspace and key; later ones reuse them.
let service = await startService({ ...location, env: serveEnv });
const credentials = { apiKey: service.apiKey, workspaceId: service.workspaceId };
await service.stop();
const workspaceId = credentials.workspaceId;
const store = await openStore(location);

console.log(`service benchmark: ${usePostgres ? `PostgreSQL ${pg?.version ?? ""}` : "SQLite (WAL)"}, embedder ${embedder.id}`);
console.log(
  `machine: ${machine()}; load average at start ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);
console.log(`corpus: ${passages.length} fortunes + ${pieces.length} sentences/lines/clauses (distinct, PII-free)`);

async function seedTo(size) {
  const have = await store.countMemories(workspaceId);
  const BATCH = 500;
  const started = performance.now();
  const day = 86_400_000;
  const now = Date.now();
  for (let i = have; i < size; i += BATCH) {
    const texts = pool.slice(i, Math.min(size, i + BATCH));
    const vectors = await seedVectors(i, i + texts.length);
    await store.writeInWorkspace(workspaceId, async (tx) => {
      for (let k = 0; k < texts.length; k++) {
        const n = i + k;
        const createdAt = now - 60 * day + Math.floor((n / maxSize) * 59 * day);
        await tx.insertMemory({
          workspace_id: workspaceId,
          text: texts[k],
          meta: { seeded: true },
          vector: vectors[k],
          embedder_id: seeder.id,
          importance: 1 + ((n * 7) % 10),
          temporal_type: "persistent",
          valid_until: null,
          categories: ["personal", "learning"],
          created_at: createdAt,
        });
      }
    });
  }
  return { seeded: size - have, seconds: (performance.now() - started) / 1000 };
}

/** Times each part of a retrieve and a store in this process (the service is stopped). */
async function breakdown(size) {
  const out = { load: load() };
  const [fetchMs, rows] = await timed(() => store.vectorsSince(workspaceId, 0));
  const index = new WorkspaceIndex(embedder.dimensions, embedder.id);
  const floats = (ids) => store.vectorsOf(workspaceId, ids);
  const [applyMs] = await timed(() => index.apply(rows));
  out.indexFetchMs = fetchMs;
  out.indexApplyMs = applyMs;
  const queries = Array.from({ length: 100 }, (_, i) => queryFor(pool[(i * 7919) % size], i));
  const parts = { queryEmbed: [], search: [], fetchRecords: [], score: [], touch: [] };
  const candidates = [];
  let exactChecked = 0;
  let exactSame = 0;
  for (let i = 0; i < queries.length; i++) {
    const [embedMs, [qv]] = await timed(() => embedder.embed([queries[i]], "query"));
    const [searchMs, matches] = await timed(() => index.search(qv, floor, CANDIDATE_LIMIT, floats));
    candidates.push(matches.length);
    if (i < 10) {
      // The int8 screen must give what a full float scan gives: same ids, same order.
      const full = rows
        .map((r) => ({ id: r.id, c: r.vector.reduce((s, x, k) => s + x * qv[k], 0) }))
        .filter((x) => x.c >= floor)
        .sort((a, b) => b.c - a.c || a.id - b.id)
        .slice(0, CANDIDATE_LIMIT);
      exactChecked++;
      if (full.length === matches.length && full.every((x, k) => x.id === matches[k].id)) exactSame++;
    }
    const [recordsMs, records] = await timed(() =>
      store.getMemories(
        workspaceId,
        matches.map((m) => m.id),
      ),
    );
    const nowMs = Date.now();
    const [scoreMs] = await timed(() => {
      const byId = new Map(records.map((r) => [r.id, r]));
      const best = matches[0]?.cosine ?? 0;
      const scored = matches.map((m) => ({
        m,
        ...hybridScore({ ...byId.get(m.id), relevance: (m.cosine - floor) / (best - floor || 1) }, { nowMs, floor, bestCosine: best }),
      }));
      return scored.sort((a, b) => b.score - a.score).slice(0, 5);
    });
    const [touchMs] = await timed(async () => {
      await store.touchMemories(
        workspaceId,
        matches.slice(0, 5).map((m) => m.id),
        nowMs,
      );
      await store.recordUsage(workspaceId, "read", null, nowMs);
    });
    parts.queryEmbed.push(embedMs);
    parts.search.push(searchMs);
    parts.fetchRecords.push(recordsMs);
    parts.score.push(scoreMs);
    parts.touch.push(touchMs);
  }
  const texts = takeHeldOut(30);
  const docEmbed = [];
  const judge = [];
  const commit = [];
  for (const text of texts) {
    const [embedMs, [vector]] = await timed(() => embedder.embed([text], "document"));
    const [judgeMs, judgement] = await timed(() => models.judge.judge(text, new Date(), vector));
    const [commitMs] = await timed(() =>
      store.writeInWorkspace(workspaceId, async (tx) => {
        index.apply(await tx.vectorsSince(index.maxRev));
        await index.nearest(vector, (ids) => tx.vectorsOf(ids));
        const nowMs = Date.now();
        const { id } = await tx.insertMemory({
          workspace_id: workspaceId,
          text,
          meta: {},
          vector,
          embedder_id: embedder.id,
          importance: judgement.importance,
          temporal_type: judgement.temporal.type,
          valid_until: judgement.temporal.valid_until ? Date.parse(judgement.temporal.valid_until) : null,
          categories: judgement.categories,
          created_at: nowMs,
        });
        await tx.recordUsage("write", id, nowMs);
      }),
    );
    docEmbed.push(embedMs);
    judge.push(judgeMs);
    commit.push(commitMs);
  }
  // Dedup's nearest-neighbour scan alone (inside commit above).
  const nearest = [];
  for (const q of queries.slice(0, 50)) {
    const [qv] = await seeder.embed([q], "query");
    nearest.push((await timed(() => index.nearest(qv, floats)))[0]);
  }
  Object.assign(out, {
    retrieve: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, stats(v)])),
    candidates: stats(candidates),
    exact: `${exactSame}/${exactChecked}`,
    store: { docEmbed: stats(docEmbed), judge: stats(judge), nearest: stats(nearest), commit: stats(commit) },
  });
  return out;
}

async function http(method, path, body) {
  const started = performance.now();
  const res = await fetch(service.url + path, {
    method,
    headers: { authorization: `Bearer ${credentials.apiKey}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return [ms, json];
}

async function overHttp(size) {
  service = await startService({ ...location, env: serveEnv, credentials });
  const out = { readyMs: service.readyMs, load: load() };
  const q0 = queryFor(pool[17 % size], 3);
  [out.firstRetrieveMs] = await http("POST", "/v1/memory/retrieve", { query: q0 });
  [out.firstHealthMs] = await http("GET", "/v1/optimize/health");
  const retrieves = [];
  let found = 0;
  for (let i = 0; i < nRetrieves; i++) {
    const [ms, json] = await http("POST", "/v1/memory/retrieve", { query: queryFor(pool[(i * 104729 + 11) % size], i + 1) });
    retrieves.push(ms);
    if (json.count > 0) found++;
  }
  const stores = [];
  const actions = { stored_new: 0, merged: 0 };
  const byAction = { stored_new: [], merged: [] };
  for (const text of takeHeldOut(nStores)) {
    const [ms, json] = await http("POST", "/v1/memory/store", { text });
    stores.push(ms);
    actions[json.dedup.action]++;
    byAction[json.dedup.action]?.push(ms);
  }
  const health = [];
  for (let i = 0; i < 3; i++) health.push((await http("GET", "/v1/optimize/health"))[0]);
  const [, status] = await http("GET", "/v1/status");
  Object.assign(out, {
    loadAfter: load(),
    retrieve: stats(retrieves),
    found,
    store: stats(stores),
    actions,
    storeNew: stats(byAction.stored_new),
    storeMerged: stats(byAction.merged),
    health: stats(health),
    memoryCount: status.memory_count,
    rssMb: service.rssMb(),
  });
  await service.stop();
  // serve loads recent workspaces' indexes once listening: a first retrieve that comes after that load is warm
  service = await startService({ ...location, env: serveEnv, credentials });
  await new Promise((r) => setTimeout(r, 1.5 * out.firstRetrieveMs + 500));
  [out.firstRetrieveAfterWarmUpMs] = await http("POST", "/v1/memory/retrieve", { query: queryFor(pool[29 % size], 5) });
  await service.stop();
  return out;
}

/** Health alone through HTTP: the first call (cold index for the duplicate scan), then nHealths warm ones. */
async function healthOverHttp() {
  service = await startService({ ...location, env: serveEnv, credentials });
  const out = { load: load() };
  [out.firstHealthMs] = await http("GET", "/v1/optimize/health");
  const health = [];
  let signals;
  for (let i = 0; i < nHealths; i++) {
    const [ms, json] = await http("GET", "/v1/optimize/health");
    health.push(ms);
    signals = json.signals;
  }
  Object.assign(out, { loadAfter: load(), health: stats(health), signals });
  await service.stop();
  return out;
}

const results = [];
for (const size of sizes) {
  const seeded = await seedTo(size);
  if (values.analyze && usePostgres) {
    const pgDriver = createRequire(import.meta.url)("pg");
    const client = new pgDriver.Client({ connectionString: location.databaseUrl });
    await client.connect();
    await client.query("ANALYZE");
    await client.end();
  }
  console.log(
    `\n== ${size.toLocaleString("en-US")} memories (seeded ${seeded.seeded} in ${f1(seeded.seconds)} s${values.analyze && usePostgres ? "; then ANALYZE" : ""}) ==`,
  );
  if (healthOnly) {
    // In process, the service stopped: what health read from the store before (every record) and now (SQL counts).
    const listAll = [];
    for (let i = 0; i < 3; i++) listAll.push((await timed(() => store.listMemories(workspaceId)))[0]);
    const counts = [];
    const query = healthCountsQuery(Date.now());
    for (let i = 0; i < 10; i++) counts.push((await timed(() => store.healthCounts(workspaceId, query)))[0]);
    console.log(`in process (load ${load()}): listMemories ${fmt(stats(listAll))}; healthCounts ${fmt(stats(counts))}`);
    const h = await healthOverHttp();
    console.log(`health through HTTP (load ${h.load} -> ${h.loadAfter}):`);
    console.log(`  first health (builds the index): ${f1(h.firstHealthMs)} ms`);
    console.log(`  health   ${fmt(h.health)}`);
    console.log(`  signals  ${JSON.stringify(h.signals)}`);
    results.push({ size, seeded, http: h });
    continue;
  }
  const b = await breakdown(size);
  console.log(`in-process breakdown (load ${b.load}):`);
  console.log(`  index build: fetch vectors from the store ${f1(b.indexFetchMs)} ms + quantize/apply ${f1(b.indexApplyMs)} ms`);
  console.log(`  retrieve parts: query embed ${fmt(b.retrieve.queryEmbed)}`);
  console.log(
    `                  index search ${fmt(b.retrieve.search)}  (candidates p50 ${b.candidates.p50}, int8 screen = float scan on ${b.exact} queries)`,
  );
  console.log(`                  fetch records ${fmt(b.retrieve.fetchRecords)}`);
  console.log(`                  score+sort ${fmt(b.retrieve.score)}`);
  // Written directly here, each committed on its own; the service gathers these and writes them after the response,
  // every 50 ms in one statement (src/service/bookkeeping.ts), so no retrieve waits for them.
  console.log(`                  touch+usage (direct writes; not on serve's request path) ${fmt(b.retrieve.touch)}`);
  console.log(`  store parts:    document embed ${fmt(b.store.docEmbed)}`);
  console.log(`                  judge ${fmt(b.store.judge)}`);
  console.log(`                  dedup nearest scan ${fmt(b.store.nearest)}`);
  console.log(`                  commit (refresh+nearest+insert in the write lock) ${fmt(b.store.commit)}`);
  const h = await overHttp(size);
  console.log(`through HTTP (load ${h.load} -> ${h.loadAfter}; serve ready in ${f1(h.readyMs)} ms, RSS ${f1(h.rssMb)} MB after):`);
  console.log(
    `  first retrieve right after listening (waits for the index load): ${f1(h.firstRetrieveMs)} ms; first health: ${f1(h.firstHealthMs)} ms`,
  );
  console.log(
    `  first retrieve of a restart, ${f1(1.5 * h.firstRetrieveMs + 500)} ms after listening (index loaded meanwhile): ${f1(h.firstRetrieveAfterWarmUpMs)} ms`,
  );
  console.log(`  retrieve ${fmt(h.retrieve)}  (${h.found} of ${h.retrieve.n} found memories)`);
  console.log(`  store    ${fmt(h.store)}  (${h.actions.stored_new} new, ${h.actions.merged} merged)`);
  console.log(`    new    ${fmt(h.storeNew)}`);
  console.log(`    merged ${fmt(h.storeMerged)}`);
  console.log(`  health   ${fmt(h.health)}`);
  results.push({ size, seeded, breakdown: b, http: h });
}
console.log(
  `\nload average at end ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);
console.log("JSON " + JSON.stringify({ store: usePostgres ? "postgres" : "sqlite", embedder: embedder.id, machine: machine(), results }));
await store.close();
await pg?.stop();
await Promise.all(seedWorkers.map((w) => w.close()));
