// Failures a deployment over PostgreSQL meets: a service process dying mid-stream, and the database restarting
// under traffic. No acknowledged write may be lost, and clients with retries ride through a restart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Brain } from "../../dist/index.js";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../../src/contract/limits.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { call, unrelatedTexts, startServe, type ServeProcess } from "./processes.js";

const ENV = { BRAIN_EMBEDDER: "lexical" };

async function expectAllRetrievable(server: ServeProcess, apiKey: string, acked: { text: string; id: number }[]) {
  const missing: string[] = [];
  for (let i = 0; i < acked.length; i += 8) {
    await Promise.all(
      acked.slice(i, i + 8).map(async ({ text, id }) => {
        const res = await call(server.url, apiKey, "retrieve", { query: text, top_k: 5 });
        expect(res.status).toBe(200);
        if (!res.body.memories.some((m: { id: number }) => m.id === id)) missing.push(text);
      }),
    );
  }
  expect(missing).toEqual([]);
}

let cluster: PgCluster;

beforeAll(async () => {
  if (canStartPostgres()) cluster = await startPostgres();
});

afterAll(async () => {
  await cluster?.stop();
});

describe.skipIf(!canStartPostgres())("a service process killed with SIGKILL mid-stream", () => {
  let a: ServeProcess;
  let b: ServeProcess;

  beforeAll(async () => {
    const url = await cluster.createDatabase();
    a = await startServe(url, { env: ENV });
    b = await startServe(url, { env: ENV });
  });

  afterAll(async () => {
    await Promise.all([a?.kill(), b?.stop()]);
  });

  it("loses no acknowledged write, and the survivor keeps writing to the same workspace", async () => {
    const key = a.apiKey!;
    const facts = unrelatedTexts(80, 23);
    const acked: { text: string; id: number }[] = [];
    let refusedByDead = 0;
    let next = 0;
    const killAfter = 20;
    let killing: Promise<void> | null = null;

    await Promise.all(
      Array.from({ length: 10 }, async (_, client) => {
        for (let step = 0; next < facts.length; step++) {
          const text = facts[next++]!;
          const server = a.alive() && (client + step) % 2 === 0 ? a : b;
          try {
            const res = await call(server.url, key, "store", { text });
            expect(res.status).toBe(200);
            acked.push({ text, id: res.body.memory_id });
            if (acked.length === killAfter) killing = a.kill(); // requests to `a` are still in flight
          } catch (err) {
            if (server !== a || !(err instanceof TypeError)) throw err; // fetch's "fetch failed": a cut connection
            refusedByDead++; // never acknowledged: the client would retry elsewhere
          }
        }
      }),
    );
    await killing;

    expect(a.alive()).toBe(false);
    expect(acked.length).toBeGreaterThan(killAfter);
    expect(acked.length + refusedByDead).toBe(facts.length);
    await expectAllRetrievable(b, key, acked);
    // A write lock held by the dead process's transaction died with its connection.
    const after = await call(b.url, key, "store", { text: "Lars repotted the lemon tree on the balcony after the storm." });
    expect(after.status).toBe(200);
    // Cut requests may or may not have committed; acknowledged ones all did.
    const kept = (await call(b.url, key, "status")).body.memory_count as number;
    expect(kept).toBeGreaterThanOrEqual(new Set(acked.map((x) => x.id)).size + 1);
    expect(kept).toBeLessThanOrEqual(facts.length + 1);
  });
});

