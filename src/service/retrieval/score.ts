// The hybrid score of one candidate memory (weights and shape in ./weights.ts).
import { DAY_MS } from "../time.js";
import { IMPORTANCE_MAX, IMPORTANCE_MIN } from "../../contract/limits.js";
import { CONFIDENCE, EXPIRED_FACTOR, FREQUENCY_SATURATION_LOG2, RECENCY_HALF_LIFE_DAYS, SIMILARITY_EXPONENT, WEIGHTS } from "./weights.js";

export interface ScoreInput {
  /** The memory's fused relevance over the best candidate's (1 for the best), in 0..1. */
  relevance: number;
  importance: number;
  access_count: number;
  created_at: number;
  last_accessed_at: number | null;
  valid_until: number | null;
}

export interface ScoreContext {
  nowMs: number;
  floor: number;
  /** The best cosine among the candidates. */
  bestCosine: number;
  /** The best share of the query's lexical weight a candidate holds in whole words (0..1; 0 when none). */
  bestWordShare?: number;
  /** How far the best cosine stands above the tenth candidate's (the floor's with fewer than ten candidates). */
  bestGap?: number;
}

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);

/**
 * How sure the query is to have an answer among the memories, 0..1, one factor for every candidate of a query: a
 * logistic of its best evidence, how far the best cosine clears the floor, the best whole-word lexical share and how
 * far the best cosine stands above the tenth candidate's (weights.ts CONFIDENCE, fitted in
 * test/eval/calibrate-score.js). Without the gap, the best cosine is taken to be alone above the floor.
 */
export function confidence(floor: number, bestCosine: number, bestWordShare = 0, bestGap = bestCosine - floor): number {
  const evidence = bestCosine - floor + CONFIDENCE.wordShare * clamp01(bestWordShare) + CONFIDENCE.gap * Math.max(0, bestGap);
  return 1 / (1 + Math.exp(-(evidence - CONFIDENCE.center) / CONFIDENCE.width));
}

export function recency(nowMs: number, lastTouchMs: number): number {
  const days = Math.max(0, nowMs - lastTouchMs) / DAY_MS;
  return 2 ** (-days / RECENCY_HALF_LIFE_DAYS);
}

export function importanceTerm(importance: number): number {
  return clamp01((importance - IMPORTANCE_MIN) / (IMPORTANCE_MAX - IMPORTANCE_MIN));
}

export function frequency(accessCount: number): number {
  return Math.min(1, Math.log2(1 + Math.max(0, accessCount)) / FREQUENCY_SATURATION_LOG2);
}

export function isExpired(validUntil: number | null, nowMs: number): boolean {
  return validUntil !== null && validUntil < nowMs;
}

/** A candidate's score before the query's confidence: relevance' squared, then recency, importance and frequency. */
export function withinScore(m: ScoreInput, nowMs: number): { within: number; expired: boolean } {
  const expired = isExpired(m.valid_until, nowMs);
  const raw =
    WEIGHTS.similarity * clamp01(m.relevance) ** SIMILARITY_EXPONENT +
    WEIGHTS.recency * recency(nowMs, m.last_accessed_at ?? m.created_at) +
    WEIGHTS.importance * importanceTerm(m.importance) +
    WEIGHTS.frequency * frequency(m.access_count);
  return { within: clamp01(expired ? raw * EXPIRED_FACTOR : raw), expired };
}

export function hybridScore(m: ScoreInput, ctx: ScoreContext): { score: number; expired: boolean } {
  const { within, expired } = withinScore(m, ctx.nowMs);
  return { score: clamp01(confidence(ctx.floor, ctx.bestCosine, ctx.bestWordShare, ctx.bestGap) * within), expired };
}
