#!/usr/bin/env node
// Loading a workspace's vector index in-process (issue 27): opens a store (migrating it), then loads the largest
// workspace's index from its stored snapshot (when the store has one and the build does), stored codes or floats; wall
// and CPU time, resident set. A load that read many rows one by one then stores a snapshot (timed apart), so the
// second run over a file loads from the snapshot.
// Usage: npm run build && node --expose-gc test/bench/index-load.js dist STORE.db codes|floats
//        node test/bench/index-load.js dist NEW.db seed 100000   (one workspace of N memories, random unit vectors)
// STORE may be a PostgreSQL URL (postgres://...) instead of a SQLite file.
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
const [distArg, file, mode] = process.argv.slice(2);
const dist = pathToFileURL(resolve(distArg)).href;
const { openStore } = await import(`${dist}/service/store/open-store.js`);
const { VectorIndexes, storeSource } = await import(`${dist}/service/retrieval/vector-index.js`);
const mb = () => (process.memoryUsage().rss / 2 ** 20).toFixed(1);
let t = performance.now();
const store = await openStore(/^postgres(ql)?:/.test(file) ? { databaseUrl: file } : { dbPath: file });
const openMs = performance.now() - t;
if (mode === "seed") {
  // The load's cost does not depend on the vectors' values, so seeded vectors are random (seeded, reproducible).
  const n = Number(process.argv[5] ?? 100_000);
  const now = Date.now();
  const w = await store.insertWorkspace({ name: "index-load", plan: "free", billing_cycle: "monthly", status: "active", created_at: now });
  let x = 1;
  const random = () => ((x = (x * 16807) % 2147483647) / 2147483647) * 2 - 1;
  for (let i = 0; i < n; i += 1000) {
    await store.writeInWorkspace(w.id, async (tx) => {
      for (let k = i; k < Math.min(n, i + 1000); k++) {
        const v = Float32Array.from({ length: 384 }, random);
        const norm = Math.hypot(...v);
        await tx.insertMemory({
          workspace_id: w.id,
          text: `memory ${k}`,
          meta: {},
          vector: v.map((c) => c / norm),
          embedder_id: "minilm-l6/1",
          importance: 1,
          temporal_type: "persistent",
          valid_until: null,
          categories: [],
          created_at: now,
        });
      }
    });
  }
  console.log(JSON.stringify({ seeded: n, workspace: w.id, ms: Math.round(performance.now() - t) }));
  await store.close();
  process.exit(0);
}
const list = await store.listWorkspaces();
const w = list.sort((a, b) => b.memories - a.memories)[0];
const ws = w.workspace.id;
const before = mb();
const source = storeSource(store, ws);
// CPU time inside the store's reads (the rest of the load's CPU is applying the rows to the index).
let readCpuUs = 0;
const timed = (s, l, c) => {
  const c0 = process.cpuUsage();
  return source.vectorsSince(s, l, c).finally(() => {
    const d = process.cpuUsage(c0);
    readCpuUs += d.user + d.system;
  });
};
// The snapshot's chunk reads (builds that have them) are timed apart: wall and CPU from the call to the chunk's bytes.
let chunkReads = 0;
let chunkWallMs = 0;
let chunkCpuUs = 0;
const readSnapshot =
  source.readSnapshot &&
  (async (embedderId) => {
    const stored = await source.readSnapshot(embedderId);
    if (!stored) return stored;
    const readChunk = stored.readChunk.bind(stored);
    return Object.assign(Object.create(Object.getPrototypeOf(stored)), stored, {
      readChunk: async (c) => {
        const w0 = performance.now();
        const c0 = process.cpuUsage();
        const bytes = await readChunk(c);
        const d = process.cpuUsage(c0);
        chunkReads++;
        chunkWallMs += performance.now() - w0;
        chunkCpuUs += d.user + d.system;
        return bytes;
      },
    });
  });
const src = { ...source, readSnapshot, vectorsSince: mode === "floats" ? (s, l) => timed(s, l) : timed };
const indexes = new VectorIndexes(384, "minilm-l6/1");
t = performance.now();
const cpu0 = process.cpuUsage();
const index = await indexes.refreshShared(ws, src, Number(process.env.PAGE_ROWS) || undefined);
const loadMs = performance.now() - t;
const cpu = process.cpuUsage(cpu0);
globalThis.gc?.();
console.log(
  JSON.stringify({
    mode,
    openMs: Math.round(openMs),
    loadMs: Math.round(loadMs),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    sysMs: Math.round(cpu.system / 1000),
    readCpuMs: Math.round(readCpuUs / 1000),
    chunkReads,
    chunkWallMs: Math.round(chunkWallMs),
    chunkCpuMs: Math.round(chunkCpuUs / 1000),
    size: index.size,
    rssBefore: +before,
    rssAfter: +mb(),
    // After the gc: the JavaScript heap and the typed arrays' memory (the rest of the resident set is code, the
    // allocator's free pages and the driver's buffers).
    heapUsedMb: +(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1),
    arrayBuffersMb: +(process.memoryUsage().arrayBuffers / 2 ** 20).toFixed(1),
    load: loadavg()[0].toFixed(1),
  }),
);
// A load that applied many rows one by one stores a snapshot of the index for the next (measured apart).
t = performance.now();
const cpu1 = process.cpuUsage();
await indexes.settled?.();
const stored = process.cpuUsage(cpu1);
console.log(
  JSON.stringify({
    snapshotStoreMs: Math.round(performance.now() - t),
    snapshotStoreCpuMs: Math.round((stored.user + stored.system) / 1000),
  }),
);
await store.close();
