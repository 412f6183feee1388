// The vector index: int8 codes in memory, exact cosines from float rows read back (as the store would), equal to a
// full float scan; refresh by rev is incremental and idempotent, deletions leave it, and its cache keeps a budget.
import { expect, it } from "vitest";
import { VectorIndexes, WorkspaceIndex, type VectorSource } from "../../src/service/retrieval/vector-index.js";
import { FORGOTTEN_EMBEDDER, type VectorRecord } from "../../src/service/store/types.js";

function unit(d: number, seed: number): Float32Array {
  const v = new Float32Array(d);
  let x = seed;
  for (let i = 0; i < d; i++) v[i] = (x = (x * 16807) % 2147483647) / 2147483647 - 0.5;
  const n = Math.hypot(...v);
  return v.map((y) => y / n);
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, k) => s + x * b[k]!, 0);

/** Float rows by id, as the store's vectorsOf answers (and how many it was asked for). */
function floatRows(rows: readonly VectorRecord[]) {
  const asked: number[] = [];
  const read = async (ids: readonly number[]) => {
    asked.push(ids.length);
    return rows.filter((r) => ids.includes(r.id));
  };
  return { read, asked };
}

it("search equals a full float scan (order and cosines), reading back only the few rows the int8 screen keeps", async () => {
  const d = 100;
  const index = new WorkspaceIndex(d, "e");
  const rows = Array.from({ length: 3000 }, (_, i) => ({ id: i, rev: i + 1, embedder_id: "e", vector: unit(d, i + 1) }));
  index.apply(rows);
  const { read, asked } = floatRows(rows);
  for (const seed of [999, 12345, 777]) {
    const q = unit(d, seed);
    const full = rows
      .map((r) => ({ id: r.id, cosine: dot(q, r.vector) }))
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, 10);
    const found = await index.search(q, -1, 10, read);
    expect(found.map((m) => m.id)).toEqual(full.map((m) => m.id));
    found.forEach((m, i) => expect(m.cosine).toBeCloseTo(full[i]!.cosine, 6));
  }
  expect(Math.max(...asked)).toBeLessThan(300); // a tenth of the rows at most
  expect(await index.nearest(rows[42]!.vector, read)).toMatchObject({ id: 42 });
  expect(index.bytes).toBeLessThan(3000 * 100 * 4); // less than the float rows alone would take
});

it("a row the store no longer holds, or holds under another model, is left out of the answer", async () => {
  const index = new WorkspaceIndex(16, "e");
  const a = unit(16, 1);
  index.apply([
    { id: 1, rev: 1, embedder_id: "e", vector: a },
    { id: 2, rev: 2, embedder_id: "e", vector: a },
  ]);
  const found = await index.search(a, 0, 5, async () => [{ id: 2, rev: 3, embedder_id: "other", vector: a }]);
  expect(found).toEqual([]);
});

it("rows already applied are skipped, an update replaces a vector in place, another model's vector and a tombstone leave the index", async () => {
  const index = new WorkspaceIndex(16, "e");
  const a = unit(16, 1);
  const b = unit(16, 2);
  let stored: VectorRecord[] = [{ id: 7, rev: 1, embedder_id: "e", vector: a }];
  const read = async (ids: readonly number[]) => stored.filter((r) => ids.includes(r.id));
  index.apply(stored);
  index.apply([{ id: 7, rev: 1, embedder_id: "e", vector: b }]);
  expect((await index.nearest(a, read))!.cosine).toBeCloseTo(1, 5);
  stored = [{ id: 7, rev: 2, embedder_id: "e", vector: b }];
  index.apply(stored);
  expect(index.size).toBe(1);
  expect((await index.nearest(b, read))!.cosine).toBeCloseTo(1, 5);
  index.apply([{ id: 7, rev: 3, embedder_id: FORGOTTEN_EMBEDDER, vector: new Float32Array(0) }]); // a tombstone
  expect(index.size).toBe(0);
  expect(await index.nearest(b, read)).toBeNull();
  index.apply([{ id: 8, rev: 4, embedder_id: "other", vector: b }]);
  expect(index.size).toBe(0);
  expect(await index.pairsAbove(0.5, 10, read)).toBe(0);
});

it("duplicate pairs are counted among the most recently written memories", async () => {
  const index = new WorkspaceIndex(32, "e");
  const v = unit(32, 7);
  const rows = [
    { id: 1, rev: 1, embedder_id: "e", vector: v },
    { id: 2, rev: 2, embedder_id: "e", vector: v },
    { id: 3, rev: 3, embedder_id: "e", vector: unit(32, 8) },
    { id: 4, rev: 4, embedder_id: "e", vector: v },
  ];
  index.apply(rows);
  const { read } = floatRows(rows);
  expect(await index.pairsAbove(0.99, 10, read)).toBe(3);
  expect(await index.pairsAbove(0.99, 2, read)).toBe(0);
});

