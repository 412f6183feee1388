// The category taxonomy (DESIGN.md "categories"): exactly one domain first, then one to three topics.
// This is the only place the labels are written down.

export const DOMAINS = ["work", "personal", "technical", "business"] as const;
export type Domain = (typeof DOMAINS)[number];

export const TOPICS = [
  "preference",
  "profile",
  "relationship",
  "project",
  "task",
  "deadline",
  "decision",
  "meeting",
  "process",
  "infrastructure",
  "code",
  "security",
  "customer",
  "product",
  "finance",
  "hiring",
  "health",
  "travel",
  "location",
  "event",
  "learning",
  "contact",
] as const;
export type Topic = (typeof TOPICS)[number];

export const MIN_TOPICS = 1;
export const MAX_TOPICS = 3;

export function isDomain(label: string): label is Domain {
  return (DOMAINS as readonly string[]).includes(label);
}

export function isTopic(label: string): label is Topic {
  return (TOPICS as readonly string[]).includes(label);
}

/** True when `labels` is one domain followed by one to three distinct topics. */
export function isValidCategoryList(labels: readonly string[]): boolean {
  if (labels.length < 1 + MIN_TOPICS || labels.length > 1 + MAX_TOPICS) return false;
  const [domain, ...topics] = labels;
  return isDomain(domain!) && topics.every(isTopic) && new Set(topics).size === topics.length;
}
