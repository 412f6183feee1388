// Health's signals counted by the SQLite store in SQL: the same numbers as counting the records in JavaScript, every
// threshold edge on its documented side, characters counted as code points, and the same response as before.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { countHealthSignals, diagnose, healthCountsQuery, healthReport } from "../../src/service/health/index.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import { EMPTY_COUNTS, EXPECTED_COUNTS, FIXTURE_EMBEDDER, HEALTH_NOW, seedHealthWorkspace } from "./health-fixture.js";
import { openTestService, pinnedClock, tempDir, workspaceOf } from "./support.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const workspace = (name: string) => ({ name, plan: "free", billing_cycle: "monthly", status: "active" as const, created_at: HEALTH_NOW });

describe("health counts in the SQLite store", () => {
  it("counts stale, overlong and never-retrieved memories on the right side of every threshold, per workspace", async () => {
    const store = openSqliteStore(join(tmp.dir, "counts.db"));
    const a = await store.insertWorkspace(workspace("a"));
    const b = await store.insertWorkspace(workspace("b"));
    const empty = await store.insertWorkspace(workspace("empty"));
    await seedHealthWorkspace(store, a.id);
    await seedHealthWorkspace(store, b.id);
    const query = healthCountsQuery(HEALTH_NOW, FIXTURE_EMBEDDER);

    expect(await store.healthCounts(a.id, query)).toEqual(EXPECTED_COUNTS);
    expect(countHealthSignals(await store.listMemories(a.id), query)).toEqual(EXPECTED_COUNTS);
    expect(await store.healthCounts(empty.id, query)).toEqual(EMPTY_COUNTS);
    await store.close();
  });

  it("a text of 1,000 characters with an emoji (1,001 UTF-16 units) is not overlong; 1,001 characters is", async () => {
    const store = openSqliteStore(join(tmp.dir, "emoji.db"));
    const e = await store.insertWorkspace(workspace("e"));
    await seedHealthWorkspace(store, e.id);
    const overlong = (await store.listMemories(e.id))
      .filter((m) => countHealthSignals([m], healthCountsQuery(HEALTH_NOW, FIXTURE_EMBEDDER)).overlong === 1)
      .map((m) => m.meta.crafted)
      .sort();
    expect(overlong).toEqual(["mem_1001", "mem_accents_1001", "mem_emoji_1001"]);
    expect((await store.healthCounts(e.id, healthCountsQuery(HEALTH_NOW, FIXTURE_EMBEDDER))).overlong).toBe(3);
    await store.close();
  });

  it("the service's health answer is byte for byte what diagnose gives over the same records", async () => {
    const dbPath = join(tmp.dir, "service.db");
    const service = await openTestService(dbPath, { clock: pinnedClock(new Date(HEALTH_NOW).toISOString()) });
    const { ws, auth } = await workspaceOf(service);
    const store = openSqliteStore(dbPath);
    await seedHealthWorkspace(store, ws.id);

    const health = await service.health(auth);
    const fromRecords = diagnose({
      memories: await store.listMemories(ws.id),
      duplicatePairs: health.signals.duplicate_memories,
      nowMs: HEALTH_NOW,
      embedderId: FIXTURE_EMBEDDER,
    });
    expect(JSON.stringify(health)).toBe(JSON.stringify(fromRecords));
    expect(health.signals).toEqual({
      total_memories: 16,
      stale_memories: 4,
      duplicate_memories: 0,
      overlong_memories: 3,
      never_retrieved_memories: 3,
      open_recommendations: 4,
    });
    const byCode = Object.fromEntries(health.recommendations.map((r) => [r.code, r]));
    expect(health.recommendations[0]!.code).toBe("memories_need_reembedding");
    expect(byCode.memories_need_reembedding).toMatchObject({ count: 1, message: expect.stringContaining("brain-mcp admin reembed") });
    expect(byCode.stale_memories!.message).toContain("4 memories are stale: 2 expired, 2 untouched for 90 days");
    await store.close();
    await service.close();
  });

  it("healthReport turns counts into the documented response: recommendations in order, score to one decimal", () => {
    const report = healthReport({
      counts: { total: 10, expired: 1, untouched: 2, overlong: 1, neverRetrieved: 4, otherModel: 2 },
      duplicatePairs: 1,
      nowMs: HEALTH_NOW,
    });
    // 100 × (1 − (0.35·3/10 + 0.30·2/10 + 0.20·4/10 + 0.15·1/10)) = 74.0 (memories needing re-embedding: no penalty)
    expect(report).toEqual({
      quality_score: 74,
      signals: {
        total_memories: 10,
        stale_memories: 3,
        duplicate_memories: 1,
        overlong_memories: 1,
        never_retrieved_memories: 4,
        open_recommendations: 5,
      },
      recommendations: [
        expect.objectContaining({ code: "memories_need_reembedding", count: 2 }),
        expect.objectContaining({ code: "stale_memories", count: 3 }),
        expect.objectContaining({ code: "duplicate_memories", count: 1 }),
        expect.objectContaining({ code: "overlong_memories", count: 1 }),
        expect.objectContaining({ code: "never_retrieved_memories", count: 4 }),
      ],
      generated_at: "2025-06-01T12:00:00Z",
    });
  });
});
