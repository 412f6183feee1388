// The shipped model is genuine and our pipeline is right: for 50 varied sentences, the original package
// (sentence-transformers over all-MiniLM-L6-v2's fp32 weights, recorded by scripts/model/reference.py) and our runtime
// (int8-stored ONNX file, @huggingface/tokenizers, the ONNX runtime runtime.ts picks) give the same token ids and vector.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { MAX_TOKENS, MINILM_DIMENSIONS, embedWithModel, loadSentenceModel, windowsOf } from "../../src/service/models/embed/minilm.js";

const HERE = dirname(fileURLToPath(import.meta.url));
interface Reference {
  max_seq_length: number;
  sentences: { text: string; ids: number[]; vector: number[] }[];
}
/** 50 sentences through the WebAssembly runtime: about 15 s on a quiet 2-core machine, more under load. */
const MODEL_TIMEOUT_MS = 120_000;
const reference: Reference = JSON.parse(readFileSync(join(HERE, "..", "fixtures", "minilm", "reference.json"), "utf8"));

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i]! * b[i]!), (na += a[i]! * a[i]!), (nb += b[i]! * b[i]!);
  return dot / Math.sqrt(na * nb);
}

it("the reference covers 50 sentences within the model's window", () => {
  expect(reference.sentences).toHaveLength(50);
  expect(reference.max_seq_length).toBe(MAX_TOKENS);
});

it("our tokenizer gives the original tokenizer's ids for every sentence", async () => {
  const model = await loadSentenceModel();
  for (const s of reference.sentences) expect(model.tokenize(s.text), s.text).toEqual(s.ids);
});

it(
  "our runtime's vector has cosine >= 0.99 to the original package's for every sentence",
  async () => {
    const model = await loadSentenceModel();
    const vectors = await embedWithModel(
      model,
      reference.sentences.map((s) => s.text),
    );
    const cosines = reference.sentences.map((s, i) => cosine(vectors[i]!, s.vector));
    for (const [i, c] of cosines.entries()) expect(c, reference.sentences[i]!.text).toBeGreaterThanOrEqual(0.99);
    expect(vectors[0]).toHaveLength(MINILM_DIMENSIONS);
    // An unrelated pair is far apart: the test would fail for a model that maps everything to one direction.
    expect(cosine(vectors[2]!, vectors[48]!)).toBeLessThan(0.5);
  },
  MODEL_TIMEOUT_MS,
);

it(
  "one text alone and in a batch of mixed lengths gets the same vector",
  async () => {
    const model = await loadSentenceModel();
    const texts = reference.sentences.map((s) => s.text);
    const [alone] = await embedWithModel(model, [texts[46]!]);
    const batched = await embedWithModel(model, texts);
    expect(cosine(alone!, batched[46]!)).toBeGreaterThan(0.9999);
  },
  MODEL_TIMEOUT_MS,
);

it("a text longer than the window is embedded in windows whose first is what the original model sees", async () => {
  const model = await loadSentenceModel();
  const ids = model.tokenize(
    reference.sentences
      .slice(40)
      .map((s) => s.text)
      .join(" ")
      .repeat(4),
  );
  const windows = windowsOf(ids);
  expect(windows.length).toBeGreaterThan(1);
  for (const w of windows) {
    expect(w.length).toBeLessThanOrEqual(MAX_TOKENS);
    expect([w[0], w[w.length - 1]]).toEqual([ids[0], ids[ids.length - 1]]);
  }
  expect(windows.flatMap((w) => w.slice(1, -1))).toEqual(ids.slice(1, -1));
});
