#!/usr/bin/env node
// What erasing on forget costs on SQLite (issue 28): store and forget latency at 10,000 memories, through the store
// layer, for two builds alternately (before: the branch point's dist; after: this tree's), each on a fresh file.
// A store is what the service's store does in its transaction (insert with vector, idempotent answer kept, expired
// ones removed); a forget is `deleteMemories` of one memory (secure_delete, FTS5 secure-delete, WAL truncated).
//
// Usage: npm run build && node test/bench/erase.js --before DIST_DIR [--after dist] [--size 10000] [--stores 300]
//          [--forgets 100] [--rounds 2]
//        node test/bench/erase.js --postgres [--size 10000]: how long `admin memory compact` (VACUUM FULL of memories)
//          holds the table at that size, and a store's latency while it runs.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { percentile } from "./lib.js";

const { values } = parseArgs({
  options: {
    before: { type: "string" },
    after: { type: "string", default: "dist" },
    size: { type: "string", default: "10000" },
    stores: { type: "string", default: "300" },
    forgets: { type: "string", default: "100" },
    rounds: { type: "string", default: "2" },
    postgres: { type: "boolean", default: false },
  },
});
if (!values.before && !values.postgres) throw new Error("--before DIST_DIR: a build of the branch point (tsc --outDir)");
const SIZE = Number(values.size);
const WORDS =
  "alpha build lane deploy staging meeting review coffee lunch office budget release client vendor ticket queue cache index report team".split(
    " ",
  );
const text = (i) => `Note ${i}: ${Array.from({ length: 14 }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(" ")} ${i * 7919}.`;
const vector = (i) => new Float32Array(1024).map((_, k) => Math.sin(i + k));
const memory = (ws, i) => ({
  workspace_id: ws,
  text: text(i),
  meta: { n: i },
  vector: vector(i),
  embedder_id: "bench",
  importance: 5,
  temporal_type: "persistent",
  valid_until: null,
  categories: ["personal"],
  created_at: Date.now(),
});

async function run(label, dist) {
  const { openSqliteStore } = await import(pathToFileURL(resolve(dist, "service/store/sqlite/index.js")).href);
  const dir = mkdtempSync(join(tmpdir(), "brain-bench-erase-"));
  const store = openSqliteStore(join(dir, "brain.db"));
  try {
    const ws = (await store.insertWorkspace({ name: "b", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 })).id;
    const ids = [];
    for (let start = 0; start < SIZE; start += 500) {
      await store.writeInWorkspace(ws, async (tx) => {
        for (let i = start; i < Math.min(SIZE, start + 500); i++) ids.push((await tx.insertMemory(memory(ws, i))).id);
      });
    }
    const storeMs = [];
    for (let i = 0; i < Number(values.stores); i++) {
      const t0 = performance.now();
      await store.writeInWorkspace(ws, async (tx) => {
        const m = await tx.insertMemory(memory(ws, SIZE + i));
        await tx.putIdempotency(
          { key: `k${i}`, request_hash: "h", response: { status: "stored", memory_id: m.id }, created_at: Date.now() },
          Date.now() - 60_000,
        );
        await tx.recordUsage("write", m.id, Date.now());
      });
      storeMs.push(performance.now() - t0);
    }
    const forgetMs = [];
    for (let i = 0; i < Number(values.forgets); i++) {
      const t0 = performance.now();
      await store.deleteMemories(ws, [ids[i * 37]]);
      forgetMs.push(performance.now() - t0);
    }
    const t0 = performance.now();
    if (store.compact) await store.compact(); // VACUUM: what the upgrade to schema 11 runs once
    const vacuumMs = store.compact ? (performance.now() - t0).toFixed(0) : "-";
    const p = (xs, q) => percentile(xs, q).toFixed(1);
    console.log(
      `${label.padEnd(6)} store p50 ${p(storeMs, 50)} / p99 ${p(storeMs, 99)} ms; forget p50 ${p(forgetMs, 50)} / p99 ${p(forgetMs, 99)} ms; VACUUM ${vacuumMs} ms` +
        `  (load ${loadavg()
          .map((x) => x.toFixed(1))
          .join(" ")})`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.postgres) {
  await compactOnPostgres();
  process.exit(0);
}
console.log(`SQLite, ${SIZE} memories, ${values.stores} stores, ${values.forgets} forgets; ${new Date().toISOString()}`);
for (let r = 0; r < Number(values.rounds); r++) {
  await run("before", values.before);
  await run("after", values.after);
}

async function compactOnPostgres() {
  process.env.BRAIN_PG_STATEMENT_TIMEOUT_MS ??= "300000"; // as `admin` runs it (serve's own bound is 5 s)
  const { startPostgres } = await import("./pg.js");
  const { openPostgresStore } = await import(pathToFileURL(resolve(values.after, "service/store/postgres/index.js")).href);
  const pg = await startPostgres();
  const store = await openPostgresStore(pg.url);
  try {
    const ws = (await store.insertWorkspace({ name: "b", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 })).id;
    const ids = [];
    for (let start = 0; start < SIZE; start += 500) {
      await store.writeInWorkspace(ws, async (tx) => {
        for (let i = start; i < Math.min(SIZE, start + 500); i++) ids.push((await tx.insertMemory(memory(ws, i))).id);
      });
    }
    await store.deleteMemories(ws, [ids[0]]);
    const t0 = performance.now();
    const compacting = store.compact();
    // A store issued while it runs waits for the table's lock.
    await new Promise((r) => setTimeout(r, 50));
    const s0 = performance.now();
    let storeMs = NaN;
    try {
      await store.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, SIZE + 1)));
      storeMs = performance.now() - s0;
    } catch (err) {
      storeMs = -(performance.now() - s0);
      console.log(`the store during compact failed after ${(-storeMs).toFixed(0)} ms: ${err.message}`);
    }
    const result = await compacting;
    console.log(
      `PostgreSQL, ${SIZE} memories: compact ${(performance.now() - t0).toFixed(0)} ms (store says ${result.ms} ms; ` +
        `checkpoint ${result.checkpoint}, statistics ${result.statistics}); a store issued 50 ms in took ${storeMs.toFixed(0)} ms` +
        `  (load ${loadavg()
          .map((x) => x.toFixed(1))
          .join(" ")}; ${new Date().toISOString()})`,
    );
  } finally {
    await store.close();
    await pg.stop();
  }
}