/** A store in miniature: rows in rev order; a write takes the next rev (a rewrite moves the memory to it). */
function miniStore(d: number, n: number) {
  let rows: VectorRecord[] = Array.from({ length: n }, (_, i) => ({ id: i, rev: i + 1, embedder_id: "e", vector: unit(d, i + 1) }));
  const nextRev = () => (rows.at(-1)?.rev ?? 0) + 1;
  return {
    write(id: number, vector: Float32Array) {
      rows = [...rows.filter((r) => r.id !== id), { id, rev: nextRev(), embedder_id: "e", vector }];
    },
    /** Forgetting leaves a tombstone in the rev stream. */
    forget(id: number) {
      rows = [...rows.filter((r) => r.id !== id), { id, rev: nextRev(), embedder_id: FORGOTTEN_EMBEDDER, vector: new Float32Array(0) }];
    },
    source(onPage?: (since: number) => void): VectorSource {
      return {
        vectorsSince: async (since, limit) => {
          onPage?.(since);
          const page = rows.filter((r) => r.rev > since);
          return limit === undefined ? page : page.slice(0, limit);
        },
        vectorsOf: async (ids) => rows.filter((r) => ids.includes(r.id) && r.vector.length > 0),
      };
    },
  };
}

it("a read loads the index page by page, and rows written or rewritten between pages are neither skipped nor stale", async () => {
  const d = 16;
  const store = miniStore(d, 10);
  const pages: number[] = [];
  const source = store.source((since) => {
    pages.push(since);
    // between the first and the second page: a new memory, and m1 (already loaded) rewritten
    if (pages.length === 2) store.write(10, unit(d, 11)), store.write(1, unit(d, 101));
  });
  const indexes = new VectorIndexes(d, "e");
  const [first, second] = await Promise.all([indexes.refreshShared(1, source, 4), indexes.refreshShared(1, source, 4)]);
  expect(first).toBe(second);
  expect(pages.length).toBeGreaterThanOrEqual(3);
  expect(first.size).toBe(11);
  expect(first.maxRev).toBe(12);
  expect(await first.nearest(unit(d, 101), source.vectorsOf)).toMatchObject({ id: 1 });
  expect(await first.nearest(unit(d, 11), source.vectorsOf)).toMatchObject({ id: 10 });
});

it("a memory forgotten through another process leaves this process's index on its next refresh", async () => {
  const d = 16;
  const store = miniStore(d, 5);
  const indexes = new VectorIndexes(d, "e");
  const index = await indexes.refreshShared(1, store.source());
  expect(index.size).toBe(5);
  store.forget(3);
  store.write(5, unit(d, 55)); // the next write gets a rev above the deletion's, and is seen too
  await indexes.refreshShared(1, store.source());
  expect(index.size).toBe(5);
  expect(index.ids.filter((id) => id !== null).sort()).toEqual([0, 1, 2, 4, 5]);
});

it("the cache of several workspaces stays within its budget, the least recently used out first, and reloads on use", async () => {
  const d = 64;
  const store = miniStore(d, 2000);
  const one = new WorkspaceIndex(d, "e");
  one.apply(await store.source().vectorsSince(0));
  const budget = Math.floor(one.bytes * 2.5); // room for two workspaces' indexes, not three
  const indexes = new VectorIndexes(d, "e", budget);
  for (const ws of [1, 2, 3]) await indexes.refreshShared(ws, store.source());
  expect(indexes.cached).toEqual([2, 3]);
  expect(indexes.bytes).toBeLessThanOrEqual(budget);
  await indexes.refreshShared(2, store.source()); // 2 becomes the most recently used
  const again = await indexes.refreshShared(1, store.source());
  expect(again.size).toBe(2000);
  expect(indexes.cached).toEqual([2, 1]);
});

it("a read ahead brings a warm index up to date as a refresh does, one at a time per workspace, and never a cold one", async () => {
  const d = 16;
  const store = miniStore(d, 6);
  const indexes = new VectorIndexes(d, "e");
  expect(indexes.readAhead(1)).toBeUndefined(); // not cached: the read refreshes (and loads) on its own
  const index = await indexes.refreshShared(1, store.source());
  store.write(6, unit(d, 66));
  store.forget(2);
  const ahead = indexes.readAhead(1)!;
  expect(ahead).toMatchObject({ sinceRev: 6, codesFor: "e" });
  expect(indexes.readAhead(1)).toBeUndefined(); // a second read meanwhile shares refreshShared's refresh instead
  const rows = await store.source().vectorsSince(ahead.sinceRev, ahead.limit);
  expect(await indexes.applyAhead(1, ahead, rows, store.source())).toBe(index);
  expect(index.maxRev).toBe(8);
  expect(index.ids.filter((id) => id !== null).sort()).toEqual([0, 1, 3, 4, 5, 6]);
  // the same as an index refreshed the usual way
  const other = await new VectorIndexes(d, "e").refreshShared(1, store.source());
  expect(await index.nearest(unit(d, 66), store.source().vectorsOf)).toEqual(await other.nearest(unit(d, 66), store.source().vectorsOf));
  // a failed read gives the turn back
  expect(indexes.readAhead(1)).toBeDefined();
  indexes.endAhead(1);
  // a full page continues with a refresh: nothing past the page is missed
  for (let i = 7; i < 12; i++) store.write(i, unit(d, 70 + i));
  const paged = { ...indexes.readAhead(1)!, limit: 2 };
  await indexes.applyAhead(1, paged, await store.source().vectorsSince(paged.sinceRev, 2), store.source());
  expect(index.size).toBe(11);
  expect(index.maxRev).toBe(13);
});
