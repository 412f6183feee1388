// The vector index: SIMD scan results equal plain dot products; refresh by rev is incremental and idempotent.
import { expect, it } from "vitest";
import { VectorIndexes, WorkspaceIndex } from "../../src/service/retrieval/vector-index.js";

function unit(d: number, seed: number): Float32Array {
  const v = new Float32Array(d);
  let x = seed;
  for (let i = 0; i < d; i++) v[i] = ((x = (x * 16807) % 2147483647) / 2147483647) - 0.5;
  const n = Math.hypot(...v);
  return v.map((y) => y / n);
}

it("cosines from the index equal plain dot products, for dimensions that are not a multiple of 8", () => {
  const d = 100;
  const index = new WorkspaceIndex(d, "e");
  const vectors = Array.from({ length: 300 }, (_, i) => unit(d, i + 1));
  index.apply(vectors.map((vector, i) => ({ id: i, rev: i + 1, embedder_id: "e", vector })));
  const q = unit(d, 999);
  const cos = index.cosines(q);
  for (let i = 0; i < vectors.length; i++) expect(cos[i]).toBeCloseTo(vectors[i]!.reduce((s, x, k) => s + x * q[k]!, 0), 5);
  expect(index.nearest(vectors[42]!)).toMatchObject({ id: 42 });
  expect(index.nearest(vectors[42]!)!.cosine).toBeCloseTo(1, 5);
});

it("rows already applied are skipped, an update replaces a vector in place, another model's vector leaves the index", () => {
  const index = new WorkspaceIndex(16, "e");
  const a = unit(16, 1);
  const b = unit(16, 2);
  index.apply([{ id: 7, rev: 1, embedder_id: "e", vector: a }]);
  index.apply([{ id: 7, rev: 1, embedder_id: "e", vector: b }]);
  expect(index.nearest(a)!.cosine).toBeCloseTo(1, 5);
  index.apply([{ id: 7, rev: 2, embedder_id: "e", vector: b }]);
  expect(index.size).toBe(1);
  expect(index.nearest(b)!.cosine).toBeCloseTo(1, 5);
  index.apply([{ id: 7, rev: 3, embedder_id: "other", vector: b }]);
  expect(index.size).toBe(0);
  expect(index.nearest(b)).toBeNull();
  expect(index.pairsAbove(0.5, 10)).toBe(0);
});

it("duplicate pairs are counted among the most recently written memories", () => {
  const index = new WorkspaceIndex(32, "e");
  const v = unit(32, 7);
  index.apply([
    { id: 1, rev: 1, embedder_id: "e", vector: v },
    { id: 2, rev: 2, embedder_id: "e", vector: v },
    { id: 3, rev: 3, embedder_id: "e", vector: unit(32, 8) },
    { id: 4, rev: 4, embedder_id: "e", vector: v },
  ]);
  expect(index.pairsAbove(0.99, 10)).toBe(3);
  expect(index.pairsAbove(0.99, 2)).toBe(0);
});

it("a read loads the index page by page, and rows written or rewritten between pages are neither skipped nor stale", async () => {
  const d = 16;
  // a store in miniature: rows in rev order; a write takes the next rev (a rewrite moves the memory to it)
  let rows = Array.from({ length: 10 }, (_, i) => ({ id: i, rev: i + 1, embedder_id: "e", vector: unit(d, i + 1) }));
  const write = (id: number, vector: Float32Array) => {
    rows = [...rows.filter((r) => r.id !== id), { id, rev: rows.at(-1)!.rev + 1, embedder_id: "e", vector }];
  };
  const pages: number[] = [];
  const fetchPage = async (since: number, limit: number) => {
    pages.push(since);
    const page = rows.filter((r) => r.rev > since).slice(0, limit);
    // between the first and the second page: a new memory, and m1 (already loaded) rewritten
    if (pages.length === 1) (write(10, unit(d, 11)), write(1, unit(d, 101)));
    return page;
  };
  const indexes = new VectorIndexes(d, "e");
  const [first, second] = await Promise.all([indexes.refreshShared(1, fetchPage, 4), indexes.refreshShared(1, fetchPage, 4)]);
  expect(first).toBe(second);
  expect(pages.length).toBeGreaterThanOrEqual(3);
  expect(first.size).toBe(11);
  expect(first.maxRev).toBe(12);
  expect(first.nearest(unit(d, 101))).toMatchObject({ id: 1 });
  expect(first.nearest(unit(d, 101))!.cosine).toBeCloseTo(1, 5);
  expect(first.nearest(unit(d, 11))).toMatchObject({ id: 10 });
});
