// The offline embedders: meaning (USE-lite), wording (hashed lexical features), and the default hybrid that joins
// them so one cosine blends both (DESIGN.md "Retrieval and decay": better relevance comes from a better vector).
import type { Embedder } from "../types.js";
import { LEXICAL_DIMENSIONS, createLexicalEmbedder, distinctFacts, lexicalFeatures, normalize } from "./lexical.js";
import { loadStaticTable, type StaticTable } from "./static-table.js";
import { WORD_VECTOR_DIMENSIONS, loadWordTable, type WordTable } from "./word-vectors.js";
import { USE_LITE_DIMENSIONS, USE_LITE_ID, embedWithModel, loadSentenceModel, type SentenceModel } from "./use-lite.js";

export { createLexicalEmbedder } from "./lexical.js";
export { ModelUnavailableError } from "./use-lite.js";

/**
 * Share of the hybrid cosine that comes from wording: cos = (1 - s)·cos_meaning + s·cos_wording.
 * Chosen on the dev half of test/eval/sets (test/eval/calibrate.js); the embedder's id changes with it.
 */
export const HYBRID_LEXICAL_SHARE = 0.3;
const HYBRID_DIMENSIONS_LEXICAL = 512;
/**
 * Share of the hybrid cosine that comes from pretrained word vectors (world knowledge USE-lite lacks); the rest is
 * split between meaning and wording as above. Chosen on the dev half of test/eval/sets (test/eval/calibrate.js).
 */
export const HYBRID_WORD_SHARE = 0.15;

/**
 * Dedup thresholds, calibrated per embedder on test/eval/sets/dedup.json (dev half; test/eval/calibrate.js): the
 * highest cosine that still merges 90% of the dev duplicates. They assume the dedup stage also asks
 * `distinctFacts`: a single cosine cannot tell "prod runs X" from "staging runs X" (USE-lite puts them at 0.80).
 */
export const DEDUP_THRESHOLDS = { semantic: 0.69, lexical: 0.32, hybrid: 0.61, hybridWithoutWords: 0.62 } as const;

export type OfflineEmbedderKind = "semantic" | "lexical" | "hybrid";
/**
 * How queries are embedded: the full model (default) or the distilled static table (BRAIN_QUERY_PATH=static:
 * ~0.1 ms instead of ~15 ms, but recall@3 on the evaluation's questions falls from 0.79 to 0.62 on dev).
 */
export type QueryPath = "static" | "model";

export interface OfflineEmbedderOptions {
  queryPath?: QueryPath;
  /** Hybrid only: the wording share of the meaning+wording part of the cosine. */
  lexicalShare?: number;
  /** Hybrid only: the word-vector share of the cosine (0 = the two-block hybrid, id without "+wv"). */
  wordShare?: number;
}

/** Documents go through the full model; queries too, unless the distilled static table is chosen (fast path). */
class SentenceEncoder {
  private model: SentenceModel | null = null;
  private table: StaticTable | null = null;

  constructor(private readonly queryPath: QueryPath = "model") {}

  async load(): Promise<void> {
    if (this.model) return;
    const [model, table] = await Promise.all([loadSentenceModel(), this.queryPath === "static" ? loadStaticTable() : null]);
    this.model = model;
    this.table = table;
  }

  async embed(texts: readonly string[], purpose: "document" | "query"): Promise<Float32Array[]> {
    await this.load();
    if (purpose === "query" && this.table) {
      const table = this.table;
      return texts.map((text) => table.embed(this.model!.tokenizer.encode(text)));
    }
    return embedWithModel(this.model!, texts);
  }
}

export function createSemanticEmbedder(options: OfflineEmbedderOptions = {}): Embedder {
  const encoder = new SentenceEncoder(options.queryPath);
  return {
    id: USE_LITE_ID,
    dimensions: USE_LITE_DIMENSIONS,
    dedupThreshold: DEDUP_THRESHOLDS.semantic,
    distinctFacts,
    load: () => encoder.load(),
    embed: (texts, purpose) => encoder.embed(texts, purpose),
  };
}

