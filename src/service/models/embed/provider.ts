// The optional OpenAI-compatible embedder (OpenAI, Ollama, vLLM, LM Studio): POST {BRAIN_EMBEDDINGS_URL}/embeddings.
// Consistency rule: vectors of two models are never compared. If the provider fails at load, loadModels serves the
// whole process with the offline model (another id); once loaded, a failed call is a 503 (the write is refused),
// never a silent switch to another model's vectors.
import { ServiceError } from "../../types.js";
import { distinctFacts } from "./lexical.js";
import type { Embedder } from "../types.js";

export interface EmbeddingsProviderEnv {
  BRAIN_EMBEDDINGS_URL?: string;
  BRAIN_EMBEDDINGS_MODEL?: string;
  BRAIN_EMBEDDINGS_API_KEY?: string;
  /** Optional: seconds per request (default 10). */
  BRAIN_EMBEDDINGS_TIMEOUT?: string;
  /** Optional: the model's dedup cosine (default 0.9; calibrate per model with `npm run eval`). */
  BRAIN_EMBEDDINGS_DEDUP_THRESHOLD?: string;
}

export interface ProviderEmbedderOptions {
  timeoutMs?: number;
  warn?: (message: string) => void;
  fetch?: typeof globalThis.fetch;
}

export const EMBEDDINGS_TIMEOUT_MS_DEFAULT = 10_000;
export const EMBEDDINGS_MODEL_DEFAULT = "text-embedding-3-small";
export const PROVIDER_DEDUP_THRESHOLD_DEFAULT = 0.9;
/** Inputs per request: providers cap batch sizes. */
const BATCH_INPUTS = 64;

/** Raised when the provider cannot embed; the service answers 503 and the caller may retry. */
export class EmbeddingsProviderError extends ServiceError {
  constructor(reason: string) {
    super("store_unavailable", `The embeddings provider is unavailable (${reason}); try again shortly.`);
    this.name = "EmbeddingsProviderError";
  }
}

/** An embedder over an OpenAI-compatible API, or null when BRAIN_EMBEDDINGS_URL is unset. */
export function createProviderEmbedder(env: EmbeddingsProviderEnv, options: ProviderEmbedderOptions = {}): Embedder | null {
  const base = env.BRAIN_EMBEDDINGS_URL?.trim();
  if (!base) return null;
  const trimmed = base.replace(/\/+$/, "");
  const endpoint = trimmed.endsWith("/embeddings") ? trimmed : `${trimmed}/embeddings`;
  const model = env.BRAIN_EMBEDDINGS_MODEL?.trim() || EMBEDDINGS_MODEL_DEFAULT;
  const apiKey = env.BRAIN_EMBEDDINGS_API_KEY?.trim();
  const timeoutSeconds = Number(env.BRAIN_EMBEDDINGS_TIMEOUT);
  const timeoutMs = options.timeoutMs ?? (timeoutSeconds > 0 ? timeoutSeconds * 1000 : EMBEDDINGS_TIMEOUT_MS_DEFAULT);
  const threshold = Number(env.BRAIN_EMBEDDINGS_DEDUP_THRESHOLD);
  const doFetch = options.fetch ?? globalThis.fetch;

  let dimensions = 0;
  let loading: Promise<void> | null = null;

  async function request(texts: readonly string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    let response: Response;
    try {
      response = await doFetch(endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify({ model, input: texts }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const name = (error as Error).name;
      throw new EmbeddingsProviderError(
        name === "TimeoutError" || name === "AbortError" ? `no answer within ${timeoutMs} ms` : "connection failed",
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new EmbeddingsProviderError(`HTTP ${response.status}`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new EmbeddingsProviderError("the answer was not JSON");
    }
    return parseEmbeddings(body, texts.length);
  }

  function checkDimensions(vectors: Float32Array[]): Float32Array[] {
    for (const v of vectors) {
      if (v.length !== dimensions) throw new EmbeddingsProviderError(`vector of ${v.length} dimensions, expected ${dimensions}`);
    }
    return vectors;
  }

  const embedder: Embedder = {
    get id() {
      return `provider:${model}/${dimensions}`;
    },
    get dimensions() {
      return dimensions;
    },
    dedupThreshold: threshold > 0 && threshold <= 1 ? threshold : PROVIDER_DEDUP_THRESHOLD_DEFAULT,
    // Key-term conflicts (number, name, environment, negation) are model-independent.
    distinctFacts,
    load() {
      // One probe learns the dimensions and proves the endpoint works before any vector is stored.
      loading ??= request(["brain-mcp embeddings probe"]).then(
        ([probe]) => void (dimensions = probe!.length),
        (error) => {
          loading = null;
          throw error;
        },
      );
      return loading;
    },
    async embed(texts) {
      await embedder.load();
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH_INPUTS) out.push(...checkDimensions(await request(texts.slice(i, i + BATCH_INPUTS))));
      return out;
    },
  };
  return embedder;
}

/** Reads `{data: [{embedding, index}]}` into unit vectors in input order. */
export function parseEmbeddings(body: unknown, expected: number): Float32Array[] {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length !== expected) throw new EmbeddingsProviderError("the answer had the wrong number of vectors");
  const out: Float32Array[] = new Array(expected);
  data.forEach((item, position) => {
    const embedding = (item as { embedding?: unknown })?.embedding;
    const index = typeof (item as { index?: unknown })?.index === "number" ? (item as { index: number }).index : position;
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === "number" && Number.isFinite(x))) {
      throw new EmbeddingsProviderError("the answer held a malformed vector");
    }
    if (index < 0 || index >= expected || out[index]) throw new EmbeddingsProviderError("the answer's indices did not match the inputs");
    const vector = Float32Array.from(embedding as number[]);
    let sum = 0;
    for (const x of vector) sum += x * x;
    const norm = Math.sqrt(sum);
    if (norm === 0) throw new EmbeddingsProviderError("the answer held a zero vector");
    for (let d = 0; d < vector.length; d++) vector[d]! /= norm;
    out[index] = vector;
  });
  return out;
}
