// Agents of a fleet ask the same questions and store the same facts: an exact text seen recently is not run through
// the model again. Keyed by the model's id, the purpose and the exact text, so a vector is never served for another
// model or another text; bounded in bytes, least recently used first out. Concurrent calls for one text share a run.
import type { Embedder } from "./types.js";

/** What BRAIN_EMBED_CACHE_MB defaults to: about 9,000 vectors of 896 dimensions. */
export const DEFAULT_EMBED_CACHE_MB = 32;

export interface EmbeddingCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

type Closable = Embedder & { close?: () => Promise<void> };

/** `maxBytes` 0 turns the cache off (the embedder is returned as it is). */
export function cacheEmbeddings(embedder: Closable, maxBytes: number): Closable & { cacheStats?: () => EmbeddingCacheStats } {
  if (!(maxBytes > 0)) return embedder;
  const entries = new Map<string, Float32Array>(); // insertion order = recency: a hit is moved to the end
  const running = new Map<string, Promise<Float32Array>>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;
  const sizeOf = (key: string, vector: Float32Array) => vector.byteLength + 2 * key.length;
  const keyOf = (text: string, purpose: string) => `${embedder.id}\u0000${purpose}\u0000${text}`;

  function remember(key: string, vector: Float32Array): void {
    const size = sizeOf(key, vector);
    if (size > maxBytes) return;
    entries.set(key, vector);
    bytes += size;
    for (const [oldest, v] of entries) {
      if (bytes <= maxBytes) break;
      entries.delete(oldest);
      bytes -= sizeOf(oldest, v);
    }
  }

  const cached: Closable & { cacheStats: () => EmbeddingCacheStats } = {
    id: embedder.id,
    dimensions: embedder.dimensions,
    dedupThreshold: embedder.dedupThreshold,
    load: () => embedder.load(),
    async embed(texts, purpose) {
      const out: Promise<Float32Array>[] = new Array(texts.length);
      const missing: { text: string; key: string; at: number[] }[] = [];
      const missingByKey = new Map<string, (typeof missing)[number]>();
      texts.forEach((text, i) => {
        const key = keyOf(text, purpose);
        const vector = entries.get(key);
        if (vector) {
          entries.delete(key);
          entries.set(key, vector);
          hits++;
          out[i] = Promise.resolve(vector);
        } else if (running.has(key)) {
          hits++;
          out[i] = running.get(key)!;
        } else {
          const known = missingByKey.get(key);
          if (known) known.at.push(i);
          else {
            const entry = { text, key, at: [i] };
            missing.push(entry);
            missingByKey.set(key, entry);
          }
        }
      });
      if (missing.length > 0) {
        misses += missing.length;
        const run = embedder.embed(
          missing.map((m) => m.text),
          purpose,
        );
        missing.forEach((m, k) => {
          const one = run.then((vectors) => vectors[k]!);
          running.set(m.key, one);
          // A failed run is not remembered: the next call tries the model again.
          void one.then(
            (vector) => (running.delete(m.key), remember(m.key, vector)),
            () => running.delete(m.key),
          );
          for (const i of m.at) out[i] = one;
        });
      }
      // Each caller gets its own copy: a vector handed out must not change what the cache holds.
      return (await Promise.all(out)).map((v) => v.slice());
    },
    cacheStats: () => ({ hits, misses, entries: entries.size, bytes }),
  };
  if (embedder.distinctFacts) cached.distinctFacts = embedder.distinctFacts.bind(embedder);
  if (embedder.close) cached.close = embedder.close.bind(embedder);
  return cached;
}
