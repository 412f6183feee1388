// DESIGN.md "Scale": any number of service processes over one PostgreSQL, writes serialized per workspace in the
// database, so correctness never depends on which process a request reaches. Two real `serve` processes here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { call, createWorkspace, unrelatedTexts, startServe, type ServeProcess } from "./processes.js";

// The lexical embedder keeps 20 concurrent clients cheap on 2 cores; dedup and locking are what is under test.
const ENV = { BRAIN_EMBEDDER: "lexical" };

describe.skipIf(!canStartPostgres())("two service processes sharing one PostgreSQL database", () => {
  let cluster: PgCluster;
  let url: string;
  let a: ServeProcess;
  let b: ServeProcess;
  let key: string;
  const servers = () => [a, b];

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
    a = await startServe(url, { env: ENV });
    b = await startServe(url, { env: ENV }); // second start: the schema and the first workspace already exist
    key = a.apiKey!;
    expect(key).toMatch(/^svc_ws_/);
    expect(b.apiKey).toBeNull();
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await cluster?.stop();
  });

  const memoryCount = async (server: ServeProcess, apiKey = key) => {
    const res = await call(server.url, apiKey, "status");
    expect(res.status).toBe(200);
    return res.body.memory_count as number;
  };

  it("twenty clients writing identical and distinct facts through alternating processes leave zero duplicate memories", async () => {
    const before = await memoryCount(a);
    const shared = [
      "The quarterly planning offsite moved to the Lisbon office on the fourteenth.",
      "Production database backups run nightly at two in the morning UTC.",
    ];
    const facts = unrelatedTexts(40, 11);
    const acks: { text: string; id: number; action: string }[] = [];
    const invisible: string[] = [];

    await Promise.all(
      Array.from({ length: 20 }, async (_, client) => {
        const texts = [facts[client * 2]!, shared[0]!, facts[client * 2 + 1]!, shared[1]!];
        for (const [step, text] of texts.entries()) {
          const writer = servers()[(client + step) % 2]!;
          const reader = servers()[(client + step + 1) % 2]!;
          const res = await call(writer.url, key, "store", { text });
          expect(res.status).toBe(200);
          acks.push({ text, id: res.body.memory_id, action: res.body.dedup.action });
          // Acknowledged through one process, so visible through the other at once.
          const found = await call(reader.url, key, "retrieve", { query: text, top_k: 5 });
          expect(found.status).toBe(200);
          if (!found.body.memories.some((m: { id: number }) => m.id === res.body.memory_id)) invisible.push(text);
        }
      }),
    );

    expect(invisible).toEqual([]);
    for (const text of shared) {
      const forText = acks.filter((x) => x.text === text);
      expect(forText).toHaveLength(20);
      expect(new Set(forText.map((x) => x.id)).size).toBe(1);
      expect(forText.filter((x) => x.action === "stored_new")).toHaveLength(1);
    }
    const ids = new Set(acks.map((x) => x.id));
    expect(await memoryCount(a)).toBe(before + ids.size);
    expect(await memoryCount(b)).toBe(before + ids.size);
    // Every distinct fact is its own memory: nothing was lost or folded into another by a race.
    expect(new Set(acks.filter((x) => !shared.includes(x.text)).map((x) => x.id)).size).toBe(40);
  });

  it("an Idempotency-Key replayed through the other process returns the first result and writes nothing", async () => {
    const body = { text: "Kenji renewed the wildcard TLS certificate for the staging domain last Friday." };
    const headers = { "idempotency-key": "scale-out-idem-1" };
    const first = await call(a.url, key, "store", body, headers);
    expect(first.status).toBe(200);
    const count = await memoryCount(a);

    const replay = await call(b.url, key, "store", body, headers);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(await memoryCount(b)).toBe(count);

    const reused = await call(b.url, key, "store", { text: "A different fact under the same key." }, headers);
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe("idempotency_key_reused");
    expect(await memoryCount(a)).toBe(count);
  });

  it("one Idempotency-Key sent concurrently to both processes yields one write and one answer", async () => {
    const body = { text: "Aunt Rosa keeps the spare house key under the blue flowerpot by the shed." };
    const headers = { "idempotency-key": "scale-out-idem-race" };
    const before = await memoryCount(a);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => call(servers()[i % 2]!.url, key, "store", body, headers)));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    for (const r of answers) expect(r.body).toEqual(answers[0]!.body);
    expect(await memoryCount(b)).toBe(before + 1);
  });

  it("a key's rate limit is one bucket shared by every process", async () => {
    // Two more processes with a small bucket: 10 requests of burst, then one per second.
    const limited = { ...ENV, BRAIN_RATE_LIMIT_RPS: "1", BRAIN_RATE_LIMIT_BURST: "10" };
    const [c, d] = await Promise.all([startServe(url, { env: limited }), startServe(url, { env: limited })]);
    try {
      const ws = await createWorkspace(url, "rate-limited");
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => call([c, d][i % 2]!.url, ws.apiKey, "status")));
      const elapsedSeconds = (Date.now() - started) / 1000;
      const allowed = answers.filter((r) => r.status === 200).length;
      const limitedAnswers = answers.filter((r) => r.status === 429);
      expect(allowed + limitedAnswers.length).toBe(30);
      // One shared bucket: the burst plus what refilled meanwhile; two separate buckets would have allowed 20.
      expect(allowed).toBeGreaterThanOrEqual(10);
      expect(allowed).toBeLessThanOrEqual(10 + Math.ceil(elapsedSeconds));
      for (const r of limitedAnswers) {
        expect(r.body.error.code).toBe("rate_limited");
        expect(r.body.error.retry_after).toBeGreaterThanOrEqual(1);
        expect(r.headers.get("retry-after")).toBe(String(r.body.error.retry_after));
      }
    } finally {
      await Promise.all([c.stop(), d.stop()]);
    }
  });
});
