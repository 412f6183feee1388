// Retrieval bookkeeping written in batches (src/service/bookkeeping.ts), on a real SQLite file and, when the
// binaries are there, a real PostgreSQL: the counts and usage events end exactly as one write per retrieval would
// leave them, records read before the write already show them, a clean stop writes them, a failed write loses none.
import { createRequire } from "node:module";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchReadBookkeeping } from "../../src/service/bookkeeping.js";
import { openPostgresStore } from "../../src/service/store/postgres/index.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import type { MemoryStore } from "../../src/service/store/types.js";
import type { ServiceLog } from "../../src/service/types.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { tempDir } from "./support.js";

const require = createRequire(import.meta.url);
const T0 = Date.UTC(2025, 0, 1);
const warnings: string[] = [];
const log: ServiceLog = { debug() {}, info() {}, warn: (msg) => void warnings.push(msg), error() {} };

async function workspaceWith(store: MemoryStore, texts: string[]): Promise<{ workspaceId: number; ids: number[] }> {
  const { id: workspaceId } = await store.insertWorkspace({
    name: "bk",
    plan: "free",
    billing_cycle: "monthly",
    status: "active",
    created_at: T0,
  });
  const ids = await store.writeInWorkspace(workspaceId, async (tx) => {
    const out: number[] = [];
    for (const text of texts) {
      const m = await tx.insertMemory({
        workspace_id: workspaceId,
        text,
        meta: {},
        vector: Float32Array.of(1, 0, 0),
        embedder_id: "emb",
        importance: 5,
        temporal_type: "persistent",
        valid_until: null,
        categories: ["work"],
        created_at: T0,
      });
      out.push(m.id);
    }
    return out;
  });
  return { workspaceId, ids };
}

const countsOf = async (store: MemoryStore, workspaceId: number, ids: number[]) =>
  // in the order of `ids`: memory ids are random, so sorting by them says nothing
  (await store.getMemories(workspaceId, ids).then((found) => ids.map((id) => found.find((m) => m.id === id)!))).map((m) => [
    m.access_count,
    m.last_accessed_at,
  ]);

