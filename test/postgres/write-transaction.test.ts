// A write transaction on PostgreSQL in fewer round trips (pgtail): BEGIN and the workspace's lock in one message, and
// the writes that answer nothing (usage event, idempotency record) sent as one statement before the next statement or
// the COMMIT. What must still hold: every statement sees the writes before it, a failure writes nothing, and the lock
// still serializes the workspace.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { openPostgresStore, type PostgresStore } from "../../src/service/store/postgres/index.js";
import type { NewMemory } from "../../src/service/store/types.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";

const T0 = Date.UTC(2025, 0, 1);

const memory = (workspaceId: number, text: string): NewMemory => ({
  workspace_id: workspaceId,
  text,
  meta: {},
  vector: new Float32Array([1, 0, 0]),
  embedder_id: "emb-a",
  importance: 5,
  temporal_type: "persistent",
  valid_until: null,
  categories: [],
  created_at: T0,
});

const record = (workspaceId: number, key: string, hash: string, createdAt = T0) => ({
  workspace_id: workspaceId,
  key,
  request_hash: hash,
  response: { memory_id: 1 },
  created_at: createdAt,
});

describe.skipIf(!canStartPostgres())("a PostgreSQL write transaction", () => {
  let cluster: PgCluster;
  let a: PostgresStore;
  let b: PostgresStore;
  let client: pg.Client;

  beforeAll(async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase();
    [a, b] = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end().catch(() => {});
    await a?.close().catch(() => {});
    await b?.close().catch(() => {});
    await cluster?.stop();
  });

  const newWorkspace = async (name: string) =>
    (await a.insertWorkspace({ name, plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;

  it("writes the usage event and the idempotency record with the memory, in one statement before COMMIT", async () => {
    const ws = await newWorkspace("together");
    const id = await a.writeInWorkspace(ws, async (tx) => {
      const m = await tx.insertMemory(memory(ws, "the harbour lantern is lit at six"));
      await tx.recordUsage("write", m.id, T0);
      await tx.putIdempotency(record(ws, "k1", "h1"), T0 - 1);
      return m.id;
    });
    expect(await b.usageCounts(ws)).toEqual({ write: 1, read: 0 });
    expect(await b.getIdempotency(ws, "k1", 0)).toMatchObject({ request_hash: "h1" });
    expect((await b.getMemories(ws, [id])).map((m) => m.text)).toEqual(["the harbour lantern is lit at six"]);
  });

  it("lets every later statement of the transaction see the waiting writes", async () => {
    const ws = await newWorkspace("sees");
    await a.writeInWorkspace(ws, async (tx) => {
      await tx.putIdempotency(record(ws, "k1", "h1"), T0 - 1);
      expect(await tx.getIdempotency("k1", 0)).toMatchObject({ request_hash: "h1" });
      // a second record of the same key replaces the first, as before
      await tx.putIdempotency(record(ws, "k1", "h2"), T0 - 1);
      await tx.putIdempotency(record(ws, "k1", "h3"), T0 - 1);
      expect(await tx.getIdempotency("k1", 0)).toMatchObject({ request_hash: "h3" });
    });
    expect(await b.getIdempotency(ws, "k1", 0)).toMatchObject({ request_hash: "h3" });
  });

  it("writes nothing when the transaction fails, whether before or while the waiting writes go", async () => {
    const ws = await newWorkspace("fails");
    await expect(
      a.writeInWorkspace(ws, async (tx) => {
        await tx.insertMemory(memory(ws, "never kept"));
        await tx.recordUsage("write", 1, T0);
        await tx.putIdempotency(record(ws, "k1", "h1"), T0 - 1);
        throw new Error("the pipeline refused");
      }),
    ).rejects.toThrow("the pipeline refused");
    // The waiting writes themselves fail (a memory id the column refuses): the memory before them goes too.
    await expect(
      a.writeInWorkspace(ws, async (tx) => {
        await tx.insertMemory(memory(ws, "never kept either"));
        await tx.putIdempotency(record(ws, "k2", "h2"), T0 - 1);
        await tx.recordUsage("write", 1.5, T0);
      }),
    ).rejects.toThrow();
    expect(await b.countMemories(ws)).toBe(0);
    expect(await b.usageCounts(ws)).toEqual({ write: 0, read: 0 });
    expect(await b.getIdempotency(ws, "k1", 0)).toBeNull();
    expect(await b.getIdempotency(ws, "k2", 0)).toBeNull();
    // and the lock was released
    await b.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "kept")));
    expect(await a.countMemories(ws)).toBe(1);
  });

  it("still serializes a workspace across processes: 30 concurrent check-then-insert writes make one memory", async () => {
    const ws = await newWorkspace("race");
    const ids = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? a : b).writeInWorkspace(ws, async (tx) => {
          const seen = await tx.getIdempotency("same-key", 0);
          if (seen) return (seen.response as { memory_id: number }).memory_id;
          const m = await tx.insertMemory(memory(ws, "the same fact"));
          await tx.recordUsage("write", m.id, T0);
          await tx.putIdempotency({ ...record(ws, "same-key", "h"), response: { memory_id: m.id } }, T0 - 1);
          return m.id;
        }),
      ),
    );
    expect(new Set(ids).size).toBe(1);
    expect(await a.countMemories(ws)).toBe(1);
    expect(await a.usageCounts(ws)).toEqual({ write: 1, read: 0 });
  });

  it("refuses a workspace id that is not an integer before anything reaches the database", async () => {
    await expect(a.writeInWorkspace(1.5, async () => 1)).rejects.toThrow("integer");
    await expect(a.writeInWorkspace(Number.NaN, async () => 1)).rejects.toThrow("integer");
  });
});
