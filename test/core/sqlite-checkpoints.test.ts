// The WAL's checkpoints off the store's thread (sqltail): after the connection's first checkpoint, a commit of the
// store's connection never copies the WAL into the file (SQLite's automatic checkpoint, on by default at 1,000 frames,
// ran inside whichever commit crossed it); a thread of its own does, and the WAL starts over as before; under a burst of writes the WAL stays bounded; and the
// memories written are all there after a reopen.
import { mkdtempSync, openSync, readSync, closeSync, rmSync, statSync } from "node:fs";
import { endianness, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { loadDriver, openSqliteStore } from "../../src/service/store/sqlite/index.js";
import { CHECKPOINT_FRAMES, WAL_BOUND_FRAMES } from "../../src/service/store/sqlite/checkpointer.js";
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
