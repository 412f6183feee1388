// A write transaction on PostgreSQL in fewer round trips (pgtail): BEGIN and the workspace's lock in one message, and
// the writes that answer nothing (usage event, idempotency record) sent as one statement before the next statement or
// the COMMIT. What must still hold: every statement sees the writes before it, a failure writes nothing, and the lock
// still serializes the workspace.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { openPostgresStore, type PostgresStore } from "../../src/service/store/postgres/index.js";
import { MIGRATIONS } from "../../src/service/store/postgres/schema.js";
import { newMemory } from "../support/new-memory.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";

const T0 = Date.UTC(2025, 0, 1);

const memory = (workspaceId: number, text: string) => newMemory(workspaceId, text, T0);

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
    // The waiting writes fail in the message that also holds COMMIT (every value a literal): nothing commits.
    await expect(
      a.writeInWorkspace(ws, async (tx) => {
        await tx.insertMemory(memory(ws, "never kept, third"));
        await tx.putIdempotency(record(ws, "k3", "h3"), T0 - 1);
        await tx.recordUsage("write", 1, null as unknown as number); // created_at is NOT NULL
      }),
    ).rejects.toThrow();
    expect(await b.getIdempotency(ws, "k3", 0)).toBeNull();
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

  it("keeps each workspace's count of memories exact through inserts, forgetting and rolled-back writes", async () => {
    const [w1, w2] = [await newWorkspace("count-1"), await newWorkspace("count-2")];
    const kept = async (ws: number) =>
      Number((await client.query("SELECT memories FROM workspace_memory_counts WHERE workspace_id = $1", [ws])).rows[0]?.memories ?? 0);
    const ids = await a.writeInWorkspace(w1, async (tx) => {
      const made = [];
      for (let i = 0; i < 5; i++) made.push((await tx.insertMemory(memory(w1, `fact ${i}`))).id);
      return made;
    });
    await b.writeInWorkspace(w2, (tx) => tx.insertMemory(memory(w2, "elsewhere")));
    await expect(
      a.writeInWorkspace(w1, async (tx) => {
        await tx.insertMemory(memory(w1, "rolled back"));
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect([await kept(w1), await kept(w2)]).toEqual([5, 1]);
    expect(await b.deleteMemories(w1, [ids[0]!, ids[1]!, 424242])).toEqual([ids[0], ids[1]].sort((x, y) => x - y));
    expect([await kept(w1), await kept(w2)]).toEqual([3, 1]);
    expect([await kept(w1), await kept(w2)]).toEqual([await a.countMemories(w1), await a.countMemories(w2)]);
  });

  it("counts the memories a store already holds when it is migrated", async () => {
    const url = await cluster.createDatabase();
    const old = new pg.Client({ connectionString: url });
    await old.connect();
    try {
      // The schema as the version before the counts left it, with memories in two workspaces.
      await old.query(
        "CREATE TABLE brain_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      for (const m of MIGRATIONS.filter((m) => m.name !== "memory counts per workspace")) {
        await old.query(m.sql);
        await old.query("INSERT INTO brain_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      }
      const ws = (
        await old.query(
          "INSERT INTO workspaces (name, plan, billing_cycle, status, created_at) VALUES ('a', 'free', 'monthly', 'active', 0), ('b', 'free', 'monthly', 'active', 0) RETURNING id",
        )
      ).rows.map((r) => Number(r.id));
      await old.query(
        `INSERT INTO memories (workspace_id, text, meta, vector, embedder_id, importance, temporal_type, categories, created_at, updated_at, rev)
         SELECT $1::bigint, 'fact ' || i, '{}', '\\x00'::bytea, 'emb-a', 5, 'persistent', '[]', 0, 0, i FROM generate_series(1, 7) AS i
         UNION ALL SELECT $2::bigint, 'other ' || i, '{}', '\\x00'::bytea, 'emb-a', 5, 'persistent', '[]', 0, 0, i FROM generate_series(1, 2) AS i`,
        ws,
      );
      const store = await openPostgresStore(url);
      await store.close();
      const { rows } = await old.query("SELECT workspace_id, memories FROM workspace_memory_counts ORDER BY workspace_id");
      expect(rows.map((r) => [Number(r.workspace_id), Number(r.memories)])).toEqual([
        [ws[0], 7],
        [ws[1], 2],
      ]);
    } finally {
      await old.end();
    }
  });

  /** The messages a store sends while `work` runs (each `Client.query` is one message and one reply). */
  const counted = async <T>(work: () => Promise<T>): Promise<{ result: T; messages: string[] }> => {
    const messages: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const sql = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string })?.text;
      if (typeof sql === "string") messages.push(sql);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      return { result: await work(), messages };
    } finally {
      pg.Client.prototype.query = query;
    }
  };

  it("reads the idempotency record and the index's rows ahead with the lock, in one message, answering as reads would", async () => {
    const ws = await newWorkspace("ahead");
    // A key a literal must quote (printable ASCII: what the HTTP header allows), and one it must not be (falls back).
    const keys = ["it's a \\ key", "plain", "caf\u00e9"];
    await a.writeInWorkspace(ws, async (tx) => {
      for (const [i, key] of keys.entries()) await tx.putIdempotency(record(ws, key, `h${i}`, T0 + i), 0);
      for (const text of ["one", "two", "three"]) await tx.insertMemory(memory(ws, text));
    });
    const [first] = await a.vectorsSince(ws, 0);
    const plain = async (key: string, notBefore: number, since: number) =>
      a.writeInWorkspace(ws, async (tx) => ({
        record: await tx.getIdempotency(key, notBefore),
        rows: await tx.vectorsSince(since, undefined, "emb-a"),
      }));
    for (const key of keys) {
      for (const notBefore of [0, T0 + 1, T0 + 5]) {
        // asked ahead from rev 0, read from rev 0 and from the first row's rev (the index moved on meanwhile)
        for (const since of [0, first!.rev]) {
          const expected = await plain(key, notBefore, since);
          const { result, messages } = await counted(() =>
            a.writeInWorkspace(
              ws,
              async (tx) => ({ record: await tx.getIdempotency(key, notBefore), rows: await tx.vectorsSince(since, undefined, "emb-a") }),
              { idempotencyKey: key, vectorsSince: { sinceRev: 0, codesFor: "emb-a" } },
            ),
          );
          expect(result).toEqual(expected);
          // BEGIN + lock + both reads in one message, then COMMIT; a key no literal may carry is read on its own
          expect(messages.length).toBe(/^[\x20-\x7e]*$/.test(key) ? 2 : 3);
        }
      }
    }
    expect((await plain("plain", 0, 0)).rows.map((r) => r.rev)).toHaveLength(3);
    expect((await plain("plain", T0 + 2, 0)).record).toBeNull(); // older than the bound
  });

  it("sends a store's waiting writes with its COMMIT, as literals, and the same writes with placeholders when a value cannot be one", async () => {
    const ws = await newWorkspace("commit-message");
    const store = (key: string, meta: Record<string, unknown> = {}) =>
      counted(() =>
        a.writeInWorkspace(ws, async (tx) => {
          const m = await tx.insertMemory(memory(ws, `fact for ${key}`));
          await tx.recordUsage("write", m.id, T0);
          await tx.putIdempotency({ ...record(ws, key, "h"), response: { memory_id: m.id, ...meta } }, T0 - 1);
          return m.id;
        }),
      );
    const quoted = await store("it's \\ quoted");
    expect(quoted.messages).toHaveLength(3); // BEGIN + lock, INSERT, the writes + COMMIT
    expect(quoted.messages[2]).toMatch(/; COMMIT$/);
    const unicode = await store("unicode", { note: "caf\u00e9" });
    expect(unicode.messages).toHaveLength(4); // the writes with placeholders, then COMMIT
    expect(await b.getIdempotency(ws, "it's \\ quoted", 0)).toMatchObject({ request_hash: "h", response: { memory_id: quoted.result } });
    expect(await b.getIdempotency(ws, "unicode", 0)).toMatchObject({ response: { memory_id: unicode.result, note: "caf\u00e9" } });
    expect(await b.usageCounts(ws)).toEqual({ write: 2, read: 0 });
  });

  it("reads again after the transaction's first write, and never reads ahead for a different call", async () => {
    const ws = await newWorkspace("ahead-write");
    await a.writeInWorkspace(ws, async (tx) => void (await tx.insertMemory(memory(ws, "before"))));
    const { result, messages } = await counted(() =>
      a.writeInWorkspace(
        ws,
        async (tx) => {
          const other = await tx.getIdempotency("other-key", 0); // not the key read ahead
          const inserted = await tx.insertMemory(memory(ws, "written in the transaction"));
          await tx.putIdempotency(record(ws, "k", "h"), 0);
          const rows = await tx.vectorsSince(0, undefined, "emb-a"); // after writes: sees them
          const seen = await tx.getIdempotency("k", 0);
          return { other, inserted, rows, seen };
        },
        { idempotencyKey: "k", vectorsSince: { sinceRev: 0, codesFor: "emb-a" } },
      ),
    );
    expect(result.other).toBeNull();
    expect(result.rows.map((r) => r.id)).toContain(result.inserted.id);
    expect(result.rows).toHaveLength(2);
    expect(result.seen).toMatchObject({ request_hash: "h" });
    // lock+ahead, other key, insert, pending writes, vectors, key, COMMIT
    expect(messages).toHaveLength(7);
  });

  it("answers a retrieve's lexical search and the index's new rows in one statement, as the two reads do", async () => {
    const ws = await newWorkspace("lexical-ahead");
    const texts = ["the harbour lantern", "a lantern in the window", "harbour walls", "nothing shared here"];
    await a.writeInWorkspace(ws, async (tx) => {
      for (const text of texts) await tx.insertMemory({ ...memory(ws, text), vector: new Float32Array([1, 2, 3]) });
    });
    await a.deleteMemories(ws, [(await a.vectorsSince(ws, 0))[3]!.id]);
    const all = await a.vectorsSince(ws, 0);
    for (const terms of [["harbour", "lantern"], ["absent"], ["lantern"]]) {
      for (const [sinceRev, limit] of [
        [0, 100],
        [all[1]!.rev, 100],
        [0, 2],
        [all.at(-1)!.rev, 100],
      ] as const) {
        const { result, messages } = await counted(() =>
          a.searchTextWithVectorsSince(ws, terms, 10, { sinceRev, codesFor: "emb-a", limit }),
        );
        expect(messages).toHaveLength(1);
        expect(result.matches).toEqual(await a.searchText(ws, terms, 10));
        expect(result.vectors).toEqual(await a.vectorsSince(ws, sinceRev, limit, "emb-a"));
      }
    }
  });

  it("refuses a workspace id that is not an integer before anything reaches the database", async () => {
    await expect(a.writeInWorkspace(1.5, async () => 1)).rejects.toThrow("integer");
    await expect(a.writeInWorkspace(Number.NaN, async () => 1)).rejects.toThrow("integer");
  });
});
