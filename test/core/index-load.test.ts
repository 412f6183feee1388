// An index load on SQLite reads the revs from the covering index, then each page's codes in one aggregated row of
// memory_vectors (in the file's order), joined by id in the process. What it returns must be exactly what the floats'
// read says, row for row: the same ids, revs and models in rev order, page after page; codes equal to the codes of
// the floats; floats where there are no codes (another model, a vector whose codes were lost); tombstones; nothing of
// another workspace.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { vectorCodes } from "../../src/service/retrieval/int8-kernel.js";
import { VectorIndexes, WorkspaceIndex, storeSource } from "../../src/service/retrieval/vector-index.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import { FORGOTTEN_EMBEDDER, type NewMemory, type VectorRecord } from "../../src/service/store/types.js";

const T0 = Date.UTC(2025, 0, 1);
const DIMS = 16;
const EMBEDDER = "emb/1";
const dir = mkdtempSync(join(tmpdir(), "brain-index-load-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let seed = 11;
const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
function unit(length = DIMS): Float32Array {
  const v = Float32Array.from({ length }, random);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}
const memory = (workspaceId: number, i: number, embedder = EMBEDDER, vector = unit()): NewMemory => ({
  workspace_id: workspaceId,
  text: `fact ${i}`,
  meta: {},
  vector,
  embedder_id: embedder,
  importance: 5,
  temporal_type: "persistent",
  valid_until: null,
  categories: ["personal"],
  created_at: T0 + i,
});

/** Every page of `size` rows from rev 0 on, as an index's catch-up reads them. */
async function paged(read: (since: number, limit: number) => Promise<VectorRecord[]>, size: number): Promise<VectorRecord[]> {
  const all: VectorRecord[] = [];
  for (let since = 0; ; ) {
    const page = await read(since, size);
    all.push(...page);
    if (page.length < size) return all;
    since = page[page.length - 1]!.rev;
  }
}

it("an index load from codes returns, page by page, what the floats' read returns: codes, floats, tombstones, this workspace only", async () => {
  const file = join(dir, "store.db");
  let store = await openSqliteStore(file);
  const newWorkspace = async (name: string) =>
    (await store.insertWorkspace({ name, plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
  const ws = await newWorkspace("a");
  const other = await newWorkspace("b");
  const ids: number[] = [];
  await store.writeInWorkspace(ws, async (tx) => {
    for (let i = 0; i < 14; i++) ids.push((await tx.insertMemory(memory(ws, i))).id);
    // Another model's vector: read as floats by this model's load.
    ids.push((await tx.insertMemory(memory(ws, 14, "other/2", unit(24)))).id);
  });
  await store.writeInWorkspace(other, async (tx) => {
    for (let i = 0; i < 5; i++) await tx.insertMemory(memory(other, 100 + i));
  });
  // Tombstones between live rows, an update that moves a memory to the end, and more rows after them.
  expect(await store.deleteMemories(ws, [ids[2]!, ids[7]!])).toHaveLength(2);
  await store.writeInWorkspace(ws, (tx) => tx.updateMemory(ids[0]!, { vector: unit() }, T0 + 50));
  await store.writeInWorkspace(ws, async (tx) => {
    for (let i = 20; i < 23; i++) await tx.insertMemory(memory(ws, i));
  });
  // A vector whose codes are missing (as a damaged vector's are): it must come as floats.
  await store.close();
  const db = new Database(file);
  db.prepare("UPDATE memory_vectors SET codes = NULL WHERE memory_id = ?").run(ids[4]!);
  db.close();
  store = await openSqliteStore(file);
  try {
    const floats = await store.vectorsSince(ws, 0);
    const whole = await store.vectorsSince(ws, 0, undefined, EMBEDDER);
    expect(whole.map((r) => [r.id, r.rev, r.embedder_id])).toEqual(floats.map((r) => [r.id, r.rev, r.embedder_id]));
    expect(whole.filter((r) => r.embedder_id === FORGOTTEN_EMBEDDER).map((r) => r.id)).toEqual([ids[2], ids[7]]);
    expect(whole).toHaveLength(12 + 1 + 2 + 3);
    for (const [i, r] of whole.entries()) {
      const f = floats[i]!;
      if (r.embedder_id === FORGOTTEN_EMBEDDER) expect(r.vector.length + (r.codes?.length ?? 0)).toBe(0);
      else if (r.embedder_id !== EMBEDDER || r.id === ids[4]) {
        expect(r.codes).toBeUndefined();
        expect(r.vector).toEqual(f.vector);
      } else {
        expect(r.vector).toHaveLength(0);
        expect(new Uint8Array(r.codes!)).toEqual(new Uint8Array(vectorCodes(f.vector)));
      }
    }
    // Pages of every size return the same rows, in the same order, with the same bytes.
    const norm = (rows: VectorRecord[]) => rows.map((r) => [r.id, r.rev, r.embedder_id, [...r.vector], r.codes ? [...r.codes] : null]);
    for (const size of [1, 3, 4, 7]) expect(norm(await paged((s, l) => store.vectorsSince(ws, s, l, EMBEDDER), size))).toEqual(norm(whole));
    // Read after a given rev, only what is newer comes.
    const since = whole[10]!.rev;
    expect(norm(await store.vectorsSince(ws, since, undefined, EMBEDDER))).toEqual(norm(whole.filter((r) => r.rev > since)));

    // An index loaded in pages of 2 from codes holds this workspace's live memories of this model, and answers
    // exactly as a full float scan: the best match of a stored vector is that memory, at cosine 1.
    const index = await new VectorIndexes(DIMS, EMBEDDER).refreshShared(ws, storeSource(store, ws), 2);
    expect(index.size).toBe(15);
    const byId = (id: number) => floats.find((r) => r.id === id)!.vector;
    const floatRows = (wanted: readonly number[]) => store.vectorsOf(ws, wanted);
    for (const id of [ids[0]!, ids[4]!, ids[13]!]) {
      const best = await index.nearest(byId(id), floatRows);
      expect(best!.id).toBe(id);
      expect(best!.cosine).toBeCloseTo(1, 5);
    }
  } finally {
    await store.close();
  }
});

// The index's snapshot (issue 27, the first retrieve after a restart): a process that loaded many rows one by one
// stores its index in chunks; the next process loads those chunks in bulk, then only the rows written after them. It
// must answer exactly as an index loaded row by row, and a forget must erase the snapshot (it holds the codes).
describe("vector snapshots on SQLite", () => {
  const file = join(dir, "snapshot.db");
  let ws = 0;
  const ids: number[] = [];
  /** Every stored vector by id, as written. */
  const written = new Map<number, Float32Array>();
  const SNAPSHOT_AFTER = 100;

  async function insert(store: Awaited<ReturnType<typeof openSqliteStore>>, n: number, from: number) {
    await store.writeInWorkspace(ws, async (tx) => {
      for (let i = from; i < from + n; i++) {
        const m = memory(ws, i);
        const id = (await tx.insertMemory(m)).id;
        ids.push(id);
        written.set(id, m.vector);
      }
    });
  }

  /** The ids and cosines of the 10 best matches of a few stored vectors and random queries. */
  async function answers(index: Awaited<ReturnType<VectorIndexes["refreshShared"]>>, store: Awaited<ReturnType<typeof openSqliteStore>>) {
    const floatRows = (wanted: readonly number[]) => store.vectorsOf(ws, wanted);
    seed = 99;
    const queries = [written.get(ids[3]!)!, written.get(ids[250]!)!, unit(), unit(), unit()];
    return Promise.all(queries.map((q) => index.search(q, -1, 10, floatRows)));
  }

  it("a second process loads the snapshot in bulk plus the rows after it, and answers exactly as a load row by row", async () => {
    let store = await openSqliteStore(file);
    ws = (await store.insertWorkspace({ name: "s", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
    await insert(store, 300, 0);
    const first = new VectorIndexes(DIMS, EMBEDDER, undefined, SNAPSHOT_AFTER);
    await first.refreshShared(ws, storeSource(store, ws));
    await first.settled();
    const stored = await store.readVectorSnapshot(ws, EMBEDDER);
    expect(stored).toMatchObject({ embedderId: EMBEDDER, dimensions: DIMS, rows: 300, chunks: 1 });
    expect(await store.readVectorSnapshot(ws, "other/2")).toBeNull();
    // Rows after the snapshot: new memories and a changed vector (a forget drops the snapshot: the last test).
    await insert(store, 20, 300);
    const changed = unit();
    await store.writeInWorkspace(ws, (tx) => tx.updateMemory(ids[5]!, { vector: changed }, T0 + 60));
    written.set(ids[5]!, changed);
    await store.close();

    store = await openSqliteStore(file);
    try {
      const fromSnapshot = await new VectorIndexes(DIMS, EMBEDDER, undefined, SNAPSHOT_AFTER).refreshShared(ws, storeSource(store, ws));
      // Only the 21 rows after the snapshot were read one by one.
      expect(fromSnapshot.rowsSinceSnapshot).toBe(21);
      expect(fromSnapshot.size).toBe(320);
      const rowByRow = await new VectorIndexes(DIMS, EMBEDDER).refreshShared(ws, {
        vectorsSince: (since, limit, codesFor) => store.vectorsSince(ws, since, limit, codesFor),
        vectorsOf: (wanted) => store.vectorsOf(ws, wanted),
      });
      expect(rowByRow.rowsSinceSnapshot).toBe(320);
      const expected = await answers(rowByRow, store);
      expect(await answers(fromSnapshot, store)).toEqual(expected);
      expect(expected[0]![0]).toMatchObject({ id: ids[3] });
      // The changed vector is found as it is now, not as the snapshot had it.
      expect((await fromSnapshot.nearest(changed, (w) => store.vectorsOf(ws, w)))!.id).toBe(ids[5]);
    } finally {
      await store.close();
    }
  });

  it("an index in many chunks loads back to the same answers (chunk by chunk, in slot order)", async () => {
    const store = await openSqliteStore(file);
    try {
      const index = await new VectorIndexes(DIMS, EMBEDDER).refreshShared(ws, storeSource(store, ws));
      const copy = new WorkspaceIndex(DIMS, EMBEDDER);
      for (const chunk of index.snapshotChunks(7)) expect(copy.loadChunk(chunk)).toBe(true);
      copy.maxRev = index.maxRev;
      expect(copy.size).toBe(index.size);
      expect(await answers(copy, store)).toEqual(await answers(index, store));
      // A chunk of another shape is refused, not misread.
      expect(new WorkspaceIndex(DIMS * 2, EMBEDDER).loadChunk([...index.snapshotChunks(7)][0]!)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it("forgetting a memory erases the snapshot that held its codes, from the file and its WAL", async () => {
    const store = await openSqliteStore(file);
    try {
      const gone = ids[7]!;
      const codes = Buffer.from(vectorCodes(written.get(gone)!).subarray(8));
      const onDisk = () => Buffer.concat([file, `${file}-wal`].filter(existsSync).map((p) => readFileSync(p)));
      const count = (bytes: Buffer) => {
        let n = 0;
        for (let at = bytes.indexOf(codes); at >= 0; at = bytes.indexOf(codes, at + 1)) n++;
        return n;
      };
      // The codes beside the floats, and in the snapshot's chunk.
      expect(count(onDisk())).toBeGreaterThanOrEqual(2);
      const header = { embedderId: EMBEDDER, dimensions: DIMS, upToRev: (await store.vectorsSince(ws, 0)).at(-1)!.rev, rows: 0 };
      expect(await store.deleteMemories(ws, [gone])).toEqual([gone]);
      expect(await store.readVectorSnapshot(ws, EMBEDDER)).toBeNull();
      expect(count(onDisk())).toBe(0);
      // A snapshot made before the forget (it may hold the codes) is not kept when it is written after it.
      const index = await new VectorIndexes(DIMS, EMBEDDER).refreshShared(ws, storeSource(store, ws));
      expect(await store.writeVectorSnapshot(ws, header, index.snapshotChunks())).toBe(false);
      expect(await store.readVectorSnapshot(ws, EMBEDDER)).toBeNull();
      const db = new Database(file, { readonly: true });
      expect(db.prepare("SELECT count(*) FROM vector_snapshot_chunks").pluck().get()).toBe(0);
      db.close();
      // One made after it is.
      expect(await store.writeVectorSnapshot(ws, { ...header, upToRev: index.maxRev, rows: index.size }, index.snapshotChunks())).toBe(
        true,
      );
      expect(await store.readVectorSnapshot(ws, EMBEDDER)).toMatchObject({ rows: 319 });
    } finally {
      await store.close();
    }
  });

  it("a file from before snapshots (schema 11) is migrated and loads its index from the rows", async () => {
    const old = join(dir, "before-12.db");
    let store = await openSqliteStore(old);
    const w = (await store.insertWorkspace({ name: "o", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
    await store.writeInWorkspace(w, async (tx) => {
      for (let i = 0; i < 30; i++) await tx.insertMemory(memory(w, i));
    });
    await store.close();
    const db = new Database(old);
    db.exec("DROP TABLE vector_snapshot_chunks; DROP TABLE vector_snapshots; PRAGMA user_version = 11;");
    db.close();
    store = await openSqliteStore(old);
    try {
      const index = await new VectorIndexes(DIMS, EMBEDDER, undefined, 10).refreshShared(w, storeSource(store, w));
      expect(index.size).toBe(30);
      expect(await store.readVectorSnapshot(w, EMBEDDER)).toBeNull();
    } finally {
      await store.close();
    }
    const reopened = new Database(old, { readonly: true });
    expect(reopened.pragma("user_version", { simple: true })).toBe(12);
    reopened.close();
  });
});
