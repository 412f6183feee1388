// A retrieve's answer does not wait for its bookkeeping (src/service/bookkeeping.ts), over real HTTP against a real
// `serve`: while another connection blocks the bookkeeping's write (PostgreSQL: the memory's row locked FOR UPDATE;
// SQLite: the file's write lock held by another process's BEGIN IMMEDIATE, which a busy wait on the service's thread
// would turn into every request waiting), retrieves still answer at once, showing the counts; once the lock goes, the
// counts and read events are written, none lost.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, queryStore, startService, TEST_DATABASE_URL, usageCounts, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let svc: ServiceHandle;
beforeAll(async () => {
  // The webhook worker's claim, a write each second, is not what this test is about: it would wait on the lock too.
  svc = await startService({ env: { BRAIN_WEBHOOK_POLL_MS: "3600000" } });
});
afterAll(async () => {
  await svc?.stop();
});

/** Another connection holding what the bookkeeping's write needs, until release(). */
async function blockBookkeeping(memoryId: number): Promise<{ release: () => Promise<void> }> {
  if (TEST_DATABASE_URL) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: svc.databaseUrl ?? TEST_DATABASE_URL });
    await client.connect();
    await client.query("BEGIN");
    const { rows } = await client.query("SELECT id FROM memories WHERE id = $1 FOR UPDATE", [memoryId]);
    expect(rows).toHaveLength(1);
    return {
      release: async () => {
        await client.query("ROLLBACK");
        await client.end();
      },
    };
  }
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(svc.dbPath!, { fileMustExist: true });
  db.exec("BEGIN IMMEDIATE");
  return {
    release: async () => {
      db.exec("ROLLBACK");
      db.close();
    },
  };
}

const accessCount = async (id: number) =>
  Number(
    (
      await queryStore<{ n: number | string }>(
        svc,
        { sqlite: "SELECT access_count AS n FROM memories WHERE id = ?", pg: "SELECT access_count AS n FROM memories WHERE id = $1" },
        [id],
      )
    )[0]!.n,
  );

