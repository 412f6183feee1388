// Hybrid retrieval: two channels, the store's lexical index and the query's vector against the workspace's index (at or
// above the relevance floor), fused by rank into the one relevance term of the hybrid score; then top_k.
import type { RetrieveResponse, RetrievedMemory, Temporal } from "../../contract/wire.js";
import type { ReadBookkeeping } from "../bookkeeping.js";
import type { Embedder } from "../models/types.js";
import type { MemoryRecord, MemoryStore, VectorRecord } from "../store/types.js";
import { isoSeconds } from "../time.js";
import type { RetrieveInput } from "../types.js";
import { confidence, withinScore } from "./score.js";
import {
  askingFactor,
  fusedRelevance,
  howMuchFactor,
  inflectedScorer,
  lexicalEvidence,
  speakerFactor,
  whenFactor,
  wordSet,
  type LexicalEvidence,
} from "./fusion.js";
import { searchTerms } from "./search-terms.js";
import { storeSource, type VectorIndexes } from "./vector-index.js";
import { CONFIDENCE_GAP_RANK, FUSION, relevanceFloorFor } from "./weights.js";

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

/** A candidate memory of a query, ranked: `within` is its hybrid score before the query's confidence (./score.ts). */
export interface RankedCandidate {
  record: MemoryRecord;
  cosine: number;
  within: number;
  expired: boolean;
}

/** What a query's best evidence was (the inputs of ./score.ts confidence) and its candidates, best first. */
export interface RankedQuery {
  bestCosine: number;
  bestWordShare: number;
  /** The best cosine over the tenth candidate's (over the floor with fewer than ten candidates). */
  bestGap: number;
  candidates: RankedCandidate[];
}

/**
 * Every candidate of the query, ranked, with the query's evidence; null when no memory reaches the relevance floor
 * (a query unrelated to every memory returns nothing, whatever words it shares). The calibration reads this
 * (test/eval/calibrate.js).
 */
