// The embedding cache: an exact text already embedded by this model is not run again; the bound holds.
import { describe, expect, it } from "vitest";
import { cacheEmbeddings } from "../../src/service/models/embedding-cache.js";
import type { Embedder } from "../../src/service/models/types.js";

function countingEmbedder(id = "fake/1", fail?: (texts: readonly string[]) => boolean) {
  const calls: string[][] = [];
  const embedder: Embedder = {
    id,
    dimensions: 4,
    dedupThreshold: 0.9,
    load: async () => undefined,
    async embed(texts, purpose) {
      calls.push([...texts]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (fail?.(texts)) throw new Error("model failed");
      return texts.map((t) => Float32Array.of(t.length, purpose === "query" ? 1 : 0, 0, 0));
    },
  };
  return { embedder, calls };
}

describe("the embedding cache", () => {
  it("a text embedded once is served from the cache, for its purpose only", async () => {
    const { embedder, calls } = countingEmbedder();
    const cached = cacheEmbeddings(embedder, 1 << 20);
    const [a] = await cached.embed(["the deploy runs at noon"], "document");
    const [b] = await cached.embed(["the deploy runs at noon"], "document");
    expect(Array.from(b!)).toEqual(Array.from(a!));
    expect(calls).toHaveLength(1);
    const [q] = await cached.embed(["the deploy runs at noon"], "query");
    expect(q![1]).toBe(1);
    expect(calls).toHaveLength(2);
  });

  it("texts that differ by one character are different keys", async () => {
    const { embedder, calls } = countingEmbedder();
    const cached = cacheEmbeddings(embedder, 1 << 20);
    await cached.embed(["Port 5432"], "query");
    await cached.embed(["port 5432"], "query");
    await cached.embed(["Port 5432 "], "query");
    expect(calls.flat()).toEqual(["Port 5432", "port 5432", "Port 5432 "]);
  });

  it("concurrent calls for one text share one model run, and repeats inside a call are embedded once", async () => {
    const { embedder, calls } = countingEmbedder();
    const cached = cacheEmbeddings(embedder, 1 << 20);
    const results = await Promise.all([cached.embed(["same", "same", "other"], "document"), cached.embed(["same"], "document")]);
    expect(calls).toEqual([["same", "other"]]);
    expect(results.map((r) => r.map((v) => v[0]))).toEqual([[4, 4, 5], [4]]);
  });

  it("a caller that changes its vector does not change what the next caller gets", async () => {
    const { embedder } = countingEmbedder();
    const cached = cacheEmbeddings(embedder, 1 << 20);
    const [first] = await cached.embed(["text"], "document");
    first!.fill(9);
    const [second] = await cached.embed(["text"], "document");
    expect(second![0]).toBe(4);
  });

  it("stays within its byte bound, dropping the least recently used first", async () => {
    const { embedder, calls } = countingEmbedder();
    // each entry: 16 bytes of vector + 2 bytes per key character (id, purpose, text: about 20 characters)
    const cached = cacheEmbeddings(embedder, 3 * 60);
    for (const t of ["t1", "t2", "t3"]) await cached.embed([t], "query");
    await cached.embed(["t1"], "query"); // t1 is now the most recent
    await cached.embed(["t4"], "query"); // evicts t2
    expect(cached.cacheStats!().bytes).toBeLessThanOrEqual(3 * 60);
    calls.length = 0;
    await cached.embed(["t1"], "query");
    await cached.embed(["t2"], "query");
    expect(calls).toEqual([["t2"]]);
  });

  it("a failed run is not cached: the next call runs the model again", async () => {
    let broken = true;
    const { embedder, calls } = countingEmbedder("fake/1", () => broken);
    const cached = cacheEmbeddings(embedder, 1 << 20);
    await expect(cached.embed(["x"], "query")).rejects.toThrow("model failed");
    broken = false;
    await expect(cached.embed(["x"], "query")).resolves.toHaveLength(1);
    expect(calls).toHaveLength(2);
  });

  it("a bound of 0 turns it off, and the embedder's description passes through", async () => {
    const { embedder } = countingEmbedder("model/7");
    expect(cacheEmbeddings(embedder, 0)).toBe(embedder);
    const cached = cacheEmbeddings(embedder, 1 << 20);
    expect([cached.id, cached.dimensions, cached.dedupThreshold]).toEqual(["model/7", 4, 0.9]);
  });
});
