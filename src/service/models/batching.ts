// Cross-request batching over a pool of model workers: under a fleet, many stores and recalls arrive together, and
// one model run over several short texts costs less per text than as many single runs. The dispatcher knows nothing
// of the runtime behind each worker (ONNX native, WebAssembly, or a stand-in): it only calls embed().
import type { Embedder } from "./types.js";

export interface BatchingOptions {
  /** Most texts gathered into one model call (a single request larger than this still runs whole, alone). */
  maxTexts?: number;
  /**
   * Most padded characters in one model call: its texts × its longest text, which is what a run costs (every text
   * is padded to the longest). The same exception for a single larger request.
   */
  maxChars?: number;
  /**
   * How long (ms) a waiting text may be held for others to join it while another worker is busy. A text that arrives
   * when every worker is idle is sent at once (after the current tick): a request alone never waits for a batch.
   */
  windowMs?: number;
  /**
   * Starts one more worker like the others (elastic pool): called only when calls wait while every worker is busy,
   * never beyond `maxWorkers`. Without it the pool stays as given.
   */
  spawn?: () => PoolWorker;
  /** Most workers the pool grows to (default: as many as given). */
  maxWorkers?: number;
  /** A worker started by `spawn` and idle this long (ms) is closed, its memory returned (default EMBED_WORKER_IDLE_MS). */
  releaseAfterMs?: number;
  /** Told when a worker is started or released (a count, never text). */
  log?: (message: string) => void;
}

type PoolWorker = Embedder & { close?: () => Promise<void> };

type Purpose = "document" | "query";

interface Pending {
  texts: readonly string[];
  purpose: Purpose;
  longest: number;
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: unknown) => void;
}

/** Measured with `node test/bench/batching.js` (test/bench/README.md): above 16 a batch's cost per text stops falling. */
export const DEFAULT_BATCH_TEXTS = 8;
/** About 250 padded pieces: padding costs (a document batch of mixed lengths costs more per text than one at a time). */
export const DEFAULT_BATCH_CHARS = 1_000;
/** Measured with the fleet benchmark: long enough for the requests of one burst to meet, short beside a model run. */
export const DEFAULT_BATCH_WINDOW_MS = 2;
/** Calls waiting on busy workers that start another worker (with `spawn`). */
const GROW_AT_WAITING = 2;
/** How long a worker started under concurrent load stays once idle (BRAIN_EMBED_WORKER_IDLE_MS): long beside a burst. */
export const EMBED_WORKER_IDLE_MS = 15_000;

/**
 * One embedder (the first worker's id, dimensions, thresholds, distinctFacts) over `workers`, each running the same
 * model. Calls of one purpose are gathered into batches, each batch ordered by length so its padding stays small, and
 * each idle worker takes the oldest waiting batch.
 */