export async function rankCandidates(
  deps: Pick<RetrieveDeps, "store" | "reads" | "indexes" | "embedder">,
  workspaceId: number,
  queryText: string,
  nowMs: number,
): Promise<RankedQuery | null> {
  const { store, indexes, embedder } = deps;
  const terms = searchTerms(queryText);
  const source = storeSource(store, workspaceId);
  // A cached index's new rows come with the lexical search where the store reads both at once (PostgreSQL: one
  // round trip, not two); otherwise the index refreshes on its own, beside it.
  const ahead = terms.length > 0 && store.searchTextWithVectorsSince ? indexes.readAhead(workspaceId) : undefined;
  // The model is asked first: models/batching.ts posts the query to its worker from a setImmediate, which must be
  // queued before the lexical search's. SQLite's lexical statement runs synchronously on this thread, so it then runs
  // beside the model, not before it (asked the other way round, a retrieve's p50 grew by its 3-4 ms at 10,000).
  const embedded = embedder.embed([queryText], "query");
  // Memories holding the same query words tie; where the lexical depth cuts through them, the newest are kept.
  const revOf = indexes.revsOf(workspaceId);
  const searched = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
    ahead
      ? store.searchTextWithVectorsSince!(workspaceId, terms, FUSION.lexicalDepth, ahead, revOf)
      : store.searchText(workspaceId, terms, FUSION.lexicalDepth, revOf).then((matches) => ({ matches, vectors: [] })),
  );
  const [[query], index, { lexical, lexicalRead }] = await Promise.all([
    embedded,
    ahead
      ? searched.then(
          ({ vectors }) => indexes.applyAhead(workspaceId, ahead, vectors, source),
          (err) => {
            indexes.endAhead(workspaceId);
            throw err;
          },
        )
      : indexes.refreshShared(workspaceId, source),
    searched.then(async ({ matches: lexical }) => {
      const lexicalRead = await readRowsOf(
        deps,
        workspaceId,
        lexical.map((m) => m.id),
      );
      // The lexical evidence as the memory's own words give it (it needs no vector): a query word found only inside a
      // longer word weighs little, and a memory below the floor stays out unless its whole words carry weight
      // (./lexical-evidence in ./fusion.ts).
      const evidence = new Map<number, LexicalEvidence>();
      for (const match of lexical) {
        const record = lexicalRead.records.get(match.id);
        if (record) evidence.set(match.id, lexicalEvidence(match, record.text));
      }
      return { lexical, lexicalRead: { ...lexicalRead, evidence } };
    }),
  ]);
  const floor = relevanceFloorFor(embedder.id);
  // The lexical channel's float rows and records were read beside the model: after it, only the dense channel's
  // other memories are, their float rows and records in one read (on PostgreSQL one round trip after the embedding);
  // the dense re-score sees only the rows it asked for, the lexical cosines only theirs.
  const read = lexicalRead.floats;
  const laterRecords = new Map<number, MemoryRecord>();
  const denseFloats = async (ids: readonly number[]) => {
    const others = ids.filter((id) => !lexicalRead.ids.has(id));
    for (const { record, vector } of others.length > 0 ? await store.memoriesWithVectors(workspaceId, others) : []) {
      read.set(vector.id, vector);
      laterRecords.set(record.id, record);
    }
    return ids.flatMap((id) => read.get(id) ?? []);
  };
  const lexicalFloats = async (ids: readonly number[]) => ids.flatMap((id) => read.get(id) ?? []);
  // The dense channel: the nearest memories at or above the relevance floor.
  const dense = await index.search(query!, floor, FUSION.denseDepth, denseFloats);
  if (dense.length === 0) return null;
  // The lexical channel's memories get their raw cosines too (`similarity` is always the cosine).
  const inDense = new Set(dense.map((m) => m.id));
  const lexicalOnly = await index.cosinesOf(
    query!,
    lexical.filter((m) => !inDense.has(m.id)).map((m) => m.id),
    lexicalFloats,
  );
  const cosines = new Map([...dense, ...lexicalOnly].map((m) => [m.id, m.cosine]));
  const later = [...cosines.keys()].filter((id) => !lexicalRead.ids.has(id));
  const unread = later.filter((id) => !laterRecords.has(id));
  const laterFound = [
    ...later.flatMap((id) => laterRecords.get(id) ?? []),
    ...(unread.length > 0 ? await store.getMemories(workspaceId, unread) : []),
  ];
  const records = lexicalRead.records;
  for (const r of deps.reads.withPendingReads(workspaceId, laterFound)) records.set(r.id, r);
  const evidence = new Map<number, LexicalEvidence>();
  for (const match of lexical) {
    const e = lexicalRead.evidence.get(match.id);
    if (e && cosines.has(match.id)) evidence.set(match.id, e);
  }
  for (const [id, cosine] of cosines) {
    if (cosine < floor && !(evidence.get(id)?.carriesWeight ?? false)) cosines.delete(id);
  }
  const bestCosine = dense[0]!.cosine;
  const tenth = [...cosines.values()].sort((a, b) => b - a)[CONFIDENCE_GAP_RANK - 1] ?? floor;
  const queryWeight = lexical[0]?.queryWeight ?? 0;
  // Each candidate's lexical score: the index's evidence, plus the query words it holds in another inflection.
  const lexicalScores = new Map<number, number>();
  if (lexical.length > 0) {
    const counts = new Map<string, number>();
    const found = new Map(lexical.map((m) => [m.id, m.terms]));
    for (const m of lexical) for (const [term, n] of Object.entries(m.terms)) if (!counts.has(term)) counts.set(term, n);
    const inflected = inflectedScorer(terms, counts, lexical[0]!.total);
    for (const id of cosines.keys()) {
      const record = records.get(id);
      if (!record) continue;
      const e = evidence.get(id);
      const score = (e?.score ?? 0) + inflected(found.get(id), record.text);
      if (score > 0) lexicalScores.set(id, score);
    }
  }
  let bestLexical = 0;
  let bestWords = 0;
  for (const score of lexicalScores.values()) bestLexical = Math.max(bestLexical, score);
  for (const [id, e] of evidence) if (cosines.has(id)) bestWords = Math.max(bestWords, e.wordScore);
  const context = { floor, bestCosine, bestLexical, queryWeight };
  const queryWords = wordSet(queryText);
  const relevance = new Map<number, number>();
  for (const [id, cosine] of cosines) {
    const record = records.get(id);
    if (!record) continue;
    const fused = fusedRelevance(cosine, lexicalScores.get(id) ?? 0, context);
    relevance.set(
      id,
      fused *
        speakerFactor(queryWords, record.text) *
        askingFactor(record.text) *
        whenFactor(queryText, record.text) *
        howMuchFactor(queryText, record.text),
    );
  }
  const bestRelevance = Math.max(...relevance.values());
  const candidates: RankedCandidate[] = [];
  for (const [id, fused] of relevance) {
    const record = records.get(id)!;
    candidates.push({ record, cosine: cosines.get(id)!, ...withinScore({ ...record, relevance: fused / bestRelevance }, nowMs) });
  }
  candidates.sort((a, b) => b.within - a.within || b.cosine - a.cosine);
  return { bestCosine, bestWordShare: queryWeight > 0 ? bestWords / queryWeight : 0, bestGap: bestCosine - tenth, candidates };
}

/**
 * The float rows and records of `ids` (the lexical channel's, read while the model embeds the query), the records with
 * the reads not yet written laid over them now, as they are read (bookkeeping.ts may write and clear them meanwhile).
 */
async function readRowsOf(
  deps: Pick<RetrieveDeps, "store" | "reads">,
  workspaceId: number,
  ids: readonly number[],
): Promise<{ ids: ReadonlySet<number>; floats: Map<number, VectorRecord>; records: Map<number, MemoryRecord> }> {
  const rows = ids.length > 0 ? await deps.store.memoriesWithVectors(workspaceId, ids) : [];
  return {
    ids: new Set(ids),
    floats: new Map(rows.map(({ vector }) => [vector.id, vector])),
    records: new Map(
      deps.reads
        .withPendingReads(
          workspaceId,
          rows.map(({ record }) => record),
        )
        .map((r) => [r.id, r]),
    ),
  };
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
  const nowMs = deps.now().getTime();
  const ranked = await rankCandidates(deps, workspaceId, input.query, nowMs);
  // One factor per query: the ranking within it is the candidates' own, the threshold means the same across queries.
  const sure =
    ranked === null ? 0 : confidence(relevanceFloorFor(deps.embedder.id), ranked.bestCosine, ranked.bestWordShare, ranked.bestGap);
  const chosen = (ranked?.candidates ?? [])
    .map((c) => ({ ...c, score: clamp01(sure * c.within) }))
    .filter((c) => c.score >= input.min_score)
    .slice(0, input.top_k);

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

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
