// The offline embedders: meaning (all-MiniLM-L6-v2, the default), wording (hashed lexical features), and the hybrid
// that joins them (0.3.0's default; wording is now matched by the store's lexical index, DESIGN.md "Retrieval and
// decay", so the hybrid stays only as a choice, and its vectors derive the default's: ../../retrieval/derived-vectors.ts).
import type { Embedder } from "../types.js";
import { LEXICAL_DIMENSIONS, createLexicalEmbedder, distinctFacts, lexicalFeatures, normalize } from "./lexical.js";
import { MINILM_DIMENSIONS, MINILM_ID, embedWithModel, loadSentenceModel, modelDirectory } from "./minilm.js";

export { createLexicalEmbedder } from "./lexical.js";
export { ModelUnavailableError, modelDirectory } from "./minilm.js";

/**
 * Share of the hybrid cosine that comes from wording: cos = (1 - s)·cos_meaning + s·cos_wording. Chosen on the dev
 * half of test/eval/sets (test/eval/calibrate.js, results in test/eval/README.md); the embedder's id changes with it.
 * A third block of pretrained word vectors, which USE-lite needed for world knowledge, adds nothing to MiniLM there.
 */
export const HYBRID_LEXICAL_SHARE = 0.2;
const HYBRID_DIMENSIONS_LEXICAL = 512;

/**
 * Dedup thresholds, calibrated per embedder on test/eval/sets/dedup.json (dev half; test/eval/calibrate.js): the
 * highest cosine that still merges 90% of the dev duplicates. They assume the dedup stage's rules
 * (src/service/pipeline/same-fact.ts) also decide: a single cosine cannot tell "prod runs X" from "staging runs X".
 */
export const DEDUP_THRESHOLDS = { semantic: 0.79, lexical: 0.32, hybrid: 0.73 } as const;

export type OfflineEmbedderKind = "semantic" | "lexical" | "hybrid";
export interface OfflineEmbedderOptions {
  /** The model's folder (BRAIN_MODEL_DIR; default: the one shipped in the package). */
  modelDir?: string;
  /** Hybrid only: the wording share of the cosine. */
  lexicalShare?: number;
}

/** The sentence model's vectors; loaded on first use, once per process and folder. */
function sentenceEncoder(options: OfflineEmbedderOptions) {
  const dir = options.modelDir ?? modelDirectory();
  return {
    load: async () => void (await loadSentenceModel(dir)),
    embed: async (texts: readonly string[]) => embedWithModel(await loadSentenceModel(dir), texts),
  };
}

export function createSemanticEmbedder(options: OfflineEmbedderOptions = {}): Embedder {
  const encoder = sentenceEncoder(options);
  return {
    id: MINILM_ID,
    dimensions: MINILM_DIMENSIONS,
    dedupThreshold: DEDUP_THRESHOLDS.semantic,
    distinctFacts,
    load: () => encoder.load(),
    embed: (texts) => encoder.embed(texts),
  };
}

/** [√(1−s)·meaning ; √s·wording]: each block unit length, so one cosine is the weighted sum of the two block cosines. */
export function createHybridEmbedder(options: OfflineEmbedderOptions = {}): Embedder {
  const share = options.lexicalShare ?? HYBRID_LEXICAL_SHARE;
  const encoder = sentenceEncoder(options);
  const meaningScale = Math.sqrt(1 - share);
  const wordingScale = Math.sqrt(share);
  const dimensions = MINILM_DIMENSIONS + HYBRID_DIMENSIONS_LEXICAL;
  return {
    // Starts with MINILM_ID: the judge's classifiers read the sentence model's block of this space.
    id: `${MINILM_ID}+lex${HYBRID_DIMENSIONS_LEXICAL}@${share}`,
    dimensions,
    dedupThreshold: DEDUP_THRESHOLDS.hybrid,
    distinctFacts,
    load: encoder.load,
    async embed(texts) {
      const meaning = await encoder.embed(texts);
      return texts.map((text, i) => {
        const out = new Float32Array(dimensions);
        const m = meaning[i]!;
        for (let d = 0; d < MINILM_DIMENSIONS; d++) out[d] = meaningScale * m[d]!;
        const w = lexicalFeatures(text, HYBRID_DIMENSIONS_LEXICAL);
        for (let d = 0; d < HYBRID_DIMENSIONS_LEXICAL; d++) out[MINILM_DIMENSIONS + d] = wordingScale * w[d]!;
        return normalize(out); // a text with no wording features (emoji only) has a zero wording block
      });
    },
  };
}

export function createOfflineEmbedder(kind: OfflineEmbedderKind = "semantic", options: OfflineEmbedderOptions = {}): Embedder {
  if (kind === "semantic") return createSemanticEmbedder(options);
  if (kind === "lexical") {
    const lexical = createLexicalEmbedder(LEXICAL_DIMENSIONS);
    return { ...lexical, dedupThreshold: DEDUP_THRESHOLDS.lexical };
  }
  return createHybridEmbedder(options);
}

/**
 * Reads BRAIN_EMBEDDER (semantic | hybrid | lexical); anything else is a configuration error. The default is the
 * sentence model alone: wording is matched by the store's lexical index, where the hashed block measured worse
 * (test/eval/README.md, issue 18).
 */
export function offlineEmbedderKind(env: NodeJS.ProcessEnv): OfflineEmbedderKind {
  const kind = (env.BRAIN_EMBEDDER ?? "semantic").trim().toLowerCase() || "semantic";
  if (kind === "hybrid" || kind === "semantic" || kind === "lexical") return kind;
  throw new Error(`BRAIN_EMBEDDER must be hybrid, semantic or lexical (got "${kind}")`);
}
