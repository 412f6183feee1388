// A store's write transaction at the store layer, two checkouts alternated on one cluster (branch `pgstmt`): each
// transaction does what the write pipeline does for a new memory with an Idempotency-Key (the idempotency check, the
// index's rows since its rev, the near memories' rows, the insert, the usage event and the idempotency record), with
// the read-ahead hint (a checkout without it ignores it). Per checkout and round: statements, the client's CPU,
// PostgreSQL's CPU and the wall per transaction.
// Usage: [N=10000 TX=300 ROUNDS=3] node test/bench/pg-write.js BEFORE_CHECKOUT AFTER_CHECKOUT
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomUUID } from "node:crypto";
import { startPostgres } from "./pg.js";
import { clusterCpu, percentile } from "./lib.js";

const dirs = process.argv.slice(2).map((d) => resolve(d));
const N = Number(process.env.N ?? 10000);
const TX = Number(process.env.TX ?? 300);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const D = 384;
const cluster = await startPostgres();
const stores = [];
for (const dir of dirs) {
  const { openPostgresStore } = await import(join(dir, "dist/service/store/postgres/index.js"));
  stores.push(await openPostgresStore(cluster.url));
}
const [first] = stores;
const ws = (await first.insertWorkspace({ name: "write", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 })).id;
const vector = (i) => {
  const v = new Float32Array(D);
  for (let d = 0; d < D; d++) v[d] = Math.sin(i * 31 + d);
  return v;
};
const memory = (i) => ({
  workspace_id: ws,
  text: `memory number ${i} says something about topic ${i % 97}`,
  meta: {},
  vector: vector(i),
  embedder_id: "minilm-l6/1",
  importance: 5,
  temporal_type: "persistent",
  valid_until: null,
  categories: ["work", "project"],
  created_at: Date.UTC(2026, 0, 1) + i,
});
for (let b = 0; b < N; b += 500)
  await first.writeInWorkspace(ws, async (tx) => {
    for (let i = b; i < Math.min(N, b + 500); i++) await tx.insertMemory(memory(i));
  });
let maxRev = Math.max(...(await first.vectorsSince(ws, 0)).map((r) => r.rev));
let statements = 0;
for (const dir of dirs) {
  const pg = (await import(join(dir, "node_modules/pg/lib/index.js"))).default;
  if (pg.Client.prototype.query.counted) continue;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    statements++;
    return query.apply(this, args);
  };
  pg.Client.prototype.query.counted = true;
}
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];
let n = N;
for (let round = 1; round <= ROUNDS; round++) {
  for (const [k, store] of stores.entries()) {
    statements = 0;
    const c0 = process.cpuUsage();
    const db0 = clusterCpu(cluster.pid);
    const walls = [];
    for (let t = 0; t < TX; t++) {
      const key = randomUUID();
      const started = performance.now();
      await store.writeInWorkspace(
        ws,
        async (tx) => {
          if (await tx.getIdempotency(key, Date.now() - 86_400_000)) throw new Error("replay?");
          const rows = await tx.vectorsSince(maxRev, undefined, "minilm-l6/1");
          for (const r of rows) maxRev = Math.max(maxRev, r.rev);
          await tx.memoriesWithVectors([1 + (t % 50), 2 + (t % 50), 3 + (t % 50)].map((i) => i));
          const m = await tx.insertMemory(memory(n++));
          await tx.recordUsage("write", m.id, Date.now());
          const response = {
            status: "ok",
            memory_id: m.id,
            workspace_id: ws,
            dedup: { action: "stored_new", existing_id: null },
            importance: 5,
            categories: ["work", "project"],
            temporal: { type: "persistent", valid_until: null },
          };
          await tx.putIdempotency(
            { workspace_id: ws, key, request_hash: "0".repeat(64), response, created_at: Date.now() },
            Date.now() - 86_400_000,
          );
          return m.id;
        },
        { idempotencyKey: key, vectorsSince: { sinceRev: maxRev, codesFor: "minilm-l6/1" } },
      );
      walls.push(performance.now() - started);
    }
    const c = process.cpuUsage(c0);
    const db = clusterCpu(cluster.pid) - db0;
    console.log(
      `round ${round} ${dirs[k]}: ${(statements / TX).toFixed(2)} statements per transaction; client CPU ${((c.user + c.system) / 1000 / TX).toFixed(3)} ms, PostgreSQL CPU ${(db / TX).toFixed(3)} ms, wall p50 ${percentile(walls, 50).toFixed(2)} p99 ${percentile(walls, 99).toFixed(2)} ms (load ${load()})`,
    );
  }
}
for (const s of stores) await s.close();
await cluster.stop();
process.exit(0);
