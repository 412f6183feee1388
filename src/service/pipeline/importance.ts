// Stage 4: importance, an integer 1..10 from the judge; a merge keeps the higher of the two.
import { IMPORTANCE_MAX, IMPORTANCE_MIN } from "../../contract/limits.js";
import type { Deduplicated } from "./draft.js";

/** Used when the judge answers something that is not a number. */
export const FALLBACK_IMPORTANCE = 5;

export function validImportance(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return FALLBACK_IMPORTANCE;
  return Math.min(IMPORTANCE_MAX, Math.max(IMPORTANCE_MIN, Math.round(value)));
}

export function importance<D extends Deduplicated>(draft: D): D & { importance: number } {
  const rated = validImportance(draft.judgement.importance);
  const existing = draft.duplicateOf?.memory.importance;
  return { ...draft, importance: existing === undefined ? rated : Math.max(rated, validImportance(existing)) };
}
