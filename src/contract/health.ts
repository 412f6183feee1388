// Health's thresholds and the names of its signals (DESIGN.md "Health"): the service computes with them, and the
// adapter and the dashboard describe them, so every surface says the same number.

export const STALE_AFTER_DAYS = 90;
export const NEVER_RETRIEVED_AFTER_DAYS = 7;
/** In characters = Unicode code points (an emoji is one), as both stores count them (SQLite length(), PG char_length()). */
export const OVERLONG_CHARS = 1_000;

const overlong = OVERLONG_CHARS.toLocaleString("en-US");

/** Each signal as a short title (the dashboard's) and as a phrase that says what is counted (an agent's). */
export const SIGNAL_LABELS: Readonly<Record<string, { title: string; phrase: string }>> = {
  total_memories: { title: "Memories", phrase: "total memories" },
  stale_memories: { title: "Stale", phrase: `stale (expired, or untouched for ${STALE_AFTER_DAYS} days)` },
  duplicate_memories: { title: "Duplicate pairs", phrase: "duplicates" },
  overlong_memories: { title: "Overlong", phrase: `overlong (over ${overlong} characters)` },
  never_retrieved_memories: {
    title: "Never retrieved",
    phrase: `never retrieved (older than ${NEVER_RETRIEVED_AFTER_DAYS} days)`,
  },
  open_recommendations: { title: "Open recommendations", phrase: "open recommendations" },
};