function suite(name: string, open: () => Promise<MemoryStore>, skip = false) {
  describe.skipIf(skip)(`retrieval bookkeeping in batches (${name})`, () => {
    let store: MemoryStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it("many retrievals end as one write per retrieval would leave them: counts summed, the latest time, one read event each", async () => {
      const { workspaceId, ids } = await workspaceWith(store, ["a", "b", "c"]);
      const bookkeeping = batchReadBookkeeping(store, log, 60_000);
      await bookkeeping.recordRead(workspaceId, [ids[0]!, ids[1]!], T0 + 2_000);
      await bookkeeping.recordRead(workspaceId, [ids[0]!], T0 + 1_000); // an earlier time arriving later
      await bookkeeping.recordRead(workspaceId, [], T0 + 3_000);
      expect(await countsOf(store, workspaceId, ids)).toEqual([
        [0, null],
        [0, null],
        [0, null],
      ]); // not yet written
      await bookkeeping.flush();
      expect(await countsOf(store, workspaceId, ids)).toEqual([
        [2, T0 + 2_000],
        [1, T0 + 2_000],
        [0, null],
      ]);
      expect(await store.usageCounts(workspaceId)).toEqual({ write: 0, read: 3 });
      await bookkeeping.close();
    });

    it("records read before the write show the counts still waiting", async () => {
      const { workspaceId, ids } = await workspaceWith(store, ["a"]);
      const bookkeeping = batchReadBookkeeping(store, log, 60_000);
      await bookkeeping.recordRead(workspaceId, ids, T0 + 5_000);
      const [shown] = bookkeeping.withPendingReads(workspaceId, await store.getMemories(workspaceId, ids));
      expect([shown!.access_count, shown!.last_accessed_at]).toEqual([1, T0 + 5_000]);
      await bookkeeping.close();
      const [after] = bookkeeping.withPendingReads(workspaceId, await store.getMemories(workspaceId, ids));
      expect([after!.access_count, after!.last_accessed_at]).toEqual([1, T0 + 5_000]); // counted once, not twice
    });

    it("a write committed but not yet answered is not counted twice in records read meanwhile", async () => {
      const { workspaceId, ids } = await workspaceWith(store, ["a"]);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let committed: () => void = () => {};
      const written = new Promise<void>((resolve) => (committed = resolve));
      // The store commits at once and answers later: what another connection sees between the two.
      const slow = new Proxy(store, {
        get(target, key) {
          if (key === "recordReads") {
            return async (...args: Parameters<MemoryStore["recordReads"]>) => {
              const done = await target.recordReads(...args);
              committed();
              await held;
              return done;
            };
          }
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const bookkeeping = batchReadBookkeeping(slow, log, 60_000);
      await bookkeeping.recordRead(workspaceId, ids, T0 + 7_000);
      const flushed = bookkeeping.flush();
      await written;
      const [during] = bookkeeping.withPendingReads(workspaceId, await store.getMemories(workspaceId, ids));
      expect([during!.access_count, during!.last_accessed_at]).toEqual([1, T0 + 7_000]);
      // A read gathered meanwhile still counts on top of the committed one.
      await bookkeeping.recordRead(workspaceId, ids, T0 + 8_000);
      const [more] = bookkeeping.withPendingReads(workspaceId, await store.getMemories(workspaceId, ids));
      expect([more!.access_count, more!.last_accessed_at]).toEqual([2, T0 + 8_000]);
      release();
      await flushed;
      await bookkeeping.close();
      expect(await countsOf(store, workspaceId, ids)).toEqual([[2, T0 + 8_000]]);
    });

    it("a clean stop writes what is waiting; after it, reads are written at once", async () => {
      const { workspaceId, ids } = await workspaceWith(store, ["a"]);
      const bookkeeping = batchReadBookkeeping(store, log, 60_000);
      await bookkeeping.recordRead(workspaceId, ids, T0 + 1);
      await bookkeeping.close();
      expect(await countsOf(store, workspaceId, ids)).toEqual([[1, T0 + 1]]);
      await bookkeeping.recordRead(workspaceId, ids, T0 + 2);
      expect(await countsOf(store, workspaceId, ids)).toEqual([[2, T0 + 2]]);
    });

    it("gathered reads are written within the interval without anyone asking", async () => {
      const { workspaceId, ids } = await workspaceWith(store, ["a"]);
      const bookkeeping = batchReadBookkeeping(store, log, 20);
      await bookkeeping.recordRead(workspaceId, ids, T0 + 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await countsOf(store, workspaceId, ids)).toEqual([[1, T0 + 1]]);
      await bookkeeping.close();
    });

    it("a write the store refuses loses nothing: the reads are kept, laid over records, and written on the next attempt", async () => {
      const { workspaceId, ids } = await workspaceWith(store, ["a"]);
      let refuse = true;
      const flaky = new Proxy(store, {
        get(target, key) {
          if (key === "recordReads" && refuse) return async () => Promise.reject(new Error("store unavailable"));
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const bookkeeping = batchReadBookkeeping(flaky, log, 60_000);
      await bookkeeping.recordRead(workspaceId, ids, T0 + 1);
      await expect(bookkeeping.flush()).rejects.toThrow("store unavailable");
      expect(warnings.at(-1)).toMatch(/not written yet/);
      await bookkeeping.recordRead(workspaceId, ids, T0 + 2);
      const [shown] = bookkeeping.withPendingReads(workspaceId, await store.getMemories(workspaceId, ids));
      expect(shown!.access_count).toBe(2);
      refuse = false;
      await bookkeeping.close();
      expect(await countsOf(store, workspaceId, ids)).toEqual([[2, T0 + 2]]);
      expect(await store.usageCounts(workspaceId)).toEqual({ write: 0, read: 2 });
    });
  });
}

const tmp = tempDir();
afterAll(() => tmp.cleanup());
suite("SQLite", async () => openSqliteStore(join(tmp.dir, "bookkeeping.db")));

describe("retrieval bookkeeping with another process writing (SQLite)", () => {
  it("the interval's write does not wait on another connection's write lock: the reads wait, then are written once, without a warning", async () => {
    const path = join(tmp.dir, "busy.db");
    const store = openSqliteStore(path);
    const { workspaceId, ids } = await workspaceWith(store, ["a"]);
    const other = new Database(path, { fileMustExist: true });
    other.exec("BEGIN IMMEDIATE");
    const warned = warnings.length;
    const bookkeeping = batchReadBookkeeping(store, log, 20);
    try {
      await bookkeeping.recordRead(workspaceId, ids, T0 + 1);
      // several intervals while the lock is held: each attempt gives up at once (busy_timeout is 15 s for other writes)
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(await countsOf(store, workspaceId, ids)).toEqual([[0, null]]);
      const [shown] = bookkeeping.withPendingReads(workspaceId, await store.getMemories(workspaceId, ids));
      expect(shown!.access_count).toBe(1);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await countsOf(store, workspaceId, ids)).toEqual([[1, T0 + 1]]);
    expect(await store.usageCounts(workspaceId)).toEqual({ write: 0, read: 1 });
    expect(warnings.length).toBe(warned); // a lock held elsewhere is not an outage
    await bookkeeping.close();
    await store.close();
  });

  it("a clean stop waits for the lock and loses nothing", async () => {
    const path = join(tmp.dir, "busy-stop.db");
    const store = openSqliteStore(path);
    const { workspaceId, ids } = await workspaceWith(store, ["a"]);
    const bookkeeping = batchReadBookkeeping(store, log, 60_000);
    await bookkeeping.recordRead(workspaceId, ids, T0 + 1);
    // Another process holds the write lock for 300 ms: close() must wait it out (busy_timeout), not give up.
    const { spawn } = await import("node:child_process");
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const D = require(${JSON.stringify(require.resolve("better-sqlite3"))}); const db = new D(${JSON.stringify(path)}); db.exec("BEGIN IMMEDIATE"); console.log("held"); setTimeout(() => { db.exec("ROLLBACK"); db.close(); }, 300);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    // listened for at once: the wait below turns the event loop, so the holder may exit before close() returns
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    await new Promise<void>((resolve) => holder.stdout!.once("data", () => resolve()));
    await bookkeeping.close();
    expect(await countsOf(store, workspaceId, ids)).toEqual([[1, T0 + 1]]);
    await exited;
    await store.close();
  });
});

let cluster: PgCluster | undefined;
afterAll(async () => {
  await cluster?.stop();
});
suite(
  "PostgreSQL",
  async () => {
    cluster = await startPostgres();
    return openPostgresStore(await cluster.createDatabase());
  },
  !canStartPostgres(),
);
