// A PostgreSQL that hangs (SIGSTOP on the postmaster and every backend: a frozen host, or a partition that drops
// packets) costs each request a few seconds and a 503, never the whole outage, and the same process recovers by
// itself when the database answers again (issue 21, item 3).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { call, startServe, unrelatedTexts, type ServeProcess } from "./processes.js";

/** Bound on one answer while the database is frozen: pool.ts's 5 s statement bound + 1 s, and slack for a busy CI. */
const ANSWER_WITHIN_MS = 10_000;

let cluster: PgCluster;
let serve: ServeProcess;
let apiKey: string;

beforeAll(async () => {
  if (!canStartPostgres()) return;
  cluster = await startPostgres();
  serve = await startServe(await cluster.createDatabase(), { env: { BRAIN_EMBEDDER: "lexical" } });
  apiKey = serve.apiKey!;
}, 120_000);

afterAll(async () => {
  await cluster?.thaw();
  await serve?.stop();
  await cluster?.stop();
});

describe.skipIf(!canStartPostgres())("a frozen PostgreSQL", () => {
  it("answers every request 503 store_unavailable with Retry-After within seconds, and recovers in the same process", async () => {
    const facts = unrelatedTexts(16, 5);
    expect((await call(serve.url, apiKey, "store", { text: facts[0] })).status).toBe(200);

    await cluster.freeze();
    let answers: { status: number; code: unknown; retryAfter: string | null; ms: number }[];
    try {
      // More concurrent requests than the pool has connections: some hold one, the others wait for one.
      const requests = Array.from({ length: 14 }, (_, i) => {
        const started = Date.now();
        const request =
          i % 3 === 0
            ? call(serve.url, apiKey, "store", { text: facts[1 + i] })
            : i % 3 === 1
              ? call(serve.url, apiKey, "retrieve", { query: "anything at all" })
              : call(serve.url, apiKey, "status");
        return request.then((res) => ({
          status: res.status,
          code: res.body?.error?.code,
          retryAfter: res.headers.get("retry-after"),
          ms: Date.now() - started,
        }));
      });
      answers = await Promise.all(requests);
    } finally {
      await cluster.thaw();
    }

    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.code).toBe("store_unavailable");
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
    }

    // Thawed: the pool replaces the connections it gave up, with no restart.
    const deadline = Date.now() + 20_000;
    let status = await call(serve.url, apiKey, "status");
    while ((status.status !== 200 || status.body.healthy !== true) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      status = await call(serve.url, apiKey, "status");
    }
    expect(status.status).toBe(200);
    expect(status.body.healthy).toBe(true);
    expect(serve.alive()).toBe(true);
    const after = await call(serve.url, apiKey, "store", { text: facts[15] });
    expect(after.status).toBe(200);
    const found = await call(serve.url, apiKey, "retrieve", { query: facts[15], top_k: 3 });
    expect(found.body.memories.map((m: { id: number }) => m.id)).toContain(after.body.memory_id);
  }, 90_000);
});
