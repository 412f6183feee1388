// The dashboard's store queries, on SQLite and on PostgreSQL alike: health's lists hold exactly the memories its
// signals count, filters and pages narrow as documented, chart counts group by UTC day, category and importance,
// and the duplicate pairs listed are the pairs health counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { countDuplicatePairs, listDuplicatePairs } from "../../src/service/health/duplicates.js";
import { healthCountsQuery } from "../../src/service/health/index.js";
import { VectorIndexes, storeSource } from "../../src/service/retrieval/vector-index.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import type { MemoryFilter, MemoryStore, NewMemory } from "../../src/service/store/types.js";
import { DAY_MS } from "../../src/service/time.js";
import { FIXTURE_EMBEDDER, HEALTH_NOW, seedHealthWorkspace } from "../core/health-fixture.js";
import { tempDir } from "../core/support.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";

const tmp = tempDir();
let cluster: PgCluster | undefined;
afterAll(async () => {
  await cluster?.stop();
  tmp.cleanup();
});

const workspace = (name: string) => ({ name, plan: "free", billing_cycle: "monthly", status: "active" as const, created_at: HEALTH_NOW });

/** Memories for the filters: [name, categories, importance, temporal, created days before HEALTH_NOW]. */
const VARIED: [string, string[], number, "persistent" | "time_bound", number][] = [
  ["deploy", ["technical", "infrastructure"], 8, "persistent", 0.5],
  ["lunch", ["personal", "health"], 3, "persistent", 2],
  ["offsite", ["work", "meeting"], 6, "time_bound", 10],
  ["rollback", ["technical", "process"], 9, "persistent", 40],
  ["plants", ["personal", "task"], 2, "time_bound", 100],
];

function varied(workspaceId: number, [name, categories, importance, temporal, age]: (typeof VARIED)[number]): NewMemory {
  return {
    workspace_id: workspaceId,
    text: `memory ${name}`,
    meta: { name },
    vector: new Float32Array([1, 0, 0]),
    embedder_id: FIXTURE_EMBEDDER,
    importance,
    temporal_type: temporal,
    valid_until: temporal === "time_bound" ? HEALTH_NOW + 30 * DAY_MS : null,
    categories,
    created_at: HEALTH_NOW - age * DAY_MS,
  };
}

const STORES: { name: string; skip: boolean; open: () => Promise<MemoryStore> }[] = [
  { name: "SQLite", skip: false, open: async () => openSqliteStore(join(tmp.dir, "queries.db")) },
  {
    name: "PostgreSQL",
    skip: !canStartPostgres(),
    open: async () => {
      cluster ??= await startPostgres();
      const { openPostgresStore } = await import("../../src/service/store/postgres/index.js");
      return openPostgresStore(await cluster.createDatabase());
    },
  },
];

