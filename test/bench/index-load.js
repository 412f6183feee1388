#!/usr/bin/env node
// Loading a workspace's vector index in-process (issue 27): opens a store (migrating it), then loads the largest
// workspace's index from stored codes or from floats; wall and CPU time, resident set.
// Usage: npm run build && node --expose-gc test/bench/index-load.js dist STORE.db codes|floats
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
const [distArg, file, mode] = process.argv.slice(2);
const dist = pathToFileURL(resolve(distArg)).href;
const { openStore } = await import(`${dist}/service/store/open-store.js`);
const { VectorIndexes, storeSource } = await import(`${dist}/service/retrieval/vector-index.js`);
const mb = () => (process.memoryUsage().rss / 2 ** 20).toFixed(1);
let t = performance.now();
const store = await openStore({ dbPath: file });
const openMs = performance.now() - t;
const list = await store.listWorkspaces();
const w = list.sort((a, b) => b.memories - a.memories)[0];
const ws = w.workspace.id;
const before = mb();
const source = storeSource(store, ws);
const src = mode === "floats" ? { vectorsSince: (s, l) => source.vectorsSince(s, l), vectorsOf: source.vectorsOf } : source;
const indexes = new VectorIndexes(384, "minilm-l6/1");
t = performance.now();
const cpu0 = process.cpuUsage();
const index = await indexes.refreshShared(ws, src);
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
    size: index.size,
    rssBefore: +before,
    rssAfter: +mb(),
    load: loadavg()[0].toFixed(1),
  }),
);
await store.close();
