// Failures a deployment over PostgreSQL meets: a service process dying mid-stream, and the database restarting
// under traffic. No acknowledged write may be lost, and clients with retries ride through a restart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Brain } from "../../dist/index.js";
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
