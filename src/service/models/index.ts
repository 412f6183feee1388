// Loads the service's two models once per process. Only the service imports this (never src/mcp or src/client).
import type { Embedder, Judge } from "./types.js";
import { createOfflineEmbedder, modelDirectory, offlineEmbedderKind, type OfflineEmbedderOptions } from "./embed/index.js";
import { createOfflineJudge } from "./judge/index.js";
import { createProviderJudge } from "./judge/provider.js";
import { createProviderEmbedder } from "./embed/provider.js";
import { availableParallelism } from "node:os";
import { DEFAULT_BATCH_TEXTS, DEFAULT_BATCH_WINDOW_MS, EMBED_WORKER_IDLE_MS, batchEmbeddings } from "./batching.js";
import { DEFAULT_EMBED_CACHE_MB, cacheEmbeddings } from "./embedding-cache.js";
import { createWorkerEmbedder, defaultWorkerUrl } from "./worker-embedder.js";

export type { Embedder, Judge } from "./types.js";

export interface Models {
  embedder: Embedder;
  judge: Judge;
  /** Ends what the models hold open (the embed worker); the service calls it when it closes. */
  close?(): Promise<void>;
}

export interface LoadModelsOptions {
  /** Told when a provider is bypassed (never given memory text or keys). */
  warn?: (message: string) => void;
}

/**
 * Picks the embedder and judge from the environment, loads them, and returns them ready to use.
 * BRAIN_EMBEDDINGS_URL selects the OpenAI-compatible embedder; if it fails at load, the offline embedder serves
 * the whole process (its id says so, so vectors of two models are never compared).
 */
export async function loadModels(env: NodeJS.ProcessEnv = process.env, options: LoadModelsOptions = {}): Promise<Models> {
  const warn = options.warn ?? ((message: string) => process.stderr.write(`brain-mcp: ${message}\n`));
  const offline = offlineEmbedder(env);
  const provider = createProviderEmbedder(env, { warn });
  let embedder: Embedder = offline;
  if (provider) {
    try {
      await provider.load();
      embedder = provider;
    } catch (error) {
      warn(`embeddings provider unavailable at start (${(error as Error).message}); using the offline model ${offline.id}`);
    }
  }
  // The judge's classifiers read the sentence model's part of the document vector when the embedder carries one.
  const offlineJudge = createOfflineJudge({ embedderId: embedder.id });
  const judge = createProviderJudge(env, offlineJudge, { warn }) ?? offlineJudge;
  await Promise.all([embedder === offline ? offline.load() : Promise.resolve(), judge.load()]);
  const cacheMb = nonNegativeNumber(env.BRAIN_EMBED_CACHE_MB, DEFAULT_EMBED_CACHE_MB);
  return { embedder: cacheEmbeddings(embedder, cacheMb * 2 ** 20), judge, close: async () => offline.close?.() };
}

/**
 * The offline embedder. By default the sentence model runs in a worker thread, with more (up to one per core,
 * BRAIN_EMBED_WORKERS) started only under concurrent load, each with one ONNX thread; concurrent calls are batched across requests, so the event
 * loop keeps serving while they work. BRAIN_EMBED_WORKER=0 runs it in-process, one call at a time (the old path). The
 * lexical embedder (no model) and a run from TypeScript source (no compiled worker) stay in-process.
 */
function offlineEmbedder(env: NodeJS.ProcessEnv): Embedder & { close?: () => Promise<void> } {
  const kind = offlineEmbedderKind(env);
  const options: OfflineEmbedderOptions = { modelDir: modelDirectory(env) };
  const workerOff = (env.BRAIN_EMBED_WORKER ?? "").trim() === "0";
  const workerUrl = workerOff || kind === "lexical" ? null : defaultWorkerUrl();
  if (!workerUrl) return createOfflineEmbedder(kind, options);
  // One worker idle; more (up to one per core) only while calls wait on a busy one, each closed once idle again.
  const maxWorkers = Math.max(1, Math.floor(nonNegativeNumber(env.BRAIN_EMBED_WORKERS, availableParallelism())));
  const spawn = () => createWorkerEmbedder(kind, { ...options, workerUrl });
  return batchEmbeddings(spawn(), {
    spawn,
    maxWorkers,
    releaseAfterMs: nonNegativeNumber(env.BRAIN_EMBED_WORKER_IDLE_MS, EMBED_WORKER_IDLE_MS),
    log: (message) => process.stderr.write(`brain-mcp: ${message}\n`),
    windowMs: nonNegativeNumber(env.BRAIN_EMBED_BATCH_WINDOW_MS, DEFAULT_BATCH_WINDOW_MS),
    maxTexts: nonNegativeNumber(env.BRAIN_EMBED_BATCH_TEXTS, DEFAULT_BATCH_TEXTS),
  });
}

function nonNegativeNumber(raw: string | undefined, fallback: number): number {
  const n = raw === undefined || raw.trim() === "" ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}
