// Coalesces concurrent embed() calls into one model call: under a fleet, many stores and recalls arrive in the same
// tick, and one batch of short texts costs less than as many single runs. A batch is also capped by its characters:
// the model's cost grows with the text, and a batch of long documents would hold the model (and every query queued
// behind it) for seconds.
import type { Embedder } from "./types.js";

export interface BatchingOptions {
  /** Most texts gathered into one model call (a single request larger than this still runs whole, alone). */
  maxTexts?: number;
  /** Most characters gathered into one model call (the same exception for a single larger request). */
  maxChars?: number;
}

type Purpose = "document" | "query";

interface Pending {
  texts: readonly string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: unknown) => void;
}

export const DEFAULT_BATCH_TEXTS = 32;
/** About 500 pieces: 0.2-0.3 s of the model on this project's 2-core test machine. */
export const DEFAULT_BATCH_CHARS = 2_000;

/**
 * The same embedder (id, dimensions, thresholds, distinctFacts), but calls of one purpose that arrive in the same
 * tick, or while a batch is running, go to the model together; one model call runs at a time.
 */
/** A closable embedder stays closable (its close() is passed through). */
export function batchEmbeddings(embedder: Embedder & { close?: () => Promise<void> }, opts: BatchingOptions = {}): Embedder & { close?: () => Promise<void> } {
  const maxTexts = Math.max(1, opts.maxTexts ?? DEFAULT_BATCH_TEXTS);
  const maxChars = Math.max(1, opts.maxChars ?? DEFAULT_BATCH_CHARS);
  const charsOf = (p: Pending) => p.texts.reduce((sum, t) => sum + t.length, 0);
  const waiting: Record<Purpose, Pending[]> = { document: [], query: [] };
  let running = false;
  let scheduled = false;
  // Alternates purposes when both wait, so a stream of queries cannot starve documents (or the reverse).
  let lastPurpose: Purpose = "query";

  function schedule(): void {
    if (running || scheduled) return;
    scheduled = true;
    // setImmediate, not a microtask: requests parsed in the same poll phase join the batch.
    setImmediate(() => {
      scheduled = false;
      void runNext();
    });
  }

  async function runNext(): Promise<void> {
    if (running) return;
    const other: Purpose = lastPurpose === "document" ? "query" : "document";
    const purpose: Purpose | null = waiting[other].length ? other : waiting[lastPurpose].length ? lastPurpose : null;
    if (!purpose) return;
    lastPurpose = purpose;
    const queue = waiting[purpose];
    const batch: Pending[] = [queue.shift()!];
    let count = batch[0]!.texts.length;
    let chars = charsOf(batch[0]!);
    while (queue.length && count + queue[0]!.texts.length <= maxTexts && chars + charsOf(queue[0]!) <= maxChars) {
      const next = queue.shift()!;
      batch.push(next);
      count += next.texts.length;
      chars += charsOf(next);
    }
    running = true;
    try {
      const texts = batch.flatMap((p) => p.texts);
      const vectors = await embedder.embed(texts, purpose);
      let at = 0;
      for (const p of batch) {
        p.resolve(vectors.slice(at, at + p.texts.length));
        at += p.texts.length;
      }
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      running = false;
      if (waiting.document.length || waiting.query.length) void runNext();
    }
  }

  const wrapped: Embedder & { close?: () => Promise<void> } = {
    id: embedder.id,
    dimensions: embedder.dimensions,
    dedupThreshold: embedder.dedupThreshold,
    load: () => embedder.load(),
    embed(texts, purpose) {
      if (texts.length === 0) return Promise.resolve([]);
      return new Promise<Float32Array[]>((resolve, reject) => {
        waiting[purpose].push({ texts: [...texts], resolve, reject });
        schedule();
      });
    },
  };
  if (embedder.distinctFacts) wrapped.distinctFacts = embedder.distinctFacts.bind(embedder);
  const closable = embedder as Embedder & { close?: () => Promise<void> };
  if (closable.close) wrapped.close = closable.close.bind(embedder);
  return wrapped;
}
