// The WAL's checkpoints off the store's thread (sqltail): after the connection's first checkpoint, a commit of the
// store's connection never copies the WAL into the file (SQLite's automatic checkpoint, on by default at 1,000 frames,
// ran inside whichever commit crossed it); a thread of its own does, and the WAL starts over as before; under a burst of writes the WAL stays bounded; and the
// memories written are all there after a reopen.
import { mkdtempSync, openSync, readSync, closeSync, rmSync, statSync } from "node:fs";
import { endianness, tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { loadDriver, openSqliteStore } from "../../src/service/store/sqlite/index.js";
import { CHECKPOINT_FRAMES, WAL_BOUND_FRAMES, createCheckpointer } from "../../src/service/store/sqlite/checkpointer.js";
import type { MemoryStore } from "../../src/service/store/types.js";

const dir = mkdtempSync(join(tmpdir(), "brain-checkpoints-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The wal-index header's mxFrame (frames in the WAL) and the checkpoint's nBackfill (https://www.sqlite.org/walformat.html). */
function walState(path: string): { frames: number; backfilled: number } {
  const fd = openSync(`${path}-shm`, "r");
  try {
    const b = Buffer.alloc(100);
    readSync(fd, b, 0, 100, 0);
    const le = endianness() === "LE";
    return { frames: le ? b.readUInt32LE(16) : b.readUInt32BE(16), backfilled: le ? b.readUInt32LE(96) : b.readUInt32BE(96) };
  } finally {
    closeSync(fd);
  }
}

/** Each COMMIT the store's connection runs: the WAL before and after it. */
function watchCommits(path: string) {
  const Database = loadDriver();
  const exec = Database.prototype.exec;
  const commits: { before: ReturnType<typeof walState>; after: ReturnType<typeof walState> }[] = [];
  Database.prototype.exec = function (this: InstanceType<typeof Database>, sql: string) {
    if (sql !== "COMMIT" || this.name !== path) return exec.call(this, sql);
    const before = walState(path);
    const result = exec.call(this, sql);
    commits.push({ before, after: walState(path) });
    return result;
  };
  return { commits, restore: () => void (Database.prototype.exec = exec) };
}

let restore: (() => void) | null = null;
let store: MemoryStore | null = null;
afterEach(async () => {
  restore?.();
  restore = null;
  await store?.close();
  store = null;
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

async function openWithWorkspace(name: string) {
  const path = join(dir, `${name}.db`);
  store = openSqliteStore(path);
  const ws = (await store.insertWorkspace({ name, plan: "free", billing_cycle: "monthly", status: "active", created_at: 1 })).id;
  let n = 0;
  const write = () =>
    store!.writeInWorkspace(ws, async (tx) => {
      const i = n++;
      await tx.insertMemory({
        workspace_id: ws,
        text: `memory ${i}: the quarterly planning of team ${i % 97}, item ${i * 7919}`,
        meta: { i },
        vector: new Float32Array(384).map((_, j) => Math.sin(i * 7 + j)),
        embedder_id: "emb",
        importance: 3,
        temporal_type: "persistent",
        valid_until: null,
        categories: [],
        created_at: 1_000 + i,
      });
    });
  return { path, ws, write, written: () => n };
}

describe("SQLite's WAL checkpoints", () => {
  it("after the first, never run inside a commit of the store's connection; a thread's lets the WAL start over", async () => {
    const { path, write } = await openWithWorkspace("inside");
    // The connection's first checkpoint is SQLite's own, inside the commit that crosses its threshold, as before.
    let last = 0;
    while (walState(path).frames >= last) {
      last = walState(path).frames;
      await write();
    }
    expect(last).toBeGreaterThanOrEqual(CHECKPOINT_FRAMES);
    const watch = watchCommits(path);
    restore = watch.restore;
    // Up to the commit that takes the WAL past SQLite's default threshold again (where its own checkpoint used to run).
    while (walState(path).frames < CHECKPOINT_FRAMES) await write();
    const crossing = watch.commits.at(-1)!;
    expect(crossing.before.frames).toBeLessThan(CHECKPOINT_FRAMES);
    expect(crossing.after.frames).toBeGreaterThanOrEqual(CHECKPOINT_FRAMES);
    expect(crossing.after.backfilled).toBe(crossing.before.backfilled); // nothing copied into the file by this commit
    // The thread was asked after that commit: it copies the WAL while the event loop turns.
    const deadline = Date.now() + 10_000;
    while (walState(path).backfilled < CHECKPOINT_FRAMES && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(walState(path).backfilled).toBeGreaterThanOrEqual(CHECKPOINT_FRAMES);
    // Every frame is in the file, so the next write starts the WAL over, as after SQLite's own checkpoint.
    const framesBefore = walState(path).frames;
    await write();
    expect(walState(path).frames).toBeLessThan(framesBefore);
    // No commit of the store's connection moved the checkpoint on (a restart sets it back to 0).
    for (const c of watch.commits) if (c.after.frames >= c.before.frames) expect(c.after.backfilled).toBe(c.before.backfilled);
  });

  it("keep the WAL bounded under a burst of writes, and every memory is there after a reopen", async () => {
    const { path, ws, write, written } = await openWithWorkspace("burst");
    let largest = 0;
    let restarts = 0;
    let last = 0;
    for (let i = 0; i < 1_200; i++) {
      await write();
      const { frames } = walState(path);
      if (frames < last) restarts++;
      last = frames;
      largest = Math.max(largest, frames, statSync(`${path}-wal`).size / 4096);
      await turn();
    }
    expect(restarts).toBeGreaterThanOrEqual(3);
    // SQLite's own checkpoint, at WAL_BOUND_FRAMES, stays the bound; it may wait for the thread's checkpoint in progress.
    expect(largest).toBeLessThan(2 * WAL_BOUND_FRAMES);
    await store!.close();
    store = openSqliteStore(path);
    expect(await store.countMemories(ws)).toBe(written());
  });

  it("closing leaves no WAL behind, as before", async () => {
    const { path, write } = await openWithWorkspace("close");
    // past the first checkpoint (SQLite's own) and the second (the thread's)
    let restarts = 0;
    for (let last = 0; restarts < 2 || walState(path).frames < 50; ) {
      await write();
      const { frames } = walState(path);
      if (frames < last) restarts++;
      last = frames;
      await turn();
    }
    await new Promise((r) => setTimeout(r, 50));
    await store!.close();
    store = null;
    expect(() => statSync(`${path}-wal`)).toThrow();
  });
});

describe("the checkpointer's thread", () => {
  it("starts only after the first checkpoint, when the next is due; ends when idle; starts again when one is due", async () => {
    const path = join(dir, "thread.db");
    const Database = loadDriver();
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec("CREATE TABLE t (x BLOB)");
    const insert = db.prepare("INSERT INTO t VALUES (randomblob(3000))"); // one row a frame or so
    const bounds: number[] = [];
    const checkpointer = createCheckpointer(
      path,
      createRequire(import.meta.url).resolve("better-sqlite3"),
      (frames) => {
        bounds.push(frames);
        db.pragma(`wal_autocheckpoint = ${frames}`);
      },
      300,
    );
    const writeUntil = async (done: () => boolean) => {
      for (let i = 0; i < 20_000 && !done(); i++) {
        insert.run();
        checkpointer.afterWrite();
        if (i % 20 === 0) await turn();
      }
    };
    try {
      // The first checkpoint is SQLite's own (wal_autocheckpoint at its default): no thread yet, then the bound is set.
      await writeUntil(() => bounds.length > 0);
      expect(bounds).toEqual([WAL_BOUND_FRAMES]);
      expect(checkpointer.stats.started).toBe(0);
      // The next one due starts the thread, which checkpoints.
      await writeUntil(() => checkpointer.stats.checkpoints > 0);
      expect(checkpointer.stats.started).toBe(1);
      expect(checkpointer.stats.last?.ok).toBe(true);
      // Idle, it ends.
      const deadline = Date.now() + 5_000;
      while (checkpointer.stats.exited === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(checkpointer.stats.exited).toBe(1);
      // Written to again, it starts again when a checkpoint is due.
      await writeUntil(() => checkpointer.stats.checkpoints > 1);
      expect(checkpointer.stats.started).toBe(2);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });
});
