// Same answers before and after: one PostgreSQL store of N seeded memories (service.js's texts and vectors), two
// checkouts' retrieveMemories over it (each with its own index), the same Q queries (4-10 words of a seeded text,
// that text's vector as the query's), countAsRecall off so neither changes what the other reads. Prints how many
// answers differ (ids, order, scores, similarities) and each checkout's round trips per retrieve.
// The store is AFTER's (it has every read both need). REVERSE=1 runs AFTER's retrieves first.
// Usage: [N=10000 Q=300 REVERSE=1] node test/bench/pg-exact.js BEFORE_CHECKOUT AFTER_CHECKOUT
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { corpus, shuffled } from "./corpus.js";
import { startPostgres } from "./pg.js";
import { clusterCpu, percentile } from "./lib.js";

const [before, after] = process.argv.slice(2).map((d) => resolve(d));
const N = Number(process.env.N ?? 10000);
const Q = Number(process.env.Q ?? 300);
const D = 384;
const { passages, pieces } = corpus();
const pool = [...shuffled(passages, 1), ...shuffled(pieces, 2)];
const seed = readFileSync(new URL("./data/seed-minilm-l6_1-109474.f32", import.meta.url));
const vectorOf = (i) => new Float32Array(seed.buffer.slice(seed.byteOffset + i * D * 4, seed.byteOffset + (i + 1) * D * 4));
const cluster = await startPostgres();
const { openPostgresStore } = await import(join(after, "dist/service/store/postgres/index.js"));
const store = await openPostgresStore(cluster.url);
const ws = (await store.insertWorkspace({ name: "exact", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 })).id;
for (let b = 0; b < N; b += 500) {
  await store.writeInWorkspace(ws, async (tx) => {
    for (let i = b; i < Math.min(N, b + 500); i++)
      await tx.insertMemory({
        workspace_id: ws,
        text: pool[i],
        meta: {},
        vector: vectorOf(i),
        embedder_id: "minilm-l6/1",
        importance: 5,
        temporal_type: "persistent",
        valid_until: null,
        categories: [],
        created_at: Date.UTC(2026, 0, 1) + i * 1000,
      });
  });
}
// round trips: every statement the store's pool sends
let statements = 0;
const pg = (await import(join(after, "node_modules/pg/lib/index.js"))).default;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function () {
  statements++;
  return query.apply(this, arguments);
};
const queries = Array.from({ length: Q }, (_, k) => {
  const i = (k * 7919) % N; // a seeded memory: its words, and its vector as the query's
  const words = pool[i].split(/\s+/);
  const len = 4 + (k % 7);
  const start = words.length > len ? (k * 31) % (words.length - len) : 0;
  return { text: words.slice(start, start + len).join(" "), vector: vectorOf(i) };
});
const now = () => new Date(Date.UTC(2026, 6, 1));
const answers = {};
for (const dir of process.env.REVERSE ? [after, before] : [before, after]) {
  const { retrieveMemories } = await import(join(dir, "dist/service/retrieval/retrieve.js"));
  const { VectorIndexes } = await import(join(dir, "dist/service/retrieval/vector-index.js"));
  const byText = new Map(queries.map((q) => [q.text, q.vector]));
  const embedder = { id: "minilm-l6/1", dimensions: D, dedupThreshold: 0.9, embed: async (texts) => texts.map((t) => byText.get(t)) };
  const deps = {
    store,
    indexes: new VectorIndexes(D, embedder.id),
    embedder,
    now,
    reads: { recordRead: async () => {}, withPendingReads: (_, r) => r },
  };
  await retrieveMemories(deps, ws, { query: queries[0].text, top_k: 10, min_score: 0 }, { countAsRecall: false }); // index load
  statements = 0;
  const c0 = process.cpuUsage();
  const db0 = clusterCpu(cluster.pid);
  const walls = [];
  answers[dir] = [];
  for (const q of queries) {
    const t = performance.now();
    const r = await retrieveMemories(deps, ws, { query: q.text, top_k: 10, min_score: 0 }, { countAsRecall: false });
    walls.push(performance.now() - t);
    answers[dir].push(r.memories.map((m) => [m.id, m.score, m.similarity]));
  }
  const c = process.cpuUsage(c0);
  const db = clusterCpu(cluster.pid) - db0;
  console.log(
    `${dir}: ${(statements / Q).toFixed(2)} statements per retrieve; this process's CPU ${((c.user + c.system) / 1000 / Q).toFixed(2)} ms per retrieve, PostgreSQL's ${(db / Q).toFixed(2)} ms; wall p50 ${percentile(walls, 50).toFixed(2)} p99 ${percentile(walls, 99).toFixed(2)} ms (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
  );
}
const a = answers[before];
const b = answers[after];
const differ = a.filter((x, i) => JSON.stringify(x) !== JSON.stringify(b[i])).length;
console.log(`${Q} queries over ${N} memories: ${differ} answers differ; ${a.reduce((n, x) => n + x.length, 0)} memories returned in all`);
await store.close();
await cluster.stop();
process.exit(differ === 0 ? 0 : 1);