for (const { name, skip, open } of STORES) {
  describe.skipIf(skip)(`the dashboard's queries on ${name}`, () => {
    let store: MemoryStore;
    let crafted: number;
    let filters: number;
    beforeAll(async () => {
      store = await open();
      crafted = (await store.insertWorkspace(workspace("crafted"))).id;
      filters = (await store.insertWorkspace(workspace("filters"))).id;
      await seedHealthWorkspace(store, crafted);
      await store.writeInWorkspace(filters, async (tx) => {
        for (const v of VARIED) await tx.insertMemory(varied(filters, v));
      });
      // recalls: two on the day before HEALTH_NOW, one on its day; a write event that is not a recall
      await store.recordUsage(filters, "read", null, HEALTH_NOW - DAY_MS);
      await store.recordUsage(filters, "read", null, HEALTH_NOW - DAY_MS + 1000);
      await store.recordUsage(filters, "read", null, HEALTH_NOW);
      await store.recordUsage(filters, "write", null, HEALTH_NOW);
    }, 60_000);
    afterAll(async () => {
      await store?.close();
    });

    const names = async (workspaceId: number, filter: MemoryFilter, key = "name") => {
      const page = await store.browseMemories(workspaceId, filter, { limit: 100, offset: 0 });
      expect(page.total).toBe(page.memories.length);
      return page.memories.map((m) => m.meta[key]).sort();
    };

    it("each health list holds exactly the memories its signal counts, on the same side of every threshold", async () => {
      const query = healthCountsQuery(HEALTH_NOW, FIXTURE_EMBEDDER);
      const counts = await store.healthCounts(crafted, query);
      const list = (kind: "stale" | "never_retrieved" | "overlong") => names(crafted, { signal: { kind, query } }, "crafted");
      const stale = await list("stale");
      expect(stale).toEqual(["mem_accessed_old", "mem_expired", "mem_expired_untouched", "mem_untouched"]);
      expect(stale).toHaveLength(counts.expired + counts.untouched);
      const never = await list("never_retrieved");
      expect(never).toEqual(["mem_expired_untouched", "mem_untouched", "mem_untouched_edge"]);
      expect(never).toHaveLength(counts.neverRetrieved);
      const overlong = await list("overlong");
      expect(overlong).toEqual(["mem_1001", "mem_accents_1001", "mem_emoji_1001"]);
      expect(overlong).toHaveLength(counts.overlong);
    });

    it("filters by category, temporal type, importance, age and ids, each narrowing the others", async () => {
      expect(await names(filters, { category: "technical" })).toEqual(["deploy", "rollback"]);
      expect(await names(filters, { category: "health" })).toEqual(["lunch"]); // a topic, not only the domain
      expect(await names(filters, { category: "tech" })).toEqual([]); // whole labels only
      expect(await names(filters, { temporalType: "time_bound" })).toEqual(["offsite", "plants"]);
      expect(await names(filters, { minImportance: 6 })).toEqual(["deploy", "offsite", "rollback"]);
      expect(await names(filters, { maxImportance: 3 })).toEqual(["lunch", "plants"]);
      expect(await names(filters, { createdFromMs: HEALTH_NOW - 7 * DAY_MS })).toEqual(["deploy", "lunch"]);
      expect(await names(filters, { createdBeforeMs: HEALTH_NOW - 30 * DAY_MS })).toEqual(["plants", "rollback"]);
      expect(await names(filters, { category: "technical", minImportance: 9 })).toEqual(["rollback"]);
      const all = await store.browseMemories(filters, {}, { limit: 100, offset: 0 });
      const ids = all.memories.filter((m) => ["lunch", "plants", "deploy"].includes(m.meta.name as string)).map((m) => m.id);
      expect(await names(filters, { ids })).toEqual(["deploy", "lunch", "plants"]);
      expect(await names(filters, { ids, category: "personal" })).toEqual(["lunch", "plants"]);
      expect(await names(filters, { ids: [] })).toEqual([]);
      // another workspace's memories never match, whatever the filter
      expect(await names(crafted, { ids })).toEqual([]);
    });

    it("pages newest first and counts every match", async () => {
      const first = await store.browseMemories(filters, {}, { limit: 2, offset: 0 });
      const rest = await store.browseMemories(filters, {}, { limit: 2, offset: 2 });
      const last = await store.browseMemories(filters, {}, { limit: 2, offset: 4 });
      expect([first.total, rest.total, last.total]).toEqual([5, 5, 5]);
      expect([...first.memories, ...rest.memories, ...last.memories].map((m) => m.meta.name)).toEqual([
        "deploy",
        "lunch",
        "offsite",
        "rollback",
        "plants",
      ]);
    });

    it("counts for the charts group by UTC day, category and importance; recalls count read events only", async () => {
      const stats = await store.memoryStats(filters);
      const day = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
      expect(stats.createdPerDay).toEqual(
        VARIED.map((v) => day(HEALTH_NOW - v[4] * DAY_MS))
          .sort((a, b) => a - b)
          .map((d) => ({ day: d, count: 1 })),
      );
      expect(stats.categories.slice(0, 2)).toEqual([
        { category: "personal", count: 2 },
        { category: "technical", count: 2 },
      ]);
      expect(stats.categories).toHaveLength(8);
      expect(stats.importance).toEqual([2, 3, 6, 8, 9].map((importance) => ({ importance, count: 1 })));
      expect(stats.recallsPerDay).toEqual([
        { day: day(HEALTH_NOW - DAY_MS), count: 2 },
        { day: day(HEALTH_NOW), count: 1 },
      ]);
      expect(await store.memoryStats(filters + 1000)).toEqual({ createdPerDay: [], categories: [], importance: [], recallsPerDay: [] });
    });

    it("usage per day and between two times counts billable writes and reads, never deletions", async () => {
      const day = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
      expect(await store.usagePerDay(filters)).toEqual([
        { day: day(HEALTH_NOW - DAY_MS), write: 0, read: 2 },
        { day: day(HEALTH_NOW), write: 1, read: 1 },
      ]);
      expect(await store.usagePerDay(filters + 1000)).toEqual([]);
      // a billing cycle's bounds: [from, to)
      expect(await store.usageBetween(filters, HEALTH_NOW - DAY_MS, HEALTH_NOW)).toEqual({ write: 0, read: 2 });
      expect(await store.usageBetween(filters, HEALTH_NOW - DAY_MS + 1, HEALTH_NOW + 1)).toEqual({ write: 1, read: 2 });
      expect(await store.usageBetween(filters + 1000, 0, HEALTH_NOW + 1)).toEqual({ write: 0, read: 0 });
    });

    it("forgetting removes the row, its vector and the idempotent answers naming it, leaves a tombstone every cache applies, and never reuses a rev", async () => {
      const ws = (await store.insertWorkspace(workspace("forget"))).id;
      const made = await store.writeInWorkspace(ws, async (tx) => {
        const rows = [];
        for (const v of VARIED.slice(0, 3)) rows.push(await tx.insertMemory(varied(ws, v)));
        await tx.putIdempotency(
          { workspace_id: ws, key: "k-last", request_hash: "h", response: { memory_id: rows[2]!.id }, created_at: HEALTH_NOW },
          0,
        );
        await tx.putIdempotency(
          { workspace_id: ws, key: "k-first", request_hash: "h", response: { memory_id: rows[0]!.id }, created_at: HEALTH_NOW },
          0,
        );
        return rows;
      });
      const cached = new VectorIndexes(3, FIXTURE_EMBEDDER);
      const index = await cached.refresh(ws, storeSource(store, ws));
      expect(index.size).toBe(3);
      const newest = made[2]!; // the highest rev: its forgetting must not let the next write reuse it

      expect(await store.deleteMemories(ws, [newest.id, newest.id, 999_999])).toEqual([newest.id]);
      expect(await store.deleteMemories(ws, [newest.id])).toEqual([]); // already gone
      expect(await store.getMemories(ws, [newest.id])).toEqual([]);
      expect(await store.countMemories(ws)).toBe(2);
      expect(await store.getIdempotency(ws, "k-last", 0)).toBeNull();
      expect(await store.getIdempotency(ws, "k-first", 0)).not.toBeNull();
      // a cache built before the forgetting drops it on its next refresh; one built after never sees it
      expect((await cached.refresh(ws, storeSource(store, ws))).size).toBe(2);
      const fresh = await new VectorIndexes(3, FIXTURE_EMBEDDER).refresh(ws, storeSource(store, ws));
      expect(fresh.size).toBe(2);
      const tombstone = (await store.vectorsSince(ws, newest.rev)).find((r) => r.id === newest.id)!;
      expect(tombstone.rev).toBeGreaterThan(newest.rev);
      expect(tombstone.vector).toHaveLength(0);

      const next = await store.writeInWorkspace(ws, (tx) => tx.insertMemory(varied(ws, VARIED[3]!)));
      expect(next.rev).toBeGreaterThan(tombstone.rev);
      expect((await cached.refresh(ws, storeSource(store, ws))).size).toBe(3);
      // another workspace's memory is never forgotten through this one
      const other = (await store.browseMemories(filters, {}, { limit: 1, offset: 0 })).memories[0]!;
      expect(await store.deleteMemories(ws, [other.id])).toEqual([]);
      expect(await store.getMemories(filters, [other.id])).toHaveLength(1);
      // the deletion is a usage event, not a billable one
      expect(await store.usageCounts(ws)).toEqual({ write: 0, read: 0 });
      expect(await store.usagePerDay(ws)).toEqual([]);
      expect(await store.usageBetween(ws, 0, Number.MAX_SAFE_INTEGER)).toEqual({ write: 0, read: 0 });
    });

    it("lists a workspace's keys with their last use, recorded only when older than asked", async () => {
      const ws = (await store.insertWorkspace(workspace("keys"))).id;
      const first = await store.insertKey({ workspace_id: ws, key_hash: `h1-${ws}`, prefix: "svc_ws_aaaa", created_at: HEALTH_NOW });
      const second = await store.insertKey({ workspace_id: ws, key_hash: `h2-${ws}`, prefix: "svc_ws_bbbb", created_at: HEALTH_NOW + 1 });
      await store.markKeyUsed(first, HEALTH_NOW + 10, HEALTH_NOW + 10 - 60_000);
      await store.markKeyUsed(first, HEALTH_NOW + 20, HEALTH_NOW + 20 - 60_000); // within the minute: kept as is
      await store.revokeKey(second, HEALTH_NOW + 30);
      expect(await store.listKeys(ws)).toEqual([
        { id: first, prefix: "svc_ws_aaaa", created_at: HEALTH_NOW, last_used_at: HEALTH_NOW + 10, revoked_at: null },
        { id: second, prefix: "svc_ws_bbbb", created_at: HEALTH_NOW + 1, last_used_at: null, revoked_at: HEALTH_NOW + 30 },
      ]);
      await store.markKeyUsed(first, HEALTH_NOW + 70_000, HEALTH_NOW + 10_000);
      expect((await store.listKeys(ws))[0]!.last_used_at).toBe(HEALTH_NOW + 70_000);
    });
  });
}