describe.skipIf(!canStartPostgres())("the database restarting under traffic", () => {
  let a: ServeProcess;
  let b: ServeProcess;

  beforeAll(async () => {
    const url = await cluster.createDatabase();
    a = await startServe(url, { env: ENV });
    b = await startServe(url, { env: ENV });
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("is answered with 503 store_unavailable, which clients with retries ride through without losing a write", async () => {
    const key = a.apiKey!;
    const clients = [a, b].map(
      (server) =>
        new Brain({
          apiKey: key,
          baseURL: server.url,
          maxRetries: 12,
          timeout: 10_000,
          logger: { debug() {}, info() {}, warn() {}, error() {} },
          // Internal knobs: quick backoff so the test does not wait out the default schedule.
          ...({ retryBaseMs: 250, retryCapMs: 2_000 } as object),
        }),
    );
    const facts = unrelatedTexts(60, 37);
    const acked: { text: string; id: number }[] = [];
    let next = 0;
    let restarting: Promise<void> | null = null;

    try {
      await Promise.all(
        Array.from({ length: 8 }, async (_, client) => {
          for (let step = 0; next < facts.length; step++) {
            const text = facts[next++]!;
            const res = await clients[(client + step) % 2]!.memory.store(text);
            acked.push({ text, id: res.memory_id });
            if (acked.length === 15) restarting = cluster.restart({ downMs: 1_000 });
          }
        }),
      );
    } finally {
      await restarting;
    }

    expect(acked).toHaveLength(facts.length);
    expect(a.alive() && b.alive()).toBe(true);
    const unavailable = (a.stderr() + b.stderr()).match(/"status":503/g)?.length ?? 0;
    expect(unavailable).toBeGreaterThan(0);
    await expectAllRetrievable(a, key, acked);
    // Retried stores carried one Idempotency-Key across attempts: no fact was written twice.
    const ids = new Set(acked.map((x) => x.id));
    expect(ids.size).toBe(facts.length);
    const status = await clients[1]!.status();
    expect(status.memory_count).toBe(facts.length);
    expect(status.healthy).toBe(true);
    for (const c of clients) await c.close();
  });
});

describe.skipIf(!canStartPostgres())("the database stopped under load", () => {
  let a: ServeProcess;

  beforeAll(async () => {
    a = await startServe(await cluster.createDatabase(), { env: ENV });
  });

  afterAll(async () => {
    await a?.stop();
  });

  it("answers 503 store_unavailable with Retry-After while it is down, loses no acknowledged write, and serves again without a restart", async () => {
    const key = a.apiKey!;
    const pid = a.pid;
    const facts = unrelatedTexts(400, 53);
    const acked: { text: string; id: number }[] = [];
    const refused: { status: number; code: unknown; retryAfter: string | null }[] = [];
    let next = 0;
    let phase: "before" | "down" | "back" = "before";
    let ackedAfterReturn = 0;
    let attempted = 0;

    const writers = Array.from({ length: 6 }, async () => {
      while (next < facts.length && ackedAfterReturn < 15) {
        const text = facts[next++]!;
        attempted++;
        // raw calls, no retries: every answer the service gives is seen; none may hang
        const res = await call(a.url, key, "store", { text });
        if (res.status === 200) {
          acked.push({ text, id: res.body.memory_id });
          if (phase === "back") ackedAfterReturn++;
        } else {
          refused.push({ status: res.status, code: res.body?.error?.code, retryAfter: res.headers.get("retry-after") });
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    });
    const outage = (async () => {
      while (acked.length < 10) await new Promise((r) => setTimeout(r, 20));
      await cluster.halt();
      phase = "down";
      const downSince = Date.now();
      while (refused.length < 10 && Date.now() - downSince < 10_000) await new Promise((r) => setTimeout(r, 20));
      await cluster.start();
      phase = "back";
    })();
    await Promise.all([...writers, outage]);

    expect(refused.length).toBeGreaterThanOrEqual(10);
    for (const r of refused) {
      expect(r).toEqual({ status: 503, code: "store_unavailable", retryAfter: String(UNAVAILABLE_RETRY_AFTER_SECONDS) });
    }
    expect(ackedAfterReturn).toBeGreaterThanOrEqual(15);
    expect(a.alive()).toBe(true);
    expect(a.pid).toBe(pid);
    await expectAllRetrievable(a, key, acked);
    const status = await call(a.url, key, "status");
    expect(status.body.healthy).toBe(true);
    // a store cut by the shutdown may have committed unanswered; every answered one did
    expect(new Set(acked.map((x) => x.id)).size).toBe(acked.length);
    expect(status.body.memory_count).toBeGreaterThanOrEqual(acked.length);
    expect(status.body.memory_count).toBeLessThanOrEqual(attempted);
  });
});
