// Hybrid retrieval: two channels, the store's lexical index and the query's vector against the workspace's index (at or
// above the relevance floor), fused by rank into the one relevance term of the hybrid score; then top_k.
import type { RetrieveResponse, RetrievedMemory, Temporal } from "../../contract/wire.js";
import type { ReadBookkeeping } from "../bookkeeping.js";
import type { Embedder } from "../models/types.js";
import type { MemoryRecord, MemoryStore } from "../store/types.js";
import { isoSeconds } from "../time.js";
import type { RetrieveInput } from "../types.js";
import { hybridScore } from "./score.js";
import { fusedRelevance, speakerFactor, wordSet } from "./fusion.js";
import { searchTerms } from "./search-terms.js";
import { storeSource, type VectorIndexes } from "./vector-index.js";
import { FUSION, relevanceFloorFor } from "./weights.js";

export interface RetrieveDeps {
  store: MemoryStore;
  /** Where a retrieval's reads are counted: batched off the request path by the service (bookkeeping.ts). */
  reads: Pick<ReadBookkeeping, "recordRead" | "withPendingReads">;
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
  const floats = (ids: readonly number[]) => store.vectorsOf(workspaceId, ids);
  const [[query], index, lexical] = await Promise.all([
    embedder.embed([input.query], "query"),
    indexes.refreshShared(workspaceId, storeSource(store, workspaceId)),
    store.searchText(workspaceId, searchTerms(input.query), FUSION.lexicalDepth),
  ]);
  const floor = relevanceFloorFor(embedder.id);
  // The dense channel: the nearest memories at or above the relevance floor.
  const dense = await index.search(query!, floor, FUSION.denseDepth, floats);
  // A query unrelated to every memory (nothing reaches the floor) returns nothing, whatever words it shares.
  if (dense.length === 0) {
    if (countAsRecall) await deps.reads.recordRead(workspaceId, [], deps.now().getTime());
    return { memories: [], count: 0 };
  }
  // The lexical channel's memories get their raw cosines too (`similarity` is always the cosine).
  const inDense = new Set(dense.map((m) => m.id));
  const lexicalOnly = await index.cosinesOf(
    query!,
    lexical.filter((m) => !inDense.has(m.id)).map((m) => m.id),
    floats,
  );
  const cosines = new Map([...dense, ...lexicalOnly].map((m) => [m.id, m.cosine]));
  const lexicalScores = new Map(lexical.filter((m) => cosines.has(m.id)).map((m) => [m.id, m.score]));
  const bestCosine = dense[0]!.cosine;
  const context = { floor, bestCosine, bestLexical: lexical[0]?.score ?? 0, queryWeight: lexical[0]?.queryWeight ?? 0 };
  const found = deps.reads.withPendingReads(workspaceId, await store.getMemories(workspaceId, [...cosines.keys()]));
  const records = new Map(found.map((r) => [r.id, r]));
  const queryWords = wordSet(input.query);
  const relevance = new Map<number, number>();
  for (const [id, cosine] of cosines) {
    const record = records.get(id);
    if (record) relevance.set(id, fusedRelevance(cosine, lexicalScores.get(id) ?? 0, context) * speakerFactor(queryWords, record.text));
  }
  const bestRelevance = Math.max(...relevance.values());

  const nowMs = deps.now().getTime();
  const scored = [];
  for (const [id, fused] of relevance) {
    const record = records.get(id)!;
    const cosine = cosines.get(id)!;
    const { score, expired } = hybridScore({ ...record, relevance: fused / bestRelevance }, { nowMs, floor, bestCosine });
    if (score >= input.min_score) scored.push({ record, cosine, score, expired });
  }
  scored.sort((a, b) => b.score - a.score || b.cosine - a.cosine);
  const chosen = scored.slice(0, input.top_k);

  if (countAsRecall)
    await deps.reads.recordRead(
      workspaceId,
      chosen.map((c) => c.record.id),
      nowMs,
    );

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
