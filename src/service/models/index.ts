// Loads the service's two models once per process. Only the service imports this (never src/mcp or src/client).
import type { Embedder, Judge } from "./types.js";
import { createOfflineEmbedder, offlineEmbedderKind, queryPathOf } from "./embed/index.js";
import { createOfflineJudge } from "./judge/index.js";
import { createProviderJudge } from "./judge/provider.js";
import { createProviderEmbedder } from "./provider/embeddings.js";

export type { Embedder, Judge } from "./types.js";

export interface Models {
  embedder: Embedder;
  judge: Judge;
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
  const offline = createOfflineEmbedder(offlineEmbedderKind(env), { queryPath: queryPathOf(env) });
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
  // The judge's classifiers read the USE-lite part of the document vector when the embedder carries one.
  const offlineJudge = createOfflineJudge({ embedderId: embedder.id });
  const judge = createProviderJudge(env, offlineJudge, { warn }) ?? offlineJudge;
  await Promise.all([embedder === offline ? offline.load() : Promise.resolve(), judge.load()]);
  return { embedder, judge };
}
