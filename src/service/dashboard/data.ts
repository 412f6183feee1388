// What the dashboard (`brain-mcp ui`) shows, read in-process from the service's own store with the service's own
// retrieval and health code, and the workspace owner's controls (forgetting memories, keys). A search here is not a
// recall (it would change the very scores, recency and "never retrieved" counts it displays); a key is shown once,
// when created, and its hash is never read.
import { TOP_K_MAX } from "../../contract/limits.js";
import type { HealthResponse, Temporal, TemporalType } from "../../contract/wire.js";
import { listDuplicatePairs } from "../health/duplicates.js";
import { characterCount, healthCountsQuery, measureHealth } from "../health/index.js";
import type { Embedder } from "../models/types.js";
import { retrieveMemories, temporalOf } from "../retrieval/retrieve.js";
import { isExpired } from "../retrieval/score.js";
import { VectorIndexes, storeSource } from "../retrieval/vector-index.js";
import { keyRecordOf, newApiKey } from "../ids.js";
import type { ApiKeyRecord, MemoryFilter, MemoryRecord, MemoryStats, MemoryStore } from "../store/types.js";
import { DAY_MS, isoSeconds } from "../time.js";
import { AGE_RANGES, PAGE_SIZE, type AgeRange, type HealthList } from "./choices.js";
import { usageReport, type UsageReport } from "./usage.js";
import { directReads } from "../bookkeeping.js";

/** Most duplicate pairs listed (the health signal counts them all). */
export const DUPLICATES_LISTED = 100;

export interface WorkspaceOverview {
  id: number;
  name: string;
  status: string;
  plan: string;
  billing_cycle: string;
  created_at: string;
  memories: number;
  live_keys: number;
  writes: number;
  recalls: number;
  quality_score: number;
}

/** A memory as the dashboard shows it (the caller's meta apart from the service's judgement). */
export interface DashboardMemory {
  id: number;
  text: string;
  characters: number;
  importance: number;
  categories: string[];
  temporal: Temporal;
  expired: boolean;
  meta: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  last_accessed_at: string | null;
  access_count: number;
  embedder_id: string;
}

/** One search result: the service's own ranking numbers beside the memory. */
export type SearchHit = DashboardMemory & { score: number; similarity: number };

export interface MemoryPage {
  total: number;
  offset: number;
  /** Rows per page (a search answers in one page). */
  limit: number;
  memories: (DashboardMemory | SearchHit)[];
}

export interface DuplicateView {
  cosine: number;
  a: DashboardMemory;
  b: DashboardMemory;
}

export interface DashboardDeps {
  store: MemoryStore;
  embedder: Embedder;
  now?: () => Date;
}

export interface Dashboard {
  workspaces(): Promise<WorkspaceOverview[]>;
  workspace(id: number): Promise<WorkspaceOverview | null>;
  /** Whether the workspace exists (cheap: no counts, no health). */
  hasWorkspace(id: number): Promise<boolean>;
  /** Filtered and paged; with a query, the service's retrieval ranks (up to TOP_K_MAX) and the filter narrows. */
  memories(workspaceId: number, request: { query?: string; filter: MemoryFilter; offset: number }): Promise<MemoryPage>;
  memory(workspaceId: number, id: number): Promise<DashboardMemory | null>;
  health(workspaceId: number): Promise<HealthResponse>;
  healthList(workspaceId: number, list: Exclude<HealthList, "duplicates">, offset: number): Promise<MemoryPage>;
  duplicates(workspaceId: number): Promise<DuplicateView[]>;
  stats(workspaceId: number): Promise<MemoryStats>;
  /** Forgets these memories of the workspace (everywhere they live); returns the ids actually forgotten. */
  forget(workspaceId: number, ids: readonly number[]): Promise<number[]>;
  /** The workspace's keys: ids, prefixes and times, never a key or its hash. */
  keys(workspaceId: number): Promise<DashboardKey[]>;
  /** A new key for the workspace: the only answer that ever holds it. */
  createKey(workspaceId: number): Promise<DashboardKey & { key: string }>;
  /** Revokes one of the workspace's keys; false when it has no such live key. */
  revokeKey(workspaceId: number, keyId: number): Promise<boolean>;
  /** Billable writes and reads per day and per billing cycle. */
  usage(workspaceId: number): Promise<UsageReport | null>;
}

