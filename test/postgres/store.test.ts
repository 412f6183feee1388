// The PostgreSQL store on its own, with two stores (two pools, as two service processes would have) on one database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { openPostgresStore, type PostgresStore } from "../../src/service/store/postgres/index.js";
import type { NewMemory } from "../../src/service/store/types.js";
import { countHealthSignals, healthCountsQuery } from "../../src/service/health/index.js";
import { ServiceError, type ServiceLog } from "../../src/service/types.js";
import { EMPTY_COUNTS, EXPECTED_COUNTS, FIXTURE_EMBEDDER, HEALTH_NOW, seedHealthWorkspace } from "../core/health-fixture.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { MIGRATIONS } from "../../src/service/store/postgres/schema.js";

const T0 = Date.UTC(2025, 0, 1);

function memory(workspaceId: number, text: string, vector = [1, 0, 0]): NewMemory {
  return {
    workspace_id: workspaceId,
    text,
    meta: { source: "test", z: 1, a: 2 },
    vector: new Float32Array(vector),
    embedder_id: "emb-a",
    importance: 5,
    temporal_type: "persistent",
    valid_until: null,
    categories: ["work", "project"],
    created_at: T0,
  };
}

/** A new workspace's id (assigned by the database). */
async function newWorkspace(store: PostgresStore, name: string): Promise<number> {
  return (await store.insertWorkspace({ name, plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
}

describe.skipIf(!canStartPostgres())("the PostgreSQL store", () => {
  let cluster: PgCluster;
  let url: string;
  let a: PostgresStore;
  let b: PostgresStore;

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
    // Three processes starting at once against an empty database migrate it exactly once.
    const stores = await Promise.all([openPostgresStore(url), openPostgresStore(url), openPostgresStore(url)]);
    [a, b] = [stores[0], stores[1]];
    await stores[2]!.close();
  });

  afterAll(async () => {
    await a?.close().catch(() => {});
    await b?.close().catch(() => {});
    await cluster?.stop();
  });

  it("migrates once when several processes start together, and not again on the next start", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query("SELECT version FROM brain_migrations ORDER BY version");
    await client.end();
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    const again = await openPostgresStore(url);
    expect(await again.migrate()).toEqual([]);
    await again.close();
  });

  it("keeps workspaces, keys and revocation, and renders timestamps as ISO seconds", async () => {
    const ws = await newWorkspace(a, "ws_keys");
    const keyId = await a.insertKey({ workspace_id: ws, key_hash: "h1", prefix: "svc_ws_abcd", created_at: T0 });
    expect(Number.isSafeInteger(keyId) && keyId > 0).toBe(true);
    // Ids come from the database, one after another (numbers, not the driver's bigint strings).
    expect(await b.insertKey({ workspace_id: ws, key_hash: "h1b", prefix: "svc_ws_abcd", created_at: T0 })).toBe(keyId + 1);
    expect(await newWorkspace(b, "ws_next")).toBe(ws + 1);
    const found = await b.findKeyByHash("h1");
    expect(found?.keyId).toBe(keyId);
    expect(found?.workspace).toMatchObject({ id: ws, status: "active", created_at: "2025-01-01T00:00:00Z" });
    expect((await b.setWorkspaceStatus(ws, "suspended"))?.status).toBe("suspended");
    expect((await a.getWorkspace(ws))?.status).toBe("suspended");
    expect(await a.setWorkspaceStatus(999_999, "active")).toBeNull();
    expect(await b.revokeKey(keyId, T0)).toBe(true);
    expect(await a.revokeKey(keyId, T0)).toBe(false);
    expect(await a.findKeyByHash("h1")).toBeNull();
    expect(await a.countWorkspaces()).toBeGreaterThanOrEqual(1);
  });

  it("round-trips a memory's vector, meta and categories, and bumps rev on every update but not on access", async () => {
    const ws = await newWorkspace(a, "ws_rev");
    const first = await a.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "one", [0.5, -0.25, 3.75])));
    const second = await b.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "two")));
    expect([first.rev, second.rev]).toEqual([1, 2]);
    expect(second.id).not.toBe(first.id); // random ids (store/memory-ids.ts), not a sequence
    expect(Number.isSafeInteger(second.id) && second.id > 0).toBe(true);
    expect(first.workspace_id).toBe(ws);
    expect(first).toMatchObject({ meta: { source: "test", z: 1, a: 2 }, categories: ["work", "project"], access_count: 0, updated_at: T0 });
    expect(Object.keys(first.meta)).toEqual(["source", "z", "a"]);

    const merged = await b.writeInWorkspace(ws, (tx) =>
      tx.updateMemory(first.id, { text: "one, richer", importance: 9, meta: { x: true } }, T0 + 5),
    );
    expect(merged).toMatchObject({ text: "one, richer", importance: 9, rev: 3, updated_at: T0 + 5, meta: { x: true } });

    await a.touchMemories(ws, [first.id, second.id], T0 + 10);
    const touched = await b.getMemories(ws, [first.id, second.id, 999_999]);
    const byId = new Map(touched.map((m) => [m.id, [m.access_count, m.last_accessed_at, m.rev]]));
    expect(touched).toHaveLength(2);
    expect(byId.get(first.id)).toEqual([1, T0 + 10, 3]);
    expect(byId.get(second.id)).toEqual([1, T0 + 10, 2]);

    const vectors = await b.vectorsSince(ws, 0);
    expect(vectors.map((v) => [v.id, v.rev])).toEqual([
      [second.id, 2],
      [first.id, 3],
    ]);
    expect(Array.from(vectors[1]!.vector)).toEqual([0.5, -0.25, 3.75]);
    expect((await a.vectorsSince(ws, 2)).map((v) => v.id)).toEqual([first.id]);
    expect(await a.countMemories(ws)).toBe(2);
    expect((await a.listMemories(ws)).map((m) => m.id)).toEqual([second.id, first.id]); // rev order, as on SQLite
    expect(await a.memoriesNotEmbeddedBy("emb-a", 10, ws)).toEqual([]);
    expect((await a.memoriesNotEmbeddedBy("emb-b", 10, ws)).length).toBe(2);
    // only the models whose id starts so (LIKE's own characters taken literally)
    expect((await a.memoriesNotEmbeddedBy("emb-b", 10, ws, "emb-")).length).toBe(2);
    expect(await a.memoriesNotEmbeddedBy("emb-b", 10, ws, "emb_")).toEqual([]);
    expect(await a.memoriesNotEmbeddedBy("emb-b", 10, undefined, "use-lite/")).toEqual([]);
  });

  it("serializes writes to one workspace across processes: 40 concurrent identical writes make one memory", async () => {
    const ws = await newWorkspace(a, "ws_race");
    const writes = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? a : b).writeInWorkspace(ws, async (tx) => {
        // What the pipeline's dedup does: look at what exists, then insert only if the fact is new.
        const existing = await tx.vectorsSince(0);
        if (existing.length > 0) return existing[0]!.id;
        const m = await tx.insertMemory(memory(ws, "the same fact"));
        return m.id;
      }),
    );
    const ids = await Promise.all(writes);
    expect(new Set(ids).size).toBe(1);
    expect(await a.countMemories(ws)).toBe(1);
  });

  it("assigns revs that readers in the other process never skip, under concurrent inserts", async () => {
    const ws = await newWorkspace(a, "ws_revrace");
    let seen = 0;
    const cached = new Set<number>();
    const reader = (async () => {
      for (let round = 0; round < 40; round++) {
        for (const v of await b.vectorsSince(ws, seen)) {
          cached.add(v.id);
          seen = Math.max(seen, v.rev);
        }
      }
    })();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, `fact ${i}`)))),
    );
    await reader;
    for (const v of await b.vectorsSince(ws, seen)) cached.add(v.id);
    expect(cached.size).toBe(30);
    const revs = (await a.vectorsSince(ws, 0)).map((v) => v.rev);
    expect(revs).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it("rolls back a write whose pipeline step throws, and releases the lock", async () => {
    const ws = await newWorkspace(a, "ws_rollback");
    await expect(
      a.writeInWorkspace(ws, async (tx) => {
        await tx.insertMemory(memory(ws, "never kept"));
        throw new ServiceError("idempotency_key_reused", "different body");
      }),
    ).rejects.toMatchObject({ code: "idempotency_key_reused" });
    expect(await b.countMemories(ws)).toBe(0);
    await b.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "kept")));
    expect(await a.countMemories(ws)).toBe(1);
  });

  it("keeps idempotency records per workspace across processes and expires old ones", async () => {
    const ws = await newWorkspace(a, "ws_idem");
    const ws2 = await newWorkspace(a, "ws_idem2");
    const response = { status: "ok", memory_id: 7, workspace_id: ws, dedup: { action: "stored_new", existing_id: null } };
    await a.writeInWorkspace(ws, (tx) =>
      tx.putIdempotency({ workspace_id: ws, key: "k1", request_hash: "rh", response, created_at: T0 }, T0 - 1),
    );
    expect(await b.getIdempotency(ws, "k1", T0 - 1000)).toMatchObject({ request_hash: "rh", response });
    expect(await b.getIdempotency(ws2, "k1", T0 - 1000)).toBeNull();
    expect(await b.getIdempotency(ws, "k1", T0 + 1)).toBeNull();
    await b.writeInWorkspace(ws, async (tx) => {
      expect(await tx.getIdempotency("k1", T0)).not.toBeNull();
      await tx.putIdempotency({ workspace_id: ws, key: "k2", request_hash: "rh2", response: {}, created_at: T0 + 100 }, T0 + 50);
    });
    expect(await a.getIdempotency(ws, "k1", 0)).toBeNull();
    expect(await a.getIdempotency(ws, "k2", 0)).not.toBeNull();
  });

  it("counts usage events written inside and outside the write lock", async () => {
    const ws = await newWorkspace(a, "ws_usage");
    await a.writeInWorkspace(ws, (tx) => tx.recordUsage("write", 12, T0));
    await b.recordUsage(ws, "read", null, T0);
    await b.recordUsage(ws, "read", null, T0);
    expect(await a.usageCounts(ws)).toEqual({ write: 1, read: 2 });
  });

  it("records a read in one step: the returned memories are touched and one read is counted, without a new rev", async () => {
    const ws = await newWorkspace(a, "ws_read");
    const r1 = await a.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "read me")));
    const r2 = await a.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "not me")));
    await b.recordRead(ws, [r1.id], T0 + 20);
    await a.recordRead(ws, [], T0 + 21);
    const both = await a.getMemories(ws, [r1.id, r2.id]);
    const [read, unread] = [both.find((m) => m.id === r1.id), both.find((m) => m.id === r2.id)];
    expect([read!.access_count, read!.last_accessed_at, read!.rev]).toEqual([1, T0 + 20, 1]);
    expect([unread!.access_count, unread!.last_accessed_at]).toEqual([0, null]);
    expect(await b.usageCounts(ws)).toEqual({ write: 0, read: 2 });
  });

  it("keeps room on each page, so the read bookkeeping's updates stay on their rows' pages (no index entries)", async () => {
    const ws = await newWorkspace(a, "ws_hot");
    // Rows the size of a real memory's (384 floats, a sentence), written in one transaction as an import packs them.
    const vector = Array.from({ length: 384 }, (_, k) => Math.sin(k + 1));
    const ids = await a.writeInWorkspace(ws, async (tx) => {
      const out: number[] = [];
      for (let i = 0; i < 100; i++)
        out.push(
          (await tx.insertMemory(memory(ws, `Fact ${i}: the quarterly report for region ${i} is due on the ${i % 28}th.`, vector))).id,
        );
      return out;
    });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const pages = async () =>
        new Map(
          (await client.query("SELECT id, (ctid::text::point)[0] AS page FROM memories WHERE id = ANY($1::bigint[])", [ids])).rows.map(
            (r) => [Number(r.id), Number(r.page)],
          ),
        );
      const before = await pages();
      // One flush touching a row on every page, as retrievals scattered over a large workspace touch them.
      const onePerPage = [...new Map([...before].map(([id, page]) => [page, id])).values()];
      expect(onePerPage.length).toBeGreaterThanOrEqual(5);
      await a.recordReads([
        { workspaceId: ws, touched: onePerPage.map((id) => ({ id, count: 1, lastAtMs: T0 + 1 })), readsAtMs: [T0 + 1] },
      ]);
      const after = await pages();
      // Packed pages (fillfactor 100) have no room for a row's new version: it goes to another page, with an entry in
      // every index (the lexical GIN index: one per word); here it stays (a HOT update).
      expect(onePerPage.filter((id) => after.get(id) !== before.get(id))).toEqual([]);
      const touched = new Set(onePerPage);
      expect((await a.getMemories(ws, ids)).every((m) => m.access_count === (touched.has(m.id) ? 1 : 0))).toBe(true);
    } finally {
      await client.end();
    }
  });

  it("shares one token bucket per key between processes", async () => {
    const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).takeRateToken(101, 1, 10, T0)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    const denied = decisions.find((d) => !d.allowed)!;
    expect(denied.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await a.takeRateToken(101, 1, 10, T0 + 1_000)).allowed).toBe(true);
    expect((await b.takeRateToken(101, 1, 10, T0 + 1_000)).allowed).toBe(false);
    expect((await b.takeRateToken(102, 1, 10, T0)).allowed).toBe(true);
  });

  it("makes the first workspace exactly once when three processes race on an empty database", async () => {
    const fresh = await cluster.createDatabase();
    const stores = await Promise.all([openPostgresStore(fresh), openPostgresStore(fresh), openPostgresStore(fresh)]);
    try {
      const made = await Promise.all(
        stores.map((s, i) =>
          s.insertFirstWorkspace(
            { name: `default_${i}`, plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 },
            { key_hash: `hash_first_${i}`, prefix: "svc_ws_abcd", created_at: T0 },
          ),
        ),
      );
      expect(made.filter(Boolean)).toHaveLength(1);
      const winner = made.findIndex(Boolean);
      expect(made[winner]).toMatchObject({ workspace: { id: 1, name: `default_${winner}` }, keyId: 1 });
      expect(await stores[0]!.countWorkspaces()).toBe(1);
      expect((await stores[1]!.findKeyByHash(`hash_first_${winner}`))?.workspace.id).toBe(1);
      // Once there is a workspace, no later start makes another.
      expect(
        await stores[2]!.insertFirstWorkspace(
          { name: "late", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 },
          { key_hash: "hash_late", prefix: "svc_ws_abcd", created_at: T0 },
        ),
      ).toBeNull();
      expect(await stores[2]!.findKeyByHash("hash_late")).toBeNull();
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("counts health's signals in SQL as counting the records does, with characters as code points", async () => {
    const ws = await newWorkspace(a, "ws_health");
    const ws2 = await newWorkspace(a, "ws_health2");
    await seedHealthWorkspace(a, ws);
    await seedHealthWorkspace(b, ws2);
    const query = healthCountsQuery(HEALTH_NOW, FIXTURE_EMBEDDER);
    expect(await b.healthCounts(ws, query)).toEqual(EXPECTED_COUNTS);
    expect(countHealthSignals(await a.listMemories(ws), query)).toEqual(EXPECTED_COUNTS);
    expect(await a.healthCounts(999_999, query)).toEqual(EMPTY_COUNTS);
  });

  it("answers store_unavailable while the database is down and recovers by itself when it is back", async () => {
    const ws = await newWorkspace(a, "ws_down");
    expect(await a.ping()).toBe(true);
    // A store given a log and a URL with a password: it says the database went away and came back, never the password.
    const lines: string[] = [];
    const capture = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
      lines.push(JSON.stringify({ level, msg, ...fields }));
    const log: ServiceLog = { debug: capture("debug"), info: capture("info"), warn: capture("warn"), error: capture("error") };
    const withPassword = new URL(url);
    withPassword.password = "Pw-store-s3cret";
    const c = await openPostgresStore(withPassword.toString(), { log });
    expect(await c.ping()).toBe(true);
    await cluster.kill();
    expect(await c.ping()).toBe(false);
    expect(await a.ping()).toBe(false);
    const failures = await Promise.allSettled([
      a.countMemories(ws),
      b.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "lost"))),
      a.takeRateToken(103, 1, 10, T0),
    ]);
    for (const f of failures) {
      expect(f.status).toBe("rejected");
      expect((f as PromiseRejectedResult).reason).toBeInstanceOf(ServiceError);
      expect((f as PromiseRejectedResult).reason.code).toBe("store_unavailable");
    }
    await cluster.start();
    expect(await a.ping()).toBe(true);
    await b.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "kept")));
    expect(await a.countMemories(ws)).toBe(1);
    expect(await c.ping()).toBe(true);
    await c.close();
    const levels = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(levels.filter((l) => l.level === "warn" && /postgres unreachable/.test(l.msg))).toHaveLength(1);
    expect(levels.at(-1)).toMatchObject({ level: "info", msg: "postgres reachable again" });
    expect(lines.join("\n")).not.toContain("Pw-store-s3cret");
  });

  it("survives a fast restart of the database with connections open in both pools", async () => {
    const ws = await newWorkspace(a, "ws_restart");
    await a.countMemories(ws);
    await b.countMemories(ws);
    await cluster.restart();
    // The first query on a connection cut by the restart may fail as unavailable; the pool then reconnects.
    const retry = async <T>(f: () => Promise<T>): Promise<T> => {
      for (let i = 0; ; i++) {
        try {
          return await f();
        } catch (err) {
          if (i >= 3 || (err as ServiceError).code !== "store_unavailable") throw err;
        }
      }
    };
    await retry(() => a.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "after"))));
    expect(await retry(() => b.countMemories(ws))).toBe(1);
  });

  it("reports an unreachable database at open as store_unavailable", async () => {
    const dead = url.replace(/:\d+\//, ":1/");
    await expect(openPostgresStore(dead, { connectTimeoutMs: 1_000 })).rejects.toMatchObject({ code: "store_unavailable" });
  });
});