/**
 * [√((1−w)(1−s))·meaning ; √((1−w)s)·wording ; √w·words]: each block unit length (a text with no known word gets a
 * zero word block and the whole is renormalized), so one cosine is the weighted sum of the three block cosines.
 */
export function createHybridEmbedder(options: OfflineEmbedderOptions = {}): Embedder {
  const share = options.lexicalShare ?? HYBRID_LEXICAL_SHARE;
  const wordShare = options.wordShare ?? HYBRID_WORD_SHARE;
  const encoder = new SentenceEncoder(options.queryPath);
  const meaningScale = Math.sqrt((1 - wordShare) * (1 - share));
  const wordingScale = Math.sqrt((1 - wordShare) * share);
  const wordScale = Math.sqrt(wordShare);
  const wordDimensions = wordShare > 0 ? WORD_VECTOR_DIMENSIONS : 0;
  const dimensions = USE_LITE_DIMENSIONS + HYBRID_DIMENSIONS_LEXICAL + wordDimensions;
  let words: WordTable | null = null;
  const load = async () => {
    if (wordDimensions) words ??= loadWordTable();
    await encoder.load();
  };
  return {
    // Starts with USE_LITE_ID: the judge's classifiers read the first 512 dimensions of this space.
    id: `${USE_LITE_ID}+lex${HYBRID_DIMENSIONS_LEXICAL}@${share}` + (wordDimensions ? `+wv${wordDimensions}@${wordShare}` : ""),
    dimensions,
    dedupThreshold: wordDimensions ? DEDUP_THRESHOLDS.hybrid : DEDUP_THRESHOLDS.hybridWithoutWords,
    distinctFacts,
    load,
    async embed(texts, purpose) {
      await load();
      const meaning = await encoder.embed(texts, purpose);
      return texts.map((text, i) => {
        const out = new Float32Array(dimensions);
        const m = meaning[i]!;
        for (let d = 0; d < USE_LITE_DIMENSIONS; d++) out[d] = meaningScale * m[d]!;
        const w = lexicalFeatures(text, HYBRID_DIMENSIONS_LEXICAL);
        for (let d = 0; d < HYBRID_DIMENSIONS_LEXICAL; d++) out[USE_LITE_DIMENSIONS + d] = wordingScale * w[d]!;
        if (!words) return out;
        const v = words.embed(text);
        const at = USE_LITE_DIMENSIONS + HYBRID_DIMENSIONS_LEXICAL;
        let known = 0;
        for (let d = 0; d < wordDimensions; d++) known += v[d]! * v[d]!;
        if (known === 0) return normalize(out);
        for (let d = 0; d < wordDimensions; d++) out[at + d] = wordScale * v[d]!;
        return out;
      });
    },
  };
}

export function createOfflineEmbedder(kind: OfflineEmbedderKind = "hybrid", options: OfflineEmbedderOptions = {}): Embedder {
  if (kind === "semantic") return createSemanticEmbedder(options);
  if (kind === "lexical") {
    const lexical = createLexicalEmbedder(LEXICAL_DIMENSIONS);
    return { ...lexical, dedupThreshold: DEDUP_THRESHOLDS.lexical };
  }
  return createHybridEmbedder(options);
}

/** Reads BRAIN_QUERY_PATH (model | static). */
export function queryPathOf(env: NodeJS.ProcessEnv): QueryPath {
  const path = (env.BRAIN_QUERY_PATH ?? "model").trim().toLowerCase() || "model";
  if (path === "model" || path === "static") return path;
  throw new Error(`BRAIN_QUERY_PATH must be model or static (got "${path}")`);
}

/** Reads BRAIN_EMBEDDER (hybrid | semantic | lexical); anything else is a configuration error. */
export function offlineEmbedderKind(env: NodeJS.ProcessEnv): OfflineEmbedderKind {
  const kind = (env.BRAIN_EMBEDDER ?? "hybrid").trim().toLowerCase() || "hybrid";
  if (kind === "hybrid" || kind === "semantic" || kind === "lexical") return kind;
  throw new Error(`BRAIN_EMBEDDER must be hybrid, semantic or lexical (got "${kind}")`);
}