export interface DashboardKey {
  id: number;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const toDashboardKey = (k: ApiKeyRecord): DashboardKey => ({
  id: k.id,
  prefix: k.prefix,
  created_at: isoSeconds(k.created_at),
  last_used_at: k.last_used_at === null ? null : isoSeconds(k.last_used_at),
  revoked_at: k.revoked_at === null ? null : isoSeconds(k.revoked_at),
});

export function toDashboardMemory(m: MemoryRecord, nowMs: number): DashboardMemory {
  return {
    id: m.id,
    text: m.text,
    characters: characterCount(m.text),
    importance: m.importance,
    categories: m.categories,
    temporal: temporalOf(m),
    expired: isExpired(m.valid_until, nowMs),
    meta: m.meta,
    created_at: isoSeconds(m.created_at),
    updated_at: isoSeconds(m.updated_at),
    last_accessed_at: m.last_accessed_at === null ? null : isoSeconds(m.last_accessed_at),
    access_count: m.access_count,
    embedder_id: m.embedder_id,
  };
}

/** The age choice as created-at bounds at `nowMs`. */
export function ageBounds(age: AgeRange, nowMs: number): Pick<MemoryFilter, "createdFromMs" | "createdBeforeMs"> {
  const range: { withinDays?: number; olderDays?: number } = AGE_RANGES[age];
  return range.withinDays !== undefined
    ? { createdFromMs: nowMs - range.withinDays * DAY_MS }
    : { createdBeforeMs: nowMs - range.olderDays! * DAY_MS };
}

export function createDashboard({ store, embedder, now = () => new Date() }: DashboardDeps): Dashboard {
  const indexes = new VectorIndexes(embedder.dimensions, embedder.id);
  const loadIndex = (workspaceId: number) => indexes.refreshShared(workspaceId, storeSource(store, workspaceId));
  const health = (workspaceId: number) => measureHealth({ store, embedder, loadIndex }, workspaceId, now().getTime());

  async function overview(summary: Awaited<ReturnType<MemoryStore["listWorkspaces"]>>[number]): Promise<WorkspaceOverview> {
    const { workspace: w } = summary;
    const [usage, report] = await Promise.all([store.usageCounts(w.id), health(w.id)]);
    return {
      id: w.id,
      name: w.name,
      status: w.status,
      plan: w.plan,
      billing_cycle: w.billing_cycle,
      created_at: w.created_at,
      memories: summary.memories,
      live_keys: summary.liveKeys,
      writes: usage.write,
      recalls: usage.read,
      quality_score: report.quality_score,
    };
  }

  async function page(workspaceId: number, filter: MemoryFilter, offset: number): Promise<MemoryPage> {
    const found = await store.browseMemories(workspaceId, filter, { limit: PAGE_SIZE, offset });
    const nowMs = now().getTime();
    return { total: found.total, offset, limit: PAGE_SIZE, memories: found.memories.map((m) => toDashboardMemory(m, nowMs)) };
  }

  return {
    async workspaces() {
      // One after another: each loads its workspace's vector index for the quality score.
      const all = [];
      for (const summary of await store.listWorkspaces()) all.push(await overview(summary));
      return all;
    },

    async workspace(id) {
      const summary = (await store.listWorkspaces()).find((s) => s.workspace.id === id);
      return summary ? overview(summary) : null;
    },

    async hasWorkspace(id) {
      return (await store.getWorkspace(id)) !== null;
    },

    async memories(workspaceId, { query, filter, offset }) {
      if (query === undefined) return page(workspaceId, filter, offset);
      const ranked = await retrieveMemories(
        { store, reads: directReads(store), indexes, embedder, now },
        workspaceId,
        { query, top_k: TOP_K_MAX, min_score: 0 },
        { countAsRecall: false },
      );
      const ids = ranked.memories.map((m) => m.id);
      const kept = new Map(
        ids.length === 0
          ? []
          : (await store.browseMemories(workspaceId, { ...filter, ids }, { limit: ids.length, offset: 0 })).memories.map((m) => [m.id, m]),
      );
      const nowMs = now().getTime();
      const hits: SearchHit[] = [];
      for (const r of ranked.memories) {
        const record = kept.get(r.id);
        if (record) hits.push({ ...toDashboardMemory(record, nowMs), score: r.score, similarity: r.similarity });
      }
      return { total: hits.length, offset: 0, limit: hits.length, memories: hits };
    },

    async memory(workspaceId, id) {
      const [record] = await store.getMemories(workspaceId, [id]);
      return record ? toDashboardMemory(record, now().getTime()) : null;
    },

    health,

    healthList(workspaceId, list, offset) {
      return page(workspaceId, { signal: { kind: list, query: healthCountsQuery(now().getTime(), embedder.id) } }, offset);
    },

    async duplicates(workspaceId) {
      const floats = (ids: readonly number[]) => store.vectorsOf(workspaceId, ids);
      const pairs = await listDuplicatePairs(await loadIndex(workspaceId), embedder.dedupThreshold, DUPLICATES_LISTED, floats);
      const ids = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
      const nowMs = now().getTime();
      const byId = new Map((await store.getMemories(workspaceId, ids)).map((m) => [m.id, toDashboardMemory(m, nowMs)]));
      return pairs.flatMap((p) => {
        const a = byId.get(p.a);
        const b = byId.get(p.b);
        return a && b ? [{ cosine: Math.round(p.cosine * 1e6) / 1e6, a, b }] : [];
      });
    },

    stats(workspaceId) {
      return store.memoryStats(workspaceId);
    },

    forget(workspaceId, ids) {
      // This process's index drops them on its next refresh, from the tombstones the store leaves (as every process's).
      return store.deleteMemories(workspaceId, ids);
    },

    async keys(workspaceId) {
      return (await store.listKeys(workspaceId)).map(toDashboardKey);
    },

    async createKey(workspaceId) {
      const key = newApiKey();
      const record = keyRecordOf(key, now().getTime());
      const id = await store.insertKey({ ...record, workspace_id: workspaceId });
      return { ...toDashboardKey({ id, prefix: record.prefix, created_at: record.created_at, last_used_at: null, revoked_at: null }), key };
    },

    async revokeKey(workspaceId, keyId) {
      const owned = (await store.listKeys(workspaceId)).some((k) => k.id === keyId && k.revoked_at === null);
      return owned && store.revokeKey(keyId, now().getTime());
    },

    async usage(workspaceId) {
      const workspace = await store.getWorkspace(workspaceId);
      return workspace && usageReport(store, workspace, now().getTime());
    },
  };
}

/** Parses the memory list's query string; a message names the first bad parameter. */
export function parseMemoryRequest(
  params: URLSearchParams,
  nowMs: number,
): { query?: string; filter: MemoryFilter; offset: number } | { error: string } {
  const filter: MemoryFilter = {};
  const query = params.get("q")?.trim() || undefined;
  const category = params.get("category")?.trim();
  if (category) filter.category = category;
  const temporal = params.get("temporal");
  if (temporal) {
    if (temporal !== "persistent" && temporal !== "time_bound") return { error: "temporal must be persistent or time_bound" };
    filter.temporalType = temporal as TemporalType;
  }
  for (const [name, key] of [
    ["min_importance", "minImportance"],
    ["max_importance", "maxImportance"],
  ] as const) {
    const raw = params.get(name);
    if (!raw) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > 10) return { error: `${name} must be an integer from 1 to 10` };
    filter[key] = n;
  }
  const age = params.get("age");
  if (age) {
    if (!Object.hasOwn(AGE_RANGES, age)) return { error: `age must be one of ${Object.keys(AGE_RANGES).join(", ")}` };
    Object.assign(filter, ageBounds(age as AgeRange, nowMs));
  }
  const offset = parseOffset(params.get("offset"));
  if (offset === null) return { error: "offset must be a non-negative integer" };
  return { query, filter, offset };
}

export function parseOffset(raw: string | null): number | null {
  if (raw === null || raw === "") return 0;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}
