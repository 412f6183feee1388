// The offline embedder run in one worker thread: the service's main thread keeps serving HTTP, scanning indexes and
// talking to the store while the sentence model works. Same id, dimensions and vectors as in-process.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { createOfflineEmbedder, type OfflineEmbedderKind, type OfflineEmbedderOptions } from "./embed/index.js";
import type { EmbedWorkerData, EmbedWorkerReply, EmbedWorkerRequest } from "./embed-worker.js";
import type { Embedder } from "./types.js";

export interface WorkerEmbedder extends Embedder {
  /** Terminates the worker; later calls reject. */
  close(): Promise<void>;
}

export interface WorkerEmbedderOptions extends OfflineEmbedderOptions {
  /** The compiled worker entry (tests point at dist/); defaults to embed-worker.js beside this module. */
  workerUrl?: URL;
}

/** The compiled worker entry beside this module, or null when running from TypeScript source (no .js there). */
export function defaultWorkerUrl(): URL | null {
  const url = new URL("./embed-worker.js", import.meta.url);
  return existsSync(fileURLToPath(url)) ? url : null;
}

/** An error from the worker, with the name it had there (e.g. ModelUnavailableError). */
class WorkerEmbedError extends Error {}

export function createWorkerEmbedder(kind: OfflineEmbedderKind, options: WorkerEmbedderOptions = {}): WorkerEmbedder {
  const { workerUrl, ...embedderOptions } = options;
  const url = workerUrl ?? defaultWorkerUrl();
  if (!url) throw new Error("the embed worker is not built (run npm run build), or set BRAIN_EMBED_WORKER=0");
  // Built here only for its description (id, dimensions, threshold, distinctFacts); it never loads the model.
  const described = createOfflineEmbedder(kind, embedderOptions);
  const pending = new Map<number, { resolve: (reply: EmbedWorkerReply & { ok: true }) => void; reject: (e: Error) => void }>();
  let nextCall = 1;
  let worker: Worker | null = null;
  let closed = false;
  let loaded: Promise<void> | null = null;

  function failAll(error: Error): void {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  }

  function start(): Worker {
    const data: EmbedWorkerData = { kind, options: embedderOptions };
    // The parent's flags, minus --input-type (valid only for an --eval entry; a worker file would refuse to start).
    const execArgv = process.execArgv.filter((flag) => !flag.startsWith("--input-type"));
    const w = new Worker(url!, { workerData: data, execArgv });
    // Idle, the worker must not keep the process alive (a CLI that forgets close() still exits); busy, it must.
    w.unref();
    w.on("message", (reply: EmbedWorkerReply) => {
      const p = pending.get(reply.call);
      if (!p) return;
      pending.delete(reply.call);
      if (pending.size === 0) w.unref();
      if (reply.ok) p.resolve(reply);
      else p.reject(Object.assign(new WorkerEmbedError(reply.message), { name: reply.name }));
    });
    w.on("error", (error) => failAll(error));
    w.on("exit", (code) => {
      if (worker === w) (worker = null), (loaded = null);
      failAll(new Error(closed ? "the embedder is closed" : `the embed worker exited (code ${code})`));
    });
    return w;
  }

  function call(
    request: { kind: "load" } | { kind: "embed"; texts: string[]; purpose: "document" | "query" },
  ): Promise<EmbedWorkerReply & { ok: true }> {
    if (closed) return Promise.reject(new Error("the embedder is closed"));
    worker ??= start();
    const w = worker;
    const id = nextCall++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      w.ref();
      w.postMessage({ ...request, call: id } as EmbedWorkerRequest);
    });
  }

  const load = (): Promise<void> => {
    loaded ??= call({ kind: "load" }).then(
      () => undefined,
      (error) => {
        loaded = null;
        throw error;
      },
    );
    return loaded;
  };

  const embedder: WorkerEmbedder = {
    id: described.id,
    dimensions: described.dimensions,
    dedupThreshold: described.dedupThreshold,
    load,
    async embed(texts, purpose) {
      if (texts.length === 0) return [];
      await load();
      const reply = await call({ kind: "embed", texts: [...texts], purpose });
      return reply.vectors!;
    },
    async close() {
      closed = true;
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
  if (described.distinctFacts) embedder.distinctFacts = described.distinctFacts.bind(described);
  return embedder;
}