export function batchEmbeddings(
  workers: PoolWorker | readonly PoolWorker[],
  opts: BatchingOptions = {},
): PoolWorker & { workerCount: () => number } {
  const pool = Array.isArray(workers) ? [...workers] : [workers as PoolWorker];
  if (pool.length === 0) throw new Error("batchEmbeddings needs at least one worker");
  const model = pool[0]!;
  const base = pool.length;
  const maxTexts = Math.max(1, opts.maxTexts ?? DEFAULT_BATCH_TEXTS);
  const maxChars = Math.max(1, opts.maxChars ?? DEFAULT_BATCH_CHARS);
  const windowMs = Math.max(0, opts.windowMs ?? DEFAULT_BATCH_WINDOW_MS);
  const maxWorkers = opts.spawn ? Math.max(base, opts.maxWorkers ?? base) : base;
  const releaseAfterMs = Math.max(0, opts.releaseAfterMs ?? EMBED_WORKER_IDLE_MS);
  const idle = [...pool];
  const waiting: Pending[] = [];
  /** When each spawned worker last finished a run; the release timer closes those idle for releaseAfterMs. */
  const idleSince = new Map<PoolWorker, number>();
  let starting = 0;
  let failedAt = -Infinity;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  let releaseTimer: NodeJS.Timeout | null = null;

  /**
   * Calls queue while every worker is busy: one more worker, loaded before it takes work (one start at a time). One
   * waiting call is not load (the warm-up run and a first request meet at every start): it goes after one model run.
   */
  function grow(): void {
    if (closed || starting > 0 || pool.length >= maxWorkers || waiting.length < GROW_AT_WAITING || idle.length > 0) return;
    // After a failed start (no memory for another model, say), not again for a while: no start loop under load.
    if (Date.now() - failedAt < releaseAfterMs) return;
    starting++;
    const worker = opts.spawn!();
    worker.load().then(
      () => {
        starting--;
        if (closed) return void worker.close?.();
        pool.push(worker);
        idle.push(worker);
        idleSince.set(worker, Date.now());
        opts.log?.(`model worker started under concurrent load (${pool.length} of at most ${maxWorkers})`);
        armRelease();
        dispatch();
      },
      (error: unknown) => {
        // The pool keeps serving with what it has; a later burst tries again.
        starting--;
        failedAt = Date.now();
        void worker.close?.();
        opts.log?.(`another model worker could not start (${(error as Error).message}); serving on ${pool.length}`);
      },
    );
  }

  function armRelease(): void {
    if (releaseTimer || closed || idleSince.size === 0) return;
    releaseTimer = setTimeout(release, releaseAfterMs);
    releaseTimer.unref();
  }

  /** Closes spawned workers idle for releaseAfterMs; the pool never goes below the workers it was given. */
  function release(): void {
    releaseTimer = null;
    const now = Date.now();
    for (const [worker, since] of idleSince) {
      if (now - since < releaseAfterMs || !idle.includes(worker)) continue;
      idleSince.delete(worker);
      idle.splice(idle.indexOf(worker), 1);
      pool.splice(pool.indexOf(worker), 1);
      void worker.close?.();
      opts.log?.(`idle model worker released (${pool.length} left)`);
    }
    armRelease();
  }

  function schedule(): void {
    if (waiting.length === 0 || idle.length === 0 || immediate) return;
    if (idle.length < pool.length && waitingTexts() < maxTexts) {
      timer ??= setTimeout(() => {
        timer = null;
        dispatch();
      }, windowMs);
      return;
    }
    if (timer) clearTimeout(timer), (timer = null);
    // setImmediate, not a microtask: requests parsed in the same poll phase join the batch.
    immediate = setImmediate(() => {
      immediate = null;
      dispatch();
    });
  }

  const waitingTexts = () => waiting.reduce((sum, p) => sum + p.texts.length, 0);

  /** The oldest waiting call and those of its purpose queued after it that fit the batch's limits. */
  function takeBatch(): Pending[] {
    const first = waiting.shift()!;
    const batch = [first];
    let count = first.texts.length;
    let longest = first.longest;
    for (let i = 0; i < waiting.length && count < maxTexts; ) {
      const next = waiting[i]!;
      const padded = (count + next.texts.length) * Math.max(longest, next.longest);
      if (next.purpose !== first.purpose || count + next.texts.length > maxTexts || padded > maxChars) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      batch.push(next);
      count += next.texts.length;
      longest = Math.max(longest, next.longest);
    }
    return batch;
  }

  function dispatch(): void {
    while (idle.length > 0 && waiting.length > 0) void run(takeIdle(), takeBatch());
    grow();
  }

  /** A worker given at the start when one is idle, else the spawned one used last: the others stay idle and go. */
  function takeIdle(): PoolWorker {
    const given = idle.findIndex((w) => !idleSince.has(w));
    return idle.splice(given >= 0 ? given : idle.length - 1, 1)[0]!;
  }

  async function run(worker: PoolWorker, batch: Pending[]): Promise<void> {
    const owners: { pending: Pending; at: number }[] = [];
    for (const pending of batch) pending.texts.forEach((_, at) => owners.push({ pending, at }));
    // Ordered by length: a run pads every text to its longest, so like lengths together waste the least.
    owners.sort((a, b) => a.pending.texts[a.at]!.length - b.pending.texts[b.at]!.length);
    try {
      const vectors = await worker.embed(
        owners.map((o) => o.pending.texts[o.at]!),
        batch[0]!.purpose,
      );
      const results = new Map(batch.map((p) => [p, new Array<Float32Array>(p.texts.length)]));
      owners.forEach((o, k) => (results.get(o.pending)![o.at] = vectors[k]!));
      for (const [pending, result] of results) pending.resolve(result);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      idle.push(worker);
      if (idleSince.has(worker)) idleSince.set(worker, Date.now());
      // What queued while this batch ran has waited a model run already: it goes now, without a window.
      if (!immediate) dispatch();
    }
  }

  const batched: PoolWorker & { workerCount: () => number } = {
    workerCount: () => pool.length,
    id: model.id,
    dimensions: model.dimensions,
    dedupThreshold: model.dedupThreshold,
    load: async () => void (await Promise.all(pool.map((w) => w.load()))),
    embed(texts, purpose) {
      if (texts.length === 0) return Promise.resolve([]);
      return new Promise<Float32Array[]>((resolve, reject) => {
        const copy = [...texts];
        waiting.push({ texts: copy, purpose, longest: Math.max(...copy.map((t) => t.length)), resolve, reject });
        schedule();
        grow();
      });
    },
  };
  if (model.distinctFacts) batched.distinctFacts = model.distinctFacts.bind(model);
  if (pool.some((w) => w.close) || opts.spawn) {
    batched.close = async () => {
      closed = true;
      clearTimeout(timer ?? undefined);
      clearTimeout(releaseTimer ?? undefined);
      clearImmediate(immediate ?? undefined);
      timer = immediate = releaseTimer = null;
      await Promise.all(pool.map((w) => w.close?.()));
    };
  }
  return batched;
}
