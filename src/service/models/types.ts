// The two model interfaces (DESIGN.md "Models"). Each has an offline default; an OpenAI-compatible provider may
// stand in, with a fallback to the offline model when it fails.
import type { Temporal } from "../../contract/wire.js";

/** Turns texts into unit-length vectors whose cosine (= dot product) measures relatedness. */
export interface Embedder {
  /** Names the model and its version; recorded beside every stored vector (e.g. "minilm-l6/1+lex512@0.2"). */
  readonly id: string;
  readonly dimensions: number;
  /** Cosine at or above which two memories are the same fact and merge (calibrated per model on labeled pairs). */
  readonly dedupThreshold: number;
  /**
   * Optional second test for dedup, once the cosine reached dedupThreshold: true when the two texts still state
   * different facts (another number, name, environment, relation, or a negation), so they must not merge.
   */
  distinctFacts?(a: string, b: string): boolean;
  /** Loads weights once; later calls return at once. */
  load(): Promise<void>;
  /** One unit vector per text, in order. `purpose` lets a model use a faster path for queries. */
  embed(texts: readonly string[], purpose: "document" | "query"): Promise<Float32Array[]>;
}

export interface Judgement {
  /** Integer 1..10. */
  importance: number;
  temporal: Temporal;
  /** One domain, then one to three topics (src/contract/taxonomy.ts). */
  categories: string[];
}

/** Rates one memory's importance, temporal type and end, and categories. Deterministic for the offline default. */
export interface Judge {
  readonly id: string;
  load(): Promise<void>;
  /** `now` anchors relative dates ("tomorrow"); `vector` is the text's document embedding, for classifiers over it. */
  judge(text: string, now: Date, vector: Float32Array | null): Promise<Judgement>;
}
