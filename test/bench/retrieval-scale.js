#!/usr/bin/env node
// Retrieval at scale (issue 18): retrieve latency through HTTP at 10,000 and 100,000 memories, the first retrieve
// after a restart, and the serve process's resident set; on PostgreSQL also several such workspaces served by one
// process within its vector cache budget (BRAIN_VECTOR_CACHE_MB).
//
// Seeding writes through the store layer. Vectors: `--real` distinct texts (Debian's fortunes, ./corpus.js) are
// embedded by the service's model (cached in test/bench/data/); every further memory holds a further distinct text and
// a vector made from a real one plus noise (cosine about 0.8 to it), so the index holds realistic clusters without
// embedding 100,000 texts on a 2-core machine. Queries are 4 to 10 consecutive words of a really embedded text.
//
// Usage: npm run build && node test/bench/retrieval-scale.js [--store sqlite|postgres] [--sizes 10000,100000]
//          [--workspaces 1] [--retrieves 200] [--real 3000] [--cache-mb 256] [--restarts 1] [--database-url URL]
// --database-url: a PostgreSQL cluster that outlives the run (e.g. to compare builds over it with first-retrieve.js);
// the run makes its workspace in it as on a fresh cluster.
// --restarts N: after the retrieves, N − 1 more restarts, each with its first retrieve (sent as soon as `serve`
// listens) and the resident set after it: the first start loads a seeded workspace row by row and stores its index's
// snapshot; later ones load that snapshot.
import { parseArgs } from "node:util";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { corpus, shuffled } from "./corpus.js";
import { startService } from "./service-proc.js";
import { startPostgres } from "./pg.js";
import { percentile } from "./lib.js";
import { openStore } from "../../dist/service/store/open-store.js";
import { createOfflineEmbedder } from "../../dist/service/models/embed/index.js";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "sqlite" },
    sizes: { type: "string", default: "10000,100000" },
    workspaces: { type: "string", default: "1" },
    retrieves: { type: "string", default: "200" },
    real: { type: "string", default: "3000" },
    "cache-mb": { type: "string", default: "256" },
    restarts: { type: "string", default: "1" },
    "database-url": { type: "string" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const nWorkspaces = Number(values.workspaces);
const nRetrieves = Number(values.retrieves);
const nReal = Number(values.real);
const usePostgres = values.store === "postgres" || values["database-url"] !== undefined;
const serveEnv = { BRAIN_RATE_LIMIT_RPS: "100000", BRAIN_RATE_LIMIT_BURST: "100000", BRAIN_VECTOR_CACHE_MB: values["cache-mb"] };
const load = () => loadavg()[0].toFixed(1);
const f1 = (v) => v.toFixed(1);

const { passages, pieces } = corpus();
const pool = [...shuffled(passages, 1), ...shuffled(pieces, 2)];
const embedder = createOfflineEmbedder("semantic");
await embedder.load();
const d = embedder.dimensions;

// Real vectors of the first nReal texts, cached.
const cacheDir = new URL("./data/", import.meta.url).pathname;
mkdirSync(cacheDir, { recursive: true });
const cacheFile = join(cacheDir, `scale-${embedder.id.replace(/[^\w.@+-]/g, "_")}-${pool.length}.f32`);
let cached = existsSync(cacheFile) ? readFileSync(cacheFile) : Buffer.alloc(0);
for (let i = cached.length / (4 * d); i < nReal; i += 64) {
  for (const v of await embedder.embed(pool.slice(i, Math.min(nReal, i + 64)), "document"))
    appendFileSync(cacheFile, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
}
cached = readFileSync(cacheFile);
const real = Array.from(
  { length: nReal },
  (_, i) => new Float32Array(cached.buffer.slice(cached.byteOffset + i * 4 * d, cached.byteOffset + (i + 1) * 4 * d)),
);

let seed = 12345;
const gauss = () => {
  seed = (seed * 16807) % 2147483647;
  const u = seed / 2147483647;
  seed = (seed * 16807) % 2147483647;
  return Math.sqrt(-2 * Math.log(u + 1e-12)) * Math.cos((2 * Math.PI * seed) / 2147483647);
};
function vectorFor(i) {
  if (i < nReal) return real[i];
  const base = real[i % nReal];
  const v = new Float32Array(d);
  let norm = 0;
  for (let k = 0; k < d; k++) norm += (v[k] = base[k] + (gauss() * 0.75) / Math.sqrt(d)) ** 2;
  return v.map((x) => x / Math.sqrt(norm));
}
const textFor = (i) => (i < pool.length ? pool[i] : `${pool[i % pool.length]} (${Math.floor(i / pool.length)})`);
function queryFor(i) {
  const words = pool[i % nReal].split(/\s+/);
  const len = 4 + (i % 7);
  const start = words.length > len ? (i * 31) % (words.length - len) : 0;
  return words.slice(start, start + len).join(" ");
}

let pg = null;
const location = values["database-url"]
  ? { databaseUrl: values["database-url"] }
  : usePostgres
    ? { databaseUrl: (pg = await startPostgres()).url }
    : { dbPath: join(mkdtempSync(join(tmpdir(), "brain-bench-scale-")), "brain.db") };
let service = await startService({ ...location, env: serveEnv });
const credentials = [{ apiKey: service.apiKey, workspaceId: service.workspaceId }];
for (let w = 1; w < nWorkspaces; w++) {
  const ws = service.adminJson("workspace", "create", "--name", `bench-${w}`);
  credentials.push({ apiKey: service.adminJson("key", "create", String(ws.workspace_id)).api_key, workspaceId: ws.workspace_id });
}
await service.stop();
const store = await openStore(location);
console.log(
  `retrieval at scale: ${usePostgres ? "PostgreSQL" : "SQLite"}, ${nWorkspaces} workspace(s), embedder ${embedder.id}, ${nReal} real vectors, cache ${values["cache-mb"]} MB; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);

async function seedTo(workspaceId, size) {
  const have = await store.countMemories(workspaceId);
  for (let i = have; i < size; i += 1000) {
    await store.writeInWorkspace(workspaceId, async (tx) => {
      for (let n = i; n < Math.min(size, i + 1000); n++) {
        await tx.insertMemory({
          workspace_id: workspaceId,
          text: textFor(n),
          meta: {},
          vector: vectorFor(n),
          embedder_id: embedder.id,
          importance: 1 + (n % 10),
          temporal_type: "persistent",
          valid_until: null,
          categories: ["personal", "learning"],
          created_at: Date.now() - (size - n) * 60_000,
        });
      }
    });
  }
}

async function retrieve(key, query) {
  const started = performance.now();
  const res = await fetch(`${service.url}/v1/memory/retrieve`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query, top_k: 5 }),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(JSON.stringify(json));
  return [performance.now() - started, json];
}

for (const size of sizes) {
  const seedStart = performance.now();
  for (const { workspaceId } of credentials) await seedTo(workspaceId, size);
  console.log(
    `\n== ${size.toLocaleString("en-US")} memories × ${nWorkspaces} (seeded in ${f1((performance.now() - seedStart) / 1000)} s) ==`,
  );
  service = await startService({ ...location, env: serveEnv, credentials: credentials[0] });
  const [firstMs] = await retrieve(credentials[0].apiKey, queryFor(17));
  console.log(`first retrieve after start ${f1(firstMs)} ms (load ${load()}); rss ${f1(service.rssMb())} MB`);
  const times = [];
  let found = 0;
  let hits = 0;
  for (let i = 0; i < nRetrieves; i++) {
    const { apiKey } = credentials[i % nWorkspaces];
    const [ms, json] = await retrieve(apiKey, queryFor(i * 7 + 1));
    times.push(ms);
    if (json.count > 0) found++;
    if (json.memories.some((m) => m.text === pool[(i * 7 + 1) % nReal])) hits++;
  }
  // The first pass over several workspaces loads each; the second is what a warm process answers.
  const warm = nWorkspaces > 1 ? times.slice(nWorkspaces) : times;
  console.log(
    `retrieve p50 ${f1(percentile(warm, 50))} ms p99 ${f1(percentile(warm, 99))} ms (n=${warm.length}); answered ${found}/${nRetrieves}, ` +
      `source text among them ${hits}/${nRetrieves}; rss ${f1(service.rssMb())} MB; load ${load()}`,
  );
  for (let r = 2; r <= Number(values.restarts); r++) {
    await service.stop();
    service = await startService({ ...location, env: serveEnv, credentials: credentials[0] });
    const [ms] = await retrieve(credentials[0].apiKey, queryFor(17 + r));
    const cpu = service.cpuMs?.();
    console.log(
      `first retrieve after restart ${r} ${f1(ms)} ms (load ${load()}); rss ${f1(service.rssMb())} MB` +
        (cpu === undefined ? "" : `; serve CPU since start ${Math.round(cpu)} ms`),
    );
  }
  await service.stop();
}
await store.close();
await pg?.stop();
