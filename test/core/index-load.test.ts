// An index load on SQLite reads the revs from the covering index, then each page's codes in one aggregated row of
// memory_vectors (in the file's order), joined by id in the process. What it returns must be exactly what the floats'
// read says, row for row: the same ids, revs and models in rev order, page after page; codes equal to the codes of
// the floats; floats where there are no codes (another model, a vector whose codes were lost); tombstones; nothing of
// another workspace.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { vectorCodes } from "../../src/service/retrieval/int8-kernel.js";
import { VectorIndexes, storeSource } from "../../src/service/retrieval/vector-index.js";
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
