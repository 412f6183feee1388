import { describe, expect, it } from "vitest";
import { createHybridEmbedder, createSemanticEmbedder } from "../../src/service/models/embed/index.js";
import { WORD_VECTOR_DIMENSIONS, loadWordTable } from "../../src/service/models/embed/word-vectors.js";
import { USE_LITE_DIMENSIONS } from "../../src/service/models/embed/use-lite.js";
import { CLASSIFIER_SPACE, sentencePart } from "../../src/service/models/judge/classifier.js";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe("the word-vector block", () => {
  const table = loadWordTable();

  it("ships a table of tens of thousands of English words", () => {
    expect(table.rows).toBeGreaterThan(40_000);
    expect(table.dimensions).toBe(WORD_VECTOR_DIMENSIONS);
  });

  it("relates words by world knowledge that share no letters", () => {
    const near = (x: string, y: string) => dot(table.embed(x), table.embed(y));
    expect(near("charging customers", "billing")).toBeGreaterThan(near("charging customers", "lemon cake") + 0.3);
    expect(near("heavy traffic", "load testing")).toBeGreaterThan(near("heavy traffic", "birthday party") + 0.3);
    expect(near("main database", "postgres cluster")).toBeGreaterThan(0.25);
  });

  it("a text with no known word gets a zero block, not a made-up direction", () => {
    expect(Array.from(table.embed("zzqxv 🐴")).every((x) => x === 0)).toBe(true);
  });
});

describe("the hybrid vector with word vectors", () => {
  it("keeps USE-lite as its first 512 dimensions, so the judge's classifiers still read it", async () => {
    const hybrid = createHybridEmbedder();
    const semantic = createSemanticEmbedder();
    expect(hybrid.id.startsWith(CLASSIFIER_SPACE)).toBe(true);
    expect(hybrid.id).toContain("+wv");
    expect(hybrid.dimensions).toBe(USE_LITE_DIMENSIONS + 512 + WORD_VECTOR_DIMENSIONS);
    const text = "Dana prefers the window seat on long flights.";
    const [h] = await hybrid.embed([text], "document");
    const [s] = await semantic.embed([text], "document");
    expect(dot(sentencePart(h!, hybrid.id)!, s!)).toBeGreaterThan(0.9999);
  });

  it("without word vectors it is the two-block hybrid under its old id", () => {
    const twoBlock = createHybridEmbedder({ wordShare: 0 });
    expect(twoBlock.id).toBe("use-lite/1+lex512@0.3");
    expect(twoBlock.dimensions).toBe(USE_LITE_DIMENSIONS + 512);
  });
});
