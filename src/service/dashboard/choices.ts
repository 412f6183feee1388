// What the dashboard offers, shared by its server (./data.ts, ./http.ts) and its page (src/ui): plain constants, so
// the page's bundle takes them without any of the service.

/** Rows per page of a memory list. */
export const PAGE_SIZE = 25;

/** The age filter's choices: created within, or before, so many days. */
export const AGE_RANGES = {
  day: { withinDays: 1, label: "Last 24 hours" },
  week: { withinDays: 7, label: "Last 7 days" },
  month: { withinDays: 30, label: "Last 30 days" },
  "older-month": { olderDays: 30, label: "Older than 30 days" },
  "older-quarter": { olderDays: 90, label: "Older than 90 days" },
} as const;
export type AgeRange = keyof typeof AGE_RANGES;

/** The lists behind health's signals. */
export const HEALTH_LISTS = ["stale", "duplicates", "never_retrieved", "overlong"] as const;
export type HealthList = (typeof HEALTH_LISTS)[number];

/** Forgetting by a search (`admin memory forget`, the dashboard) takes only results scoring at least this by default. */
export const FORGET_MIN_SCORE_DEFAULT = 0.5;
