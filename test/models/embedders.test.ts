import { describe, expect, it, beforeAll } from "vitest";
import {
  createHybridEmbedder,
  createLexicalEmbedder,
  createSemanticEmbedder,
  offlineEmbedderKind,
} from "../../src/service/models/embed/index.js";
import type { Embedder } from "../../src/service/models/types.js";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

const semantic = createSemanticEmbedder();
const hybrid = createHybridEmbedder();
const lexical = createLexicalEmbedder();

beforeAll(async () => {
  await Promise.all([semantic.load(), hybrid.load()]);
});

describe("the offline embedders", () => {
  it("the sentence model loads from the package and embeds without a network", async () => {
    const vectors = await semantic.embed(["The deploy pipeline runs on GitHub Actions.", ""], "document");
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(semantic.dimensions);
    expect(vectors.every((v) => v.every(Number.isFinite))).toBe(true);
  });

  it.each([
    ["semantic", semantic],
    ["hybrid", hybrid],
    ["lexical", lexical],
  ] as const)("every %s vector is unit length, on both paths", async (_name, embedder: Embedder) => {
    const texts = ["Standup is at 9:30 on weekdays.", "x", "Wer reitet so spät durch Nacht und Wind? 🐴", "long ".repeat(150)];
    for (const purpose of ["document", "query"] as const) {
      for (const v of await embedder.embed(texts, purpose)) {
        expect(v).toHaveLength(embedder.dimensions);
        expect(norm(v)).toBeCloseTo(1, 4);
      }
    }
  });

  it("paraphrases score above unrelated pairs", async () => {
    const [a, b, c, d] = await semantic.embed(
      [
        "Dana is allergic to peanuts.",
        "Dana has a peanut allergy.",
        "The staging cluster is upgraded every spring.",
        "We ship builds through GitHub's CI workflows.",
      ],
      "document",
    );
    expect(dot(a!, b!)).toBeGreaterThan(0.6);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!) + 0.3);
    expect(dot(a!, d!)).toBeLessThan(0.35);
  });

  it("the same text gives the same vector, in any batch and from a fresh embedder", async () => {
    const text = "Backups of the production database are taken every six hours.";
    const [alone] = await hybrid.embed([text], "document");
    const [, inBatch] = await hybrid.embed(["Something else entirely, and longer than the other text.", text], "document");
    const [fresh] = await createHybridEmbedder().embed([text], "document");
    expect(dot(inBatch!, alone!)).toBeGreaterThan(0.9999);
    expect(Array.from(fresh!)).toEqual(Array.from(alone!));
    const [q1] = await hybrid.embed([text], "query");
    const [q2] = await hybrid.embed([text], "query");
    expect(Array.from(q1!)).toEqual(Array.from(q2!));
  });

  it("the hybrid vector finds a memory by a rare name or number that meaning alone blurs", async () => {
    const memories = [
      "Invoice INV-48213 from Globex was paid late.",
      "Invoice INV-77120 from Initech was paid late.",
      "Invoices from suppliers are usually paid within thirty days.",
      "Ticket ZX-5501 tracks the flaky login test.",
      "Ticket ZX-9034 tracks the slow search page.",
    ];
    const docs = await hybrid.embed(memories, "document");
    for (const [query, expected] of [
      ["INV-48213", 0],
      ["What about ZX-9034?", 4],
    ] as const) {
      const [q] = await hybrid.embed([query], "query");
      const best = docs.map((d, i) => [i, dot(q!, d)] as const).sort((x, y) => y[1] - x[1])[0]![0];
      expect(best).toBe(expected);
    }
  });

  it("a model folder without its model file fails at load, naming the file", async () => {
    const broken = createSemanticEmbedder({ modelDir: "/nonexistent/brain-model" });
    await expect(broken.load()).rejects.toThrow("/nonexistent/brain-model/model.onnx is missing");
  });

  it("ids name the model, so vectors of different embedders are never compared", () => {
    const ids = new Set([semantic.id, hybrid.id, lexical.id]);
    expect(ids.size).toBe(3);
    expect(hybrid.dimensions).toBeGreaterThan(semantic.dimensions);
    for (const e of [semantic, hybrid, lexical]) expect(e.dedupThreshold).toBeGreaterThan(0.5);
  });

  it("BRAIN_EMBEDDER chooses the embedder and rejects unknown names", () => {
    expect(offlineEmbedderKind({})).toBe("semantic");
    expect(offlineEmbedderKind({ BRAIN_EMBEDDER: "Lexical" })).toBe("lexical");
    expect(() => offlineEmbedderKind({ BRAIN_EMBEDDER: "bert" })).toThrow(/hybrid, semantic or lexical/);
  });
});
