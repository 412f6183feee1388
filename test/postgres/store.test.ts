// The PostgreSQL store on its own, with two stores (two pools, as two service processes would have) on one database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { openPostgresStore, type PostgresStore } from "../../src/service/store/postgres.js";
import type { NewMemory } from "../../src/service/store/types.js";
import { countHealthSignals, healthCountsQuery } from "../../src/service/health/index.js";
import { ServiceError, type ServiceLog } from "../../src/service/types.js";
import { EMPTY_COUNTS, EXPECTED_COUNTS, FIXTURE_EMBEDDER, HEALTH_NOW, seedHealthWorkspace } from "../core/health-fixture.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";

const T0 = Date.UTC(2025, 0, 1);

function memory(id: string, workspaceId: string, text: string, vector = [1, 0, 0]): NewMemory {
  return {
    id,
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

async function newWorkspace(store: PostgresStore, id: string) {
  await store.insertWorkspace({ id, name: id, plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 });
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
    expect(rows.map((r) => r.version)).toEqual([1]);
    const again = await openPostgresStore(url);
    expect(await again.migrate()).toEqual([]);
    await again.close();
  });

  it("keeps workspaces, keys and revocation, and renders timestamps as ISO seconds", async () => {
    await newWorkspace(a, "ws_keys");
    await a.insertKey({ id: "key_1", workspace_id: "ws_keys", key_hash: "h1", prefix: "svc_ws_abcd", created_at: T0 });
    const found = await b.findKeyByHash("h1");
    expect(found?.keyId).toBe("key_1");
    expect(found?.workspace).toMatchObject({ id: "ws_keys", status: "active", created_at: "2025-01-01T00:00:00Z" });
    expect((await b.setWorkspaceStatus("ws_keys", "suspended"))?.status).toBe("suspended");
    expect((await a.getWorkspace("ws_keys"))?.status).toBe("suspended");
    expect(await a.setWorkspaceStatus("ws_missing", "active")).toBeNull();
    expect(await b.revokeKey("key_1", T0)).toBe(true);
    expect(await a.revokeKey("key_1", T0)).toBe(false);
    expect(await a.findKeyByHash("h1")).toBeNull();
    expect(await a.countWorkspaces()).toBeGreaterThanOrEqual(1);
  });

  it("round-trips a memory's vector, meta and categories, and bumps rev on every update but not on access", async () => {
    await newWorkspace(a, "ws_rev");
    const first = await a.writeInWorkspace("ws_rev", (tx) => tx.insertMemory(memory("mem_1", "ws_rev", "one", [0.5, -0.25, 3.75])));
    const second = await b.writeInWorkspace("ws_rev", (tx) => tx.insertMemory(memory("mem_2", "ws_rev", "two")));
    expect([first.rev, second.rev]).toEqual([1, 2]);
    expect(first).toMatchObject({ meta: { source: "test", z: 1, a: 2 }, categories: ["work", "project"], access_count: 0, updated_at: T0 });
    expect(Object.keys(first.meta)).toEqual(["source", "z", "a"]);

    const merged = await b.writeInWorkspace("ws_rev", (tx) =>
      tx.updateMemory("mem_1", { text: "one, richer", importance: 9, meta: { x: true } }, T0 + 5),
    );
    expect(merged).toMatchObject({ text: "one, richer", importance: 9, rev: 3, updated_at: T0 + 5, meta: { x: true } });

    await a.touchMemories("ws_rev", ["mem_1", "mem_2"], T0 + 10);
    const touched = await b.getMemories("ws_rev", ["mem_1", "mem_2", "mem_unknown"]);
    expect(touched.map((m) => [m.id, m.access_count, m.last_accessed_at, m.rev]).sort()).toEqual([
      ["mem_1", 1, T0 + 10, 3],
      ["mem_2", 1, T0 + 10, 2],
    ]);

    const vectors = await b.vectorsSince("ws_rev", 0);
    expect(vectors.map((v) => [v.id, v.rev])).toEqual([
      ["mem_2", 2],
      ["mem_1", 3],
    ]);
    expect(Array.from(vectors[1]!.vector)).toEqual([0.5, -0.25, 3.75]);
    expect((await a.vectorsSince("ws_rev", 2)).map((v) => v.id)).toEqual(["mem_1"]);
    expect(await a.countMemories("ws_rev")).toBe(2);
    expect((await a.listMemories("ws_rev")).map((m) => m.id)).toEqual(["mem_1", "mem_2"]);
    expect(await a.memoriesNotEmbeddedBy("emb-a", 10, "ws_rev")).toEqual([]);
    expect((await a.memoriesNotEmbeddedBy("emb-b", 10, "ws_rev")).length).toBe(2);
  });

  it("serializes writes to one workspace across processes: 40 concurrent identical writes make one memory", async () => {
    await newWorkspace(a, "ws_race");
    const writes = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? a : b).writeInWorkspace("ws_race", async (tx) => {
        // What the pipeline's dedup does: look at what exists, then insert only if the fact is new.
        const existing = await tx.vectorsSince(0);
        if (existing.length > 0) return existing[0]!.id;
        const m = await tx.insertMemory(memory(`mem_race_${i}`, "ws_race", "the same fact"));
        return m.id;
      }),
    );
    const ids = await Promise.all(writes);
    expect(new Set(ids).size).toBe(1);
    expect(await a.countMemories("ws_race")).toBe(1);
  });

  it("assigns revs that readers in the other process never skip, under concurrent inserts", async () => {
    await newWorkspace(a, "ws_revrace");
    let seen = 0;
    const cached = new Set<string>();
    const reader = (async () => {
      for (let round = 0; round < 40; round++) {
        for (const v of await b.vectorsSince("ws_revrace", seen)) {
          cached.add(v.id);
          seen = Math.max(seen, v.rev);
        }
      }
    })();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? a : b).writeInWorkspace("ws_revrace", (tx) => tx.insertMemory(memory(`mem_rr_${i}`, "ws_revrace", `fact ${i}`))),
      ),
    );
    await reader;
    for (const v of await b.vectorsSince("ws_revrace", seen)) cached.add(v.id);
    expect(cached.size).toBe(30);
    const revs = (await a.vectorsSince("ws_revrace", 0)).map((v) => v.rev);
    expect(revs).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it("rolls back a write whose pipeline step throws, and releases the lock", async () => {
    await newWorkspace(a, "ws_rollback");
    await expect(
      a.writeInWorkspace("ws_rollback", async (tx) => {
        await tx.insertMemory(memory("mem_rb", "ws_rollback", "never kept"));
        throw new ServiceError("idempotency_key_reused", "different body");
      }),
    ).rejects.toMatchObject({ code: "idempotency_key_reused" });
    expect(await b.countMemories("ws_rollback")).toBe(0);
    await b.writeInWorkspace("ws_rollback", (tx) => tx.insertMemory(memory("mem_rb2", "ws_rollback", "kept")));
    expect(await a.countMemories("ws_rollback")).toBe(1);
  });

  it("keeps idempotency records per workspace across processes and expires old ones", async () => {
    await newWorkspace(a, "ws_idem");
    await newWorkspace(a, "ws_idem2");
    const response = { status: "ok", memory_id: "mem_x", dedup: { action: "stored_new", existing_id: null } };
    await a.writeInWorkspace("ws_idem", (tx) =>
      tx.putIdempotency({ workspace_id: "ws_idem", key: "k1", request_hash: "rh", response, created_at: T0 }, T0 - 1),
    );
    expect(await b.getIdempotency("ws_idem", "k1", T0 - 1000)).toMatchObject({ request_hash: "rh", response });
    expect(await b.getIdempotency("ws_idem2", "k1", T0 - 1000)).toBeNull();
    expect(await b.getIdempotency("ws_idem", "k1", T0 + 1)).toBeNull();
    await b.writeInWorkspace("ws_idem", async (tx) => {
      expect(await tx.getIdempotency("k1", T0)).not.toBeNull();
      await tx.putIdempotency({ workspace_id: "ws_idem", key: "k2", request_hash: "rh2", response: {}, created_at: T0 + 100 }, T0 + 50);
    });
    expect(await a.getIdempotency("ws_idem", "k1", 0)).toBeNull();
    expect(await a.getIdempotency("ws_idem", "k2", 0)).not.toBeNull();
  });

  it("counts usage events written inside and outside the write lock", async () => {
    await newWorkspace(a, "ws_usage");
    await a.writeInWorkspace("ws_usage", (tx) => tx.recordUsage("write", "mem_u", T0));
    await b.recordUsage("ws_usage", "read", null, T0);
    await b.recordUsage("ws_usage", "read", null, T0);
    expect(await a.usageCounts("ws_usage")).toEqual({ write: 1, read: 2 });
  });

  it("records a read in one step: the returned memories are touched and one read is counted, without a new rev", async () => {
    await newWorkspace(a, "ws_read");
    await a.writeInWorkspace("ws_read", (tx) => tx.insertMemory(memory("mem_r1", "ws_read", "read me")));
    await a.writeInWorkspace("ws_read", (tx) => tx.insertMemory(memory("mem_r2", "ws_read", "not me")));
    await b.recordRead("ws_read", ["mem_r1"], T0 + 20);
    await a.recordRead("ws_read", [], T0 + 21);
    const [read, unread] = await a.getMemories("ws_read", ["mem_r1", "mem_r2"]).then((ms) => ms.sort((x, y) => x.id.localeCompare(y.id)));
    expect([read!.access_count, read!.last_accessed_at, read!.rev]).toEqual([1, T0 + 20, 1]);
    expect([unread!.access_count, unread!.last_accessed_at]).toEqual([0, null]);
    expect(await b.usageCounts("ws_read")).toEqual({ write: 0, read: 2 });
  });

  it("shares one token bucket per key between processes", async () => {
    const decisions = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).takeRateToken("key_rl", 1, 10, T0)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    const denied = decisions.find((d) => !d.allowed)!;
    expect(denied.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await a.takeRateToken("key_rl", 1, 10, T0 + 1_000)).allowed).toBe(true);
    expect((await b.takeRateToken("key_rl", 1, 10, T0 + 1_000)).allowed).toBe(false);
    expect((await b.takeRateToken("key_other", 1, 10, T0)).allowed).toBe(true);
  });

  it("makes the first workspace exactly once when three processes race on an empty database", async () => {
    const fresh = await cluster.createDatabase();
    const stores = await Promise.all([openPostgresStore(fresh), openPostgresStore(fresh), openPostgresStore(fresh)]);
    try {
      const made = await Promise.all(
        stores.map((s, i) =>
          s.insertFirstWorkspace(
            { id: `ws_first_${i}`, name: "default", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 },
            { id: `key_first_${i}`, workspace_id: `ws_first_${i}`, key_hash: `hash_first_${i}`, prefix: "svc_ws_abcd", created_at: T0 },
          ),
        ),
      );
      expect(made.filter(Boolean)).toHaveLength(1);
      const winner = made.indexOf(true);
      expect(await stores[0]!.countWorkspaces()).toBe(1);
      expect((await stores[1]!.findKeyByHash(`hash_first_${winner}`))?.workspace.id).toBe(`ws_first_${winner}`);
      // Once there is a workspace, no later start makes another.
      expect(
        await stores[2]!.insertFirstWorkspace(
          { id: "ws_late", name: "default", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 },
          { id: "key_late", workspace_id: "ws_late", key_hash: "hash_late", prefix: "svc_ws_abcd", created_at: T0 },
        ),
      ).toBe(false);
      expect(await stores[2]!.findKeyByHash("hash_late")).toBeNull();
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("counts health's signals in SQL as counting the records does, with characters as code points", async () => {
    await newWorkspace(a, "ws_health");
    await newWorkspace(a, "ws_health2");
    await seedHealthWorkspace(a, "ws_health");
    await seedHealthWorkspace(b, "ws_health2");
    const query = healthCountsQuery(HEALTH_NOW, FIXTURE_EMBEDDER);
    expect(await b.healthCounts("ws_health", query)).toEqual(EXPECTED_COUNTS);
    expect(countHealthSignals(await a.listMemories("ws_health"), query)).toEqual(EXPECTED_COUNTS);
    expect(await a.healthCounts("ws_nothing", query)).toEqual(EMPTY_COUNTS);
  });

  it("answers store_unavailable while the database is down and recovers by itself when it is back", async () => {
    await newWorkspace(a, "ws_down");
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
      a.countMemories("ws_down"),
      b.writeInWorkspace("ws_down", (tx) => tx.insertMemory(memory("mem_down", "ws_down", "lost"))),
      a.takeRateToken("key_down", 1, 10, T0),
    ]);
    for (const f of failures) {
      expect(f.status).toBe("rejected");
      expect((f as PromiseRejectedResult).reason).toBeInstanceOf(ServiceError);
      expect((f as PromiseRejectedResult).reason.code).toBe("store_unavailable");
    }
    await cluster.start();
    expect(await a.ping()).toBe(true);
    await b.writeInWorkspace("ws_down", (tx) => tx.insertMemory(memory("mem_up", "ws_down", "kept")));
    expect(await a.countMemories("ws_down")).toBe(1);
    expect(await c.ping()).toBe(true);
    await c.close();
    const levels = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(levels.filter((l) => l.level === "warn" && /postgres unreachable/.test(l.msg))).toHaveLength(1);
    expect(levels.at(-1)).toMatchObject({ level: "info", msg: "postgres reachable again" });
    expect(lines.join("\n")).not.toContain("Pw-store-s3cret");
  });

  it("survives a fast restart of the database with connections open in both pools", async () => {
    await newWorkspace(a, "ws_restart");
    await a.countMemories("ws_restart");
    await b.countMemories("ws_restart");
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
    await retry(() => a.writeInWorkspace("ws_restart", (tx) => tx.insertMemory(memory("mem_rs", "ws_restart", "after"))));
    expect(await retry(() => b.countMemories("ws_restart"))).toBe(1);
  });

  it("reports an unreachable database at open as store_unavailable", async () => {
    const dead = url.replace(/:\d+\//, ":1/");
    await expect(openPostgresStore(dead, { connectTimeoutMs: 1_000 })).rejects.toMatchObject({ code: "store_unavailable" });
  });
});
