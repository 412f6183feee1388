// The service's core behaviour on PostgreSQL, through the real `serve` process with BRAIN_DATABASE_URL: the same
// answers as over SQLite (the whole test/service suite also runs this way: test/postgres/vitest.service.config.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { call, startServe, type ServeProcess } from "./processes.js";
import { expectNoCardNumber } from "../support/card.js";

describe.skipIf(!canStartPostgres())("brain-mcp serve over PostgreSQL", () => {
  let cluster: PgCluster;
  let server: ServeProcess;
  let key: string;
  let startupLog: string;

  beforeAll(async () => {
    cluster = await startPostgres();
    // A password in the URL (trust auth ignores it) must never be printed.
    const url = (await cluster.createDatabase()).replace("postgres@", "postgres:s3cret-pw@");
    server = await startServe(url);
    key = server.apiKey!;
    startupLog = server.stdout() + server.stderr();
  });

  afterAll(async () => {
    await server?.stop();
    await cluster?.stop();
  });

  it("says it opened PostgreSQL, without the password, and makes the first workspace and key", () => {
    expect(startupLog).toMatch(/store: PostgreSQL at postgres:\/\/postgres(:\*+)?@127\.0\.0\.1:\d+\//);
    expect(startupLog).not.toContain("s3cret-pw");
    expect(key).toMatch(/^svc_ws_[0-9A-Za-z]{32}$/);
  });

  it("stores a memory, merges a near-duplicate into it, and retrieves it with its meta", async () => {
    const first = await call(server.url, key, "store", {
      text: "I prefer dark roast coffee in the morning",
      meta: { source: "chat" },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "ok", dedup: { action: "stored_new", existing_id: null } });

    const again = await call(server.url, key, "store", {
      text: "I prefer dark roast coffee in the morning, strong and black.",
      meta: { mood: "sleepy" },
    });
    expect(again.status).toBe(200);
    expect(again.body.dedup).toEqual({ action: "merged", existing_id: first.body.memory_id });
    expect(again.body.memory_id).toBe(first.body.memory_id);

    const other = await call(server.url, key, "store", { text: "The deploy pipeline runs on GitHub Actions for every tag." });
    expect(other.body.dedup.action).toBe("stored_new");

    const found = await call(server.url, key, "retrieve", { query: "how do I take my coffee?", top_k: 1 });
    expect(found.status).toBe(200);
    expect(found.body.count).toBe(1);
    const [memory] = found.body.memories;
    expect(memory.id).toBe(first.body.memory_id);
    expect(memory.text).toBe("I prefer dark roast coffee in the morning, strong and black."); // the richer text
    expect(memory.meta).toMatchObject({ source: "chat", mood: "sleepy", temporal: { type: "persistent" } });
    expect(memory.access_count).toBe(1);
    expect(memory.score).toBeGreaterThan(0);
    expect(memory.score).toBeLessThanOrEqual(1);

    const status = await call(server.url, key, "status");
    expect(status.body).toMatchObject({ healthy: true, workspace_status: "active", memory_count: 2 });
  });

  it("replays a store with the same Idempotency-Key and refuses the key with another body", async () => {
    const headers = { "idempotency-key": "pg-idem-1" };
    const body = { text: "Priya's flight to Osaka leaves on the ninth of March at 7:40." };
    const first = await call(server.url, key, "store", body, headers);
    const count = (await call(server.url, key, "status")).body.memory_count;
    const replay = await call(server.url, key, "store", body, headers);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect((await call(server.url, key, "status")).body.memory_count).toBe(count);
    const reused = await call(server.url, key, "store", { text: "Something else entirely." }, headers);
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe("idempotency_key_reused");
  });

  it("rejects PII before anything is written", async () => {
    const count = (await call(server.url, key, "status")).body.memory_count;
    const res = await call(server.url, key, "store", { text: "My card is 4111 1111 1111 1111, expiry 12/29." });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("pii_detected");
    expectNoCardNumber(JSON.stringify(res.body));
    expect((await call(server.url, key, "status")).body.memory_count).toBe(count);
  });

  it("diagnoses the workspace's health", async () => {
    const res = await call(server.url, key, "health");
    expect(res.status).toBe(200);
    expect(res.body.signals.total_memories).toBe((await call(server.url, key, "status")).body.memory_count);
    expect(res.body.quality_score).toBeGreaterThanOrEqual(0);
    expect(res.body.quality_score).toBeLessThanOrEqual(100);
    expect(res.body.generated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it("answers 503 store_unavailable while the database is down, and serves again once it is back", async () => {
    await cluster.halt();
    try {
      for (const res of [
        await call(server.url, key, "status"),
        await call(server.url, key, "store", { text: "Written while the database is down." }),
        await call(server.url, key, "retrieve", { query: "anything" }),
      ]) {
        expect(res.status).toBe(503);
        expect(res.body.error).toMatchObject({ type: "service_unavailable_error", code: "store_unavailable" });
        expect(res.headers.get("x-request-id")).toBe(res.body.error.request_id);
        expect(res.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
      }
    } finally {
      await cluster.start();
    }
    expect(server.alive()).toBe(true);
    const back = await call(server.url, key, "store", { text: "Marta moved the pottery class to Thursday evenings." });
    expect(back.status).toBe(200);
    expect((await call(server.url, key, "status")).body.healthy).toBe(true);
  });
});
