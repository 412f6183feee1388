// The hybrid score of one candidate memory (weights and shape in ./weights.ts).
import { DAY_MS } from "../time.js";
import { IMPORTANCE_MAX, IMPORTANCE_MIN } from "../../contract/limits.js";
import {
  CONFIDENCE_SPAN,
  EXPIRED_FACTOR,
  FREQUENCY_SATURATION_LOG2,
  RECENCY_HALF_LIFE_DAYS,
  SIMILARITY_EXPONENT,
  WEIGHTS,
} from "./weights.js";

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
}

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);

/** How far the query's best match clears the floor, saturating at 1 (one factor for every candidate of a query). */
export function confidence(floor: number, bestCosine: number): number {
  return clamp01((bestCosine - floor) / CONFIDENCE_SPAN);
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

export function hybridScore(m: ScoreInput, ctx: ScoreContext): { score: number; expired: boolean } {
  const expired = isExpired(m.valid_until, ctx.nowMs);
  const raw =
    confidence(ctx.floor, ctx.bestCosine) *
    (WEIGHTS.similarity * clamp01(m.relevance) ** SIMILARITY_EXPONENT +
      WEIGHTS.recency * recency(ctx.nowMs, m.last_accessed_at ?? m.created_at) +
      WEIGHTS.importance * importanceTerm(m.importance) +
      WEIGHTS.frequency * frequency(m.access_count));
  return { score: clamp01(expired ? raw * EXPIRED_FACTOR : raw), expired };
}