describe("the duplicate pairs the dashboard lists", () => {
  it("are the pairs health counts, most similar first, with both ids, at most as many as asked", async () => {
    const dims = 8;
    const unit = (values: number[]) => {
      const v = new Float32Array(dims);
      values.forEach((x, i) => (v[i] = x));
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const vectors = [unit([1]), unit([1, 0.1]), unit([0, 1]), unit([0, 1, 0.3]), unit([0, 0, 0, 1])];
    const rows = vectors.map((vector, i) => ({ id: 10 + i, rev: i + 1, embedder_id: "emb", vector }));
    const indexes = new VectorIndexes(dims, "emb");
    const floats = async (ids: readonly number[]) => rows.filter((r) => ids.includes(r.id));
    const index = await indexes.refresh(1, {
      vectorsSince: async (since) => rows.filter((r) => r.rev > since),
      vectorsOf: floats,
    });
    const pairs = await listDuplicatePairs(index, 0.9, 100, floats);
    expect(pairs).toHaveLength(await countDuplicatePairs(index, 0.9, floats));
    expect(pairs.map((p) => [p.a, p.b].sort())).toEqual([
      [10, 11],
      [12, 13],
    ]);
    expect(pairs[0]!.cosine).toBeGreaterThan(pairs[1]!.cosine);
    expect(pairs[0]!.cosine).toBeCloseTo(1 / Math.hypot(1, 0.1), 5);
    expect(await listDuplicatePairs(index, 0.9, 1, floats)).toEqual([pairs[0]]);
  });
});
