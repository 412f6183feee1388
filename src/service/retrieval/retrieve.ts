// Hybrid retrieval: the query's vector against the workspace's index, relevance floor, hybrid score, top_k.
import type { RetrieveResponse, RetrievedMemory, Temporal } from "../../contract/wire.js";
import type { Embedder } from "../models/types.js";
import type { MemoryRecord, MemoryStore } from "../store/types.js";
import { isoSeconds } from "../time.js";
import type { RetrieveInput } from "../types.js";
import { hybridScore } from "./score.js";
import type { VectorIndexes } from "./vector-index.js";
import { CANDIDATE_LIMIT, relevanceFloorFor } from "./weights.js";

export interface RetrieveDeps {
  store: MemoryStore;
  indexes: VectorIndexes;
  embedder: Embedder;
  now: () => Date;
}

export function temporalOf(m: MemoryRecord): Temporal {
  return m.temporal_type === "time_bound" && m.valid_until !== null
    ? { type: "time_bound", valid_until: isoSeconds(m.valid_until) }
    : { type: "persistent", valid_until: null };
}

/**
 * `countAsRecall: false` (the dashboard's searches) leaves access counts, recency and usage untouched; the answer then
 * shows each memory as the store holds it.
 */
export async function retrieveMemories(
  deps: RetrieveDeps,
  workspaceId: number,
  input: RetrieveInput,
  { countAsRecall = true }: { countAsRecall?: boolean } = {},
): Promise<RetrieveResponse> {
  const { store, indexes, embedder } = deps;
  const [[query], index] = await Promise.all([
    embedder.embed([input.query], "query"),
    indexes.refreshShared(workspaceId, (since, limit) => store.vectorsSince(workspaceId, since, limit)),
  ]);
  const floor = relevanceFloorFor(embedder.id);
  const matches = index.search(query!, floor, CANDIDATE_LIMIT);
  if (matches.length === 0) {
    if (countAsRecall) await store.recordRead(workspaceId, [], deps.now().getTime());
    return { memories: [], count: 0 };
  }

  const records = new Map((await store.getMemories(workspaceId, matches.map((m) => m.id))).map((r) => [r.id, r]));
  const nowMs = deps.now().getTime();
  const bestCosine = matches[0]!.cosine;
  const scored = [];
  for (const match of matches) {
    const record = records.get(match.id);
    if (!record) continue;
    const { score, expired } = hybridScore({ ...record, cosine: match.cosine }, { nowMs, floor, bestCosine });
    if (score >= input.min_score) scored.push({ record, cosine: match.cosine, score, expired });
  }
  scored.sort((a, b) => b.score - a.score || b.cosine - a.cosine);
  const chosen = scored.slice(0, input.top_k);

  if (countAsRecall) await store.recordRead(workspaceId, chosen.map((c) => c.record.id), nowMs);

  // The specification's fields in its order (id .. meta), then the documented extras.
  const memories: RetrievedMemory[] = chosen.map(({ record, cosine, score, expired }) => ({
    id: record.id,
    text: record.text,
    score: round6(score),
    similarity: round6(Math.min(1, Math.max(0, cosine))),
    importance: record.importance,
    meta: { ...record.meta, temporal: temporalOf(record), categories: record.categories },
    expired,
    created_at: isoSeconds(record.created_at),
    // The answer shows the memory as this retrieval left it.
    last_accessed_at: countAsRecall ? isoSeconds(nowMs) : record.last_accessed_at === null ? null : isoSeconds(record.last_accessed_at),
    access_count: record.access_count + (countAsRecall ? 1 : 0),
  }));
  return { memories, count: memories.length };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