describe("read bookkeeping", () => {
  it("answers retrieves while the bookkeeping's write is blocked, then writes every count once the block goes", async () => {
    const stored = await call(svc.baseURL, "POST", "/v1/memory/store", {
      key: svc.apiKey,
      json: { text: "The greenhouse sprinklers run at 05:40 every Tuesday and Friday." },
    });
    expect(stored.status, stored.text).toBe(200);
    const id = stored.json.memory_id as number;
    const before = await usageCounts(svc, svc.workspaceId);

    const block = await blockBookkeeping(id);
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const res = await call(svc.baseURL, "POST", "/v1/memory/retrieve", {
          key: svc.apiKey,
          json: { query: "when do the greenhouse sprinklers run", top_k: 1 },
        });
        answers.push({ ms: performance.now() - started, res });
        // past the flush interval (50 ms): the write is tried, and blocked, before the next retrieve
        await new Promise((r) => setTimeout(r, 300));
      }
      for (const [k, { ms, res }] of answers.entries()) {
        expect(res.status, res.text).toBe(200);
        expect(res.json.memories.map((m: { id: number }) => m.id)).toEqual([id]);
        // the answer shows the memory as this retrieval leaves it, the earlier ones' counts still unwritten
        expect(res.json.memories[0].access_count).toBe(k + 1);
        // a retrieve held behind the write would take until the block goes (SQLite's busy_timeout is 15 s)
        expect(ms, `retrieve ${k + 1}: ${ms.toFixed(0)} ms`).toBeLessThan(5_000);
      }
      // nothing written while blocked
      expect(await accessCount(id)).toBe(0);
    } finally {
      await block.release();
    }

    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await accessCount(id)) < 3) await new Promise((r) => setTimeout(r, 50));
    expect(await accessCount(id)).toBe(3);
    const after = await usageCounts(svc, svc.workspaceId);
    expect(after.read - before.read).toBe(3);
  });

  // PostgreSQL waits for its locks off the event loop by nature; SQLite's busy handler sleeps on the only thread.
  it.skipIf(Boolean(TEST_DATABASE_URL))(
    "a store waiting for the write lock another process holds keeps no other request waiting, and is written once it goes",
    async () => {
      const warm = await call(svc.baseURL, "POST", "/v1/memory/retrieve", { key: svc.apiKey, json: { query: "sprinklers" } });
      expect(warm.status, warm.text).toBe(200); // the key's last use is noted now, not while the lock is held
      const { default: Database } = await import("better-sqlite3");
      const other = new Database(svc.dbPath!, { fileMustExist: true });
      other.exec("BEGIN IMMEDIATE");
      let storing: ReturnType<typeof call> | undefined;
      try {
        storing = call(svc.baseURL, "POST", "/v1/memory/store", {
          key: svc.apiKey,
          json: { text: "The boiler in the east wing is serviced every second Monday of March." },
        });
        let storeDone = false;
        void storing.then(() => (storeDone = true));
        await new Promise((r) => setTimeout(r, 300)); // the store is at its transaction by now, waiting for the lock
        for (let i = 0; i < 3; i++) {
          const started = performance.now();
          const res = await call(svc.baseURL, "POST", "/v1/memory/retrieve", {
            key: svc.apiKey,
            json: { query: "when do the greenhouse sprinklers run", top_k: 1 },
          });
          const ms = performance.now() - started;
          expect(res.status, res.text).toBe(200);
          // held behind the store's wait, this would take until the lock goes or busy_timeout (15 s) ends
          expect(ms, `retrieve ${i + 1}: ${ms.toFixed(0)} ms`).toBeLessThan(5_000);
        }
        expect(storeDone).toBe(false);
      } finally {
        other.exec("ROLLBACK");
        other.close();
      }
      const stored = await storing!;
      expect(stored.status, stored.text).toBe(200);
      expect(stored.json.dedup.action).toBe("stored_new");
      const found = await queryStore<{ n: number }>(
        svc,
        { sqlite: "SELECT count(*) AS n FROM memories WHERE id = ?", pg: "SELECT count(*) AS n FROM memories WHERE id = $1" },
        [stored.json.memory_id],
      );
      expect(Number(found[0]!.n)).toBe(1);
    },
  );
});

// SQLite only: the writes no request waits for — the key's last-use mark (a key's first request), the webhook
// worker's claim (here every 50 ms) — wait for another process's write lock between turns of the event loop, so
// while that lock is held every request still answers, and each write lands once it goes.
describe.skipIf(Boolean(TEST_DATABASE_URL))("writes nobody waits for, on SQLite with another process's write lock held", () => {
  let own: ServiceHandle;
  beforeAll(async () => {
    own = await startService({ env: { BRAIN_WEBHOOK_POLL_MS: "50" } });
  });
  afterAll(async () => {
    await own?.stop();
  });

  it("answers a key's first requests while the key's mark and the webhook claim wait, then writes the mark", async () => {
    const lastUsed = async () =>
      (
        await queryStore<{ at: number | null }>(own, { sqlite: "SELECT last_used_at AS at FROM api_keys WHERE id = ?", pg: "" }, [
          own.keyId,
        ])
      )[0]!.at;
    expect(await lastUsed()).toBeNull(); // the key was made by the admin CLI and never used
    const { default: Database } = await import("better-sqlite3");
    const other = new Database(own.dbPath!, { fileMustExist: true });
    other.exec("BEGIN IMMEDIATE");
    try {
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const res = await call(own.baseURL, "POST", "/v1/memory/retrieve", { key: own.apiKey, json: { query: "anything at all" } });
        const ms = performance.now() - started;
        expect(res.status, res.text).toBe(200);
        // a write asleep in SQLite's busy handler would hold this until the lock goes or 15 s pass
        expect(ms, `retrieve ${i + 1}: ${ms.toFixed(0)} ms`).toBeLessThan(5_000);
        await new Promise((r) => setTimeout(r, 300)); // several webhook claims tried meanwhile
      }
      expect(await lastUsed()).toBeNull(); // not written while the lock is held
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await lastUsed()) === null) await new Promise((r) => setTimeout(r, 50));
    expect(await lastUsed()).toBeGreaterThan(0);
  });
});
