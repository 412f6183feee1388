// Stage 6: categories, one domain then one to three topics (src/contract/taxonomy.ts). An invalid answer is
// repaired (first valid domain, valid distinct topics in order) and falls back label by label.
import { MAX_TOPICS, isDomain, isTopic, isValidCategoryList, type Domain, type Topic } from "../../contract/taxonomy.js";
import { survivingIsNew, type Deduplicated } from "./draft.js";

/** Used for whatever part of the judge's answer is unusable. */
export const FALLBACK_DOMAIN: Domain = "work";
export const FALLBACK_TOPIC: Topic = "project";

export function validCategories(value: unknown): string[] {
  const labels = Array.isArray(value) ? value.filter((l): l is string => typeof l === "string") : [];
  if (isValidCategoryList(labels)) return [...labels];
  const domain = labels.find(isDomain) ?? FALLBACK_DOMAIN;
  const topics = [...new Set(labels.filter(isTopic))].slice(0, MAX_TOPICS);
  return [domain, ...(topics.length ? topics : [FALLBACK_TOPIC])];
}

export function categories<D extends Deduplicated>(draft: D): D & { categories: string[] } {
  if (draft.duplicateOf && !survivingIsNew(draft)) return { ...draft, categories: validCategories(draft.duplicateOf.memory.categories) };
  return { ...draft, categories: validCategories(draft.judgement.categories) };
}
