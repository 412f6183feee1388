// The offline judge (DESIGN.md "Models"): importance, temporal type and end, and categories for one memory,
// with no network and no download. Deterministic: the same text, `now` and vector give the same judgement.
// How each decision is made: ./README.md.
import { DOMAINS, TOPICS } from "../../../contract/taxonomy.js";
import type { Judge, Judgement } from "../types.js";
import { addModelScores, chooseCategories, RULES_CALIBRATION, scoreCategories } from "./categories.js";
import { CLASSIFIER_DIMENSIONS, CLASSIFIER_SPACE, scoreVector, sentencePart, type ClassifierWeights } from "./classifier.js";
import { CLASSIFIER_WEIGHTS } from "./data/classifier-weights.js";
import { clampImportance, rateImportanceByRules } from "./importance.js";
import { judgeTemporal } from "./temporal.js";

export { createProviderJudge, type JudgeProviderEnv, type ProviderJudgeOptions } from "./provider.js";
export { judgeTemporal } from "./temporal.js";
export { CLASSIFIER_SPACE } from "./classifier.js";

export interface OfflineJudgeOptions {
  /**
   * The id of the embedder whose vectors judge() receives (Embedder.id). The classifiers run only when it names
   * the space they were trained in (all-MiniLM-L6-v2, alone or in the hybrid); otherwise the rules alone decide.
   */
  embedderId?: string;
  /** For tests: other trained weights. */
  weights?: ClassifierWeights;
}

/** Judges one memory: rules, blended with the classifiers when `sentence` (a MiniLM vector) is given. */
export function judgeText(
  text: string,
  now: Date,
  sentence: Float32Array | null,
  weights: ClassifierWeights = CLASSIFIER_WEIGHTS,
): Judgement {
  const rules = rateImportanceByRules(text);
  let categoryScores = scoreCategories(text);
  let importance = rules;
  let calibration = RULES_CALIBRATION;
  if (sentence && weights.space === CLASSIFIER_SPACE) {
    const model = scoreVector(weights, sentence);
    importance = clampImportance(rules + weights.importance_correction_weight * model.importance);
    categoryScores = addModelScores(categoryScores, model, weights.category_model_weight, weights.domain_model_weight);
    calibration = weights.topic_calibration ?? RULES_CALIBRATION;
  }
  return {
    importance,
    temporal: judgeTemporal(text, now),
    categories: chooseCategories(categoryScores, DOMAINS, TOPICS, text, calibration),
  };
}

/**
 * Judged once at load and thrown away: V8 compiles a regular expression on its first use, and the judge's lexicons,
 * rules and dates took ~85 ms of the first three stores of a process (first 64 ms, then 12 and 10; later ones
 * 0.3-0.6 ms). Texts of several kinds, so most expressions run; the judge holds no state between calls.
 */
const WARM_UP_TEXTS = [
  "Deploy the billing service before Friday; Maria from Acme signed the annual contract on 3 March 2026.",
  "I prefer tea over coffee, and my dentist appointment is every six months at the clinic on Elm Street.",
  "The staging database was down for an hour yesterday after a failed migration; the on-call engineer rolled it back.",
  "We decided to hire two backend engineers next quarter and to move the team offsite to Lisbon in May.",
];

export function createOfflineJudge(options: OfflineJudgeOptions = {}): Judge {
  const weights = options.weights ?? CLASSIFIER_WEIGHTS;
  const usesVectors = options.embedderId?.startsWith(CLASSIFIER_SPACE) ?? false;
  return {
    id: usesVectors ? `rules+classifiers/2@${CLASSIFIER_SPACE}` : "rules/1",
    async load() {
      const now = new Date();
      // a unit vector in the classifiers' space, so their path runs too
      const sentence = usesVectors ? new Float32Array(CLASSIFIER_DIMENSIONS).fill(1 / Math.sqrt(CLASSIFIER_DIMENSIONS)) : null;
      for (const text of WARM_UP_TEXTS) judgeText(text, now, sentence, weights);
    },
    async judge(text, now, vector) {
      return judgeText(text, now, usesVectors ? sentencePart(vector, options.embedderId) : null, weights);
    },
  };
}
