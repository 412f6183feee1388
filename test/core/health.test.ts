// Health, re-embedding and the rate limiter, on crafted workspaces with a pinned clock.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openTestService, pinnedClock, tempDir, testEmbedder, workspaceOf } from "./support.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe("health", () => {
  it("an empty workspace is healthy: quality 100, no recommendations", async () => {
    const clock = pinnedClock("2025-01-01T00:00:00Z");
    const service = await openTestService(join(tmp.dir, "empty.db"), { clock });
    const { auth } = await workspaceOf(service);
    expect(await service.health(auth)).toEqual({
      quality_score: 100,
      signals: {
        total_memories: 0,
        stale_memories: 0,
        duplicate_memories: 0,
        overlong_memories: 0,
        never_retrieved_memories: 0,
        open_recommendations: 0,
      },
      recommendations: [],
      generated_at: "2025-01-01T00:00:00Z",
    });
    await service.close();
  });

  it("stale, duplicate, overlong and never-retrieved memories are counted and each gets a recommendation", async () => {
    const dbPath = join(tmp.dir, "health.db");
    const clock = pinnedClock("2025-01-01T00:00:00Z");
    // Stored under a stricter dedup threshold, so a near-duplicate pair exists once the threshold is the usual one.
    const strict = await openTestService(dbPath, { clock, embedder: testEmbedder("test-bow/1", 0.99) });
    const { auth, key } = await workspaceOf(strict);
    await strict.store(auth, { text: "the sprint review runs until 2025-01-10", meta: {} }, {});
    const filler = Array.from({ length: 160 }, (_, i) => `clause${i}`).join(" ");
    expect(filler.length).toBeGreaterThan(1000);
    await strict.store(auth, { text: filler, meta: {} }, {});
    await strict.store(auth, { text: "alpha beta gamma delta epsilon", meta: {} }, {});
    const dup = await strict.store(auth, { text: "alpha beta gamma delta epsilon zeta", meta: {} }, {});
    expect(dup.dedup.action).toBe("stored_new");
    await strict.store(auth, { text: "the cafeteria serves ramen on tuesdays", meta: {} }, {});
    await strict.close();

    const service = await openTestService(dbPath, { clock, embedder: testEmbedder("test-bow/1", 0.9) });
    const auth2 = (await service.authenticate(key.apiKey))!;
    clock.advanceDays(100);
    const recalled = await service.retrieve(auth2, { query: "cafeteria ramen", top_k: 1, min_score: 0 });
    expect(recalled.count).toBe(1);

    const health = await service.health(auth2);
    expect(health.signals).toEqual({
      total_memories: 5,
      stale_memories: 4,
      duplicate_memories: 1,
      overlong_memories: 1,
      never_retrieved_memories: 4,
      open_recommendations: 4,
    });
    // 100 × (1 − (0.35·4/5 + 0.30·2/5 + 0.20·4/5 + 0.15·1/5)) = 41.0
    expect(health.quality_score).toBe(41);
    expect(health.generated_at).toBe("2025-04-11T00:00:00Z");
    expect(health.recommendations.map((r) => [r.code, r.count])).toEqual([
      ["stale_memories", 4],
      ["duplicate_memories", 1],
      ["overlong_memories", 1],
      ["never_retrieved_memories", 4],
    ]);
    expect(health.recommendations[0]!.message).toContain("4 memories are stale: 1 expired, 3 untouched for 90 days");
    await service.close();
  });
});

describe("re-embedding", () => {
  it("memories stored by another embedder are re-embedded and become retrievable", async () => {
    const dbPath = join(tmp.dir, "reembed.db");
    const old = await openTestService(dbPath, { embedder: testEmbedder("test-bow/old") });
    const { auth, key } = await workspaceOf(old);
    await old.store(auth, { text: "the vpn endpoint moved to vpn2", meta: {} }, {});
    await old.store(auth, { text: "expense reports are due on the 25th", meta: {} }, {});
    await old.close();

    const current = await openTestService(dbPath, { embedder: testEmbedder("test-bow/new") });
    const a = (await current.authenticate(key.apiKey))!;
    expect((await current.retrieve(a, { query: "vpn endpoint", top_k: 5, min_score: 0 })).count).toBe(0);
    expect(await current.reembed()).toBe(2);
    expect(await current.reembed()).toBe(0);
    const got = await current.retrieve(a, { query: "vpn endpoint", top_k: 5, min_score: 0 });
    expect(got.memories.map((m) => m.text)).toEqual(["the vpn endpoint moved to vpn2"]);
    await current.close();
  });
});

describe("rate limit", () => {
  it("a key's bucket allows the burst, then refuses with a retry-after, then refills at the configured rate", async () => {
    const clock = pinnedClock("2025-01-01T00:00:00Z");
    const service = await openTestService(join(tmp.dir, "rate.db"), {
      clock,
      env: { BRAIN_RATE_LIMIT_RPS: "2", BRAIN_RATE_LIMIT_BURST: "3" },
    });
    for (let i = 0; i < 3; i++) expect(await service.consumeRateLimit(1)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect(await service.consumeRateLimit(1)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect((await service.consumeRateLimit(2)).allowed).toBe(true);
    clock.advanceMs(500);
    expect((await service.consumeRateLimit(1)).allowed).toBe(true);
    expect((await service.consumeRateLimit(1)).allowed).toBe(false);
    await service.close();
  });

  it("the defaults are 200 requests per second with a burst of 400", async () => {
    const clock = pinnedClock("2025-01-01T00:00:00Z");
    const service = await openTestService(join(tmp.dir, "rate2.db"), { clock });
    let allowed = 0;
    for (let i = 0; i < 450; i++) if ((await service.consumeRateLimit(3)).allowed) allowed++;
    expect(allowed).toBe(400);
    clock.advanceMs(100);
    allowed = 0;
    for (let i = 0; i < 50; i++) if ((await service.consumeRateLimit(3)).allowed) allowed++;
    expect(allowed).toBe(20);
    await service.close();
  });
});
