// The workspace health diagnostic (DESIGN.md "Health"): signals, a quality score, and recommendations a person can
// act on.
import { NEVER_RETRIEVED_AFTER_DAYS, OVERLONG_CHARS, STALE_AFTER_DAYS } from "../../contract/health.js";
import type { HealthResponse, HealthSignals, Recommendation } from "../../contract/wire.js";
import type { WorkspaceIndex } from "../retrieval/vector-index.js";
import type { HealthCounts, HealthCountsQuery, MemoryRecord, MemoryStore } from "../store/types.js";
import { DAY_MS, isoSeconds } from "../time.js";
import { countDuplicatePairs } from "./duplicates.js";

/**
 * quality_score = 100 × (1 − penalty), penalty = 0.35·stale + 0.30·duplicated + 0.20·never retrieved + 0.15·overlong,
 * each the share of the workspace's memories affected (duplicated = memories in a duplicate pair, at most all).
 * An empty workspace scores 100.
 */
export const QUALITY_PENALTIES = { stale: 0.35, duplicated: 0.3, neverRetrieved: 0.2, overlong: 0.15 } as const;

export interface HealthFacts {
  memories: readonly MemoryRecord[];
  duplicatePairs: number;
  nowMs: number;
  /** The embedder in use (memories embedded by another cannot be recalled). */
  embedderId: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What the store counts for health at `nowMs`. */
export function healthCountsQuery(nowMs: number, embedderId: string): HealthCountsQuery {
  return {
    nowMs,
    embedderId,
    untouchedBeforeMs: nowMs - STALE_AFTER_DAYS * DAY_MS,
    neverRetrievedBeforeMs: nowMs - NEVER_RETRIEVED_AFTER_DAYS * DAY_MS,
    overlongChars: OVERLONG_CHARS,
  };
}

/** Characters as the stores count them: code points, not UTF-16 units. */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The store's healthCounts over records in memory: the reference its SQL must agree with. */
export function countHealthSignals(memories: readonly MemoryRecord[], query: HealthCountsQuery): HealthCounts {
  const counts: HealthCounts = { total: memories.length, expired: 0, untouched: 0, overlong: 0, neverRetrieved: 0, otherModel: 0 };
  for (const m of memories) {
    if (m.temporal_type === "time_bound" && m.valid_until !== null && m.valid_until < query.nowMs) counts.expired++;
    else if ((m.last_accessed_at ?? m.created_at) < query.untouchedBeforeMs) counts.untouched++;
    // UTF-16 length bounds the code points from above: most texts need no counting.
    if (m.text.length > query.overlongChars && characterCount(m.text) > query.overlongChars) counts.overlong++;
    if (m.access_count === 0 && m.created_at < query.neverRetrievedBeforeMs) counts.neverRetrieved++;
    if (m.embedder_id !== query.embedderId) counts.otherModel++;
  }
  return counts;
}

export function diagnose({ memories, duplicatePairs, nowMs, embedderId }: HealthFacts): HealthResponse {
  return healthReport({ counts: countHealthSignals(memories, healthCountsQuery(nowMs, embedderId)), duplicatePairs, nowMs });
}

/** What measuring a workspace's health needs: the store, the embedder in use, and its vector index kept current. */
export interface HealthDeps {
  store: MemoryStore;
  embedder: { id: string; dedupThreshold: number };
  loadIndex: (workspaceId: number) => Promise<WorkspaceIndex>;
}

/** The workspace's health at `nowMs` (the service's health operation and the dashboard both answer with this). */
export async function measureHealth(
  { store, embedder, loadIndex }: HealthDeps,
  workspaceId: number,
  nowMs: number,
): Promise<HealthResponse> {
  // Counted in the store: the memories themselves never leave it (1 s at 100,000 when they did).
  const [counts, index] = await Promise.all([
    store.healthCounts(workspaceId, healthCountsQuery(nowMs, embedder.id)),
    loadIndex(workspaceId),
  ]);
  const duplicatePairs = await countDuplicatePairs(index, embedder.dedupThreshold, (ids) => store.vectorsOf(workspaceId, ids));
  return healthReport({ counts, duplicatePairs, nowMs });
}

/** The health response from the store's counts and the duplicate pairs: pure, so every store answers alike. */
export function healthReport({
  counts,
  duplicatePairs,
  nowMs,
}: {
  counts: HealthCounts;
  duplicatePairs: number;
  nowMs: number;
}): HealthResponse {
  const { expired, untouched, overlong, neverRetrieved, otherModel, total } = counts;
  const stale = expired + untouched;

  const recommendations: Recommendation[] = [];
  // First: these memories are invisible to recall and to dedup until someone acts.
  if (otherModel > 0) {
    recommendations.push({
      code: "memories_need_reembedding",
      message: `${plural(otherModel, "memory was", "memories were")} embedded by another model than the service's and cannot be recalled until re-embedded. Run \`brain-mcp admin reembed\` on the service's store.`,
      count: otherModel,
    });
  }
  if (stale > 0) {
    const parts = [expired && `${expired} expired`, untouched && `${untouched} untouched for ${STALE_AFTER_DAYS} days`].filter(Boolean);
    recommendations.push({
      code: "stale_memories",
      message: `${plural(stale, "memory is", "memories are")} stale: ${parts.join(", ")}. Store a current version of what still holds; expired memories rank lower.`,
      count: stale,
    });
  }
  if (duplicatePairs > 0) {
    recommendations.push({
      code: "duplicate_memories",
      message: `${plural(duplicatePairs, "pair", "pairs")} of memories say nearly the same thing. Store the fact once in its fullest form; repeated stores merge into one memory.`,
      count: duplicatePairs,
    });
  }
  if (overlong > 0) {
    recommendations.push({
      code: "overlong_memories",
      message: `${plural(overlong, "memory is", "memories are")} over ${OVERLONG_CHARS.toLocaleString("en-US")} characters. Store one fact per memory so recall can match it.`,
      count: overlong,
    });
  }
  if (neverRetrieved > 0) {
    recommendations.push({
      code: "never_retrieved_memories",
      message: `${plural(neverRetrieved, "memory has", "memories have")} never been recalled in over ${NEVER_RETRIEVED_AFTER_DAYS} days. Recall with the words the memories use, or let them go stale.`,
      count: neverRetrieved,
    });
  }

  const signals: HealthSignals = {
    total_memories: total,
    stale_memories: stale,
    duplicate_memories: duplicatePairs,
    overlong_memories: overlong,
    never_retrieved_memories: neverRetrieved,
    open_recommendations: recommendations.length,
  };
  return {
    quality_score: qualityScore(total, stale, duplicatePairs, neverRetrieved, overlong),
    signals,
    recommendations,
    generated_at: isoSeconds(nowMs),
  };
}

export function qualityScore(total: number, stale: number, duplicatePairs: number, neverRetrieved: number, overlong: number): number {
  if (total === 0) return 100;
  const share = (n: number) => Math.min(1, n / total);
  const p = QUALITY_PENALTIES;
  const penalty =
    p.stale * share(stale) +
    p.duplicated * share(2 * duplicatePairs) +
    p.neverRetrieved * share(neverRetrieved) +
    p.overlong * share(overlong);
  return Math.round(1000 * (1 - penalty)) / 10;
}
