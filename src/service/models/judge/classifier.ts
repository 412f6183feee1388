// Small classifiers over the sentence encoder (DESIGN.md "Models": importance is rated by a model over the sentence
// encoder offline): a ridge regression for importance and one-vs-rest logistic regressions for domains and topics,
// trained at build time by test/judge/train-classifiers.ts; they apply only to vectors from the space they were trained in.
import { DOMAINS, TOPICS, type Domain, type Topic } from "../../../contract/taxonomy.js";
import type { TopicCalibration } from "./categories.js";

/** The embedding space the weights were trained in: all-MiniLM-L6-v2, alone or as the first block of the hybrid vector. */
export const CLASSIFIER_SPACE = "minilm-l6/1";
/** The sentence model's dimensions (its part of a hybrid vector comes first). */
export const CLASSIFIER_DIMENSIONS = 384;

export interface ClassifierWeights {
  space: string;
  trained_on: string;
  lambda: number;
  /** The importance output is a correction to the rules' rating, applied this many times (chosen by leave-one-out). */
  importance_correction_weight: number;
  /** How much a classifier's topic score counts beside the lexicon's phrase scores. */
  category_model_weight: number;
  /** The same for domains (older weight files: category_model_weight). */
  domain_model_weight?: number;
  /** Per-topic thresholds, ratio and short-text cap for the blended scores (older weight files: the rules'). */
  topic_calibration?: TopicCalibration;
  /**
   * How the domain and topic outputs are read: "logistic" (one-vs-rest logistic regressions, a probability each) or,
   * in older weight files, unset (ridge scores, read as they are).
   */
  category_link?: "logistic";
  /** The logistic regressions' L2 penalty (chosen by 10-fold topic F1 on the dev rows; recorded, not read). */
  category_l2?: number;
  /** The logistic fits' gradient steps (older weight files: 300; recorded for the categories test's own fit). */
  category_iters?: number;
  /** How those steps were taken (older weight files: gradient descent, step 2); recorded, not read by the service. */
  category_fit?: { method: "gd" | "adam"; lr?: number };
  /** "importance" (correction to the rules), then "domain:<d>" and "topic:<t>" for every label. */
  labels: string[];
  bias: number[];
  weights: number[][];
}

export interface VectorScores {
  importance: number;
  domains: Map<Domain, number>;
  topics: Map<Topic, number>;
}

/** The sentence model's part of `vector`, unit length, or null when the vector comes from another model. */
export function sentencePart(vector: Float32Array | null, embedderId: string | undefined): Float32Array | null {
  if (!vector || !embedderId?.startsWith(CLASSIFIER_SPACE) || vector.length < CLASSIFIER_DIMENSIONS) return null;
  const part = vector.subarray(0, CLASSIFIER_DIMENSIONS);
  let norm = 0;
  for (const v of part) norm += v * v;
  norm = Math.sqrt(norm);
  if (!(norm > 1e-6)) return null;
  return part.map((v) => v / norm);
}

export function scoreVector(weights: ClassifierWeights, sentence: Float32Array): VectorScores {
  const out = weights.weights.map((w, j) => w.reduce((s, wi, i) => s + wi * sentence[i]!, weights.bias[j]!));
  const domains = new Map<Domain, number>();
  const topics = new Map<Topic, number>();
  const read = weights.category_link === "logistic" ? (z: number) => 1 / (1 + Math.exp(-z)) : (z: number) => z;
  weights.labels.forEach((label, j) => {
    const [kind, name] = label.split(":");
    if (kind === "domain" && (DOMAINS as readonly string[]).includes(name!)) domains.set(name as Domain, read(out[j]!));
    if (kind === "topic" && (TOPICS as readonly string[]).includes(name!)) topics.set(name as Topic, read(out[j]!));
  });
  return { importance: out[0]!, domains, topics };
}
