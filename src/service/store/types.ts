// The memory store: everything the service keeps, behind one async, dialect-neutral interface.
// SQLite (./sqlite.ts) and PostgreSQL (./postgres.ts) implement it with the same behaviour; the domain core
// (pipeline, retrieval, health) never writes SQL.
//
// Conventions every implementation follows:
// - Timestamps are integer milliseconds since the epoch (UTC); the core renders them as ISO 8601 `Z`.
// - Vectors are Float32Array (stored as raw little-endian float32 bytes: SQLite BLOB, PostgreSQL bytea).
// - The SQL both stores run is written once where it can be, in ./shared-sql.ts and ./dashboard-sql.ts.
// - `rev` is a per-workspace revision: strictly increasing within a workspace, assigned only inside
//   `writeInWorkspace` (so, under the workspace's write lock) as max(rev of the workspace) + 1, and bumped on insert
//   and on every update of a memory's text/vector/judgement (merge, re-embed). Readers cache vectors and ask for
//   `rev > cachedMax`; because revs are assigned under the lock and committed in order, no row is ever missed.
//   Access statistics (touchMemories) do NOT bump rev.
// - Implementations: `openSqliteStore(path): MemoryStore` (./sqlite.ts) and
//   `openPostgresStore(databaseUrl: string, { log }): Promise<MemoryStore>` (./postgres.ts, loaded by ./open-store.ts).
// - Workspace, key and memory ids are positive integers assigned by the store on insert and never reused (SQLite
//   AUTOINCREMENT, PostgreSQL identity columns); stores written by 0.1.0 (text ids) are migrated on open.
import type { TemporalType, WorkspaceStatus } from "../../contract/wire.js";
import type { WebhookStore } from "../webhooks/store.js";

export interface Workspace {
  /** Assigned by the store, never reused. */
  id: number;
  name: string;
  plan: string;
  billing_cycle: string;
  status: WorkspaceStatus;
  created_at: string;
}

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a request would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

/** A memory as the store keeps it, without its vector. */
export interface MemoryRecord {
  id: number;
  workspace_id: number;
  text: string;
  meta: Record<string, unknown>;
  embedder_id: string;
  importance: number;
  temporal_type: TemporalType;
  /** Milliseconds; null for persistent memories. */
  valid_until: number | null;
  categories: string[];
  created_at: number;
  updated_at: number;
  last_accessed_at: number | null;
  access_count: number;
  rev: number;
}

/**
 * What the vector index caches per memory. A forgotten memory comes as a tombstone: FORGOTTEN_EMBEDDER and an empty
 * vector, which the index applies by dropping the memory (it drops any row it cannot compare).
 */
export interface VectorRecord {
  id: number;
  rev: number;
  embedder_id: string;
  /** Empty for a tombstone, and for a row given as `codes`. */
  vector: Float32Array;
  /**
   * The vector's int8 codes as stored beside it (../retrieval/int8-kernel.ts vectorCodes), instead of the floats:
   * only when the reader asked for codes of this row's embedder and the row has them (rows written before migration
   * 9 on PostgreSQL may not).
   */
  codes?: Uint8Array;
}

export const FORGOTTEN_EMBEDDER = "";

/**
 * A workspace's vector index as it stood at `upToRev`, kept in the store in chunks (../retrieval/vector-snapshot.ts)
 * so a process loads it in a few bulk reads; rows with a rev above it come through vectorsSince as usual.
 */
export interface VectorSnapshotHeader {
  embedderId: string;
  dimensions: number;
  upToRev: number;
  rows: number;
}

/** A stored snapshot: its header, and its chunks read one at a time (null when it was replaced or erased meanwhile). */
export interface StoredVectorSnapshot extends VectorSnapshotHeader {
  chunks: number;
  readChunk(chunk: number): Promise<Uint8Array | null>;
}

/** A memory the lexical index found: its score is the sum of the IDFs of the query words it holds (./shared-sql.ts). */
export interface LexicalMatch {
  id: number;
  score: number;
  /**
   * The whole query's weight, the same on every match: the sum of every query word's inverse document frequency, a
   * word no memory holds counting as the rarest. `score / queryWeight` is the share of the query a memory matches.
   */
  queryWeight: number;
  /** The workspace's number of memories (N of the IDF). */
  total: number;
  /** The query words this memory holds (as the index matches them), each with how many memories hold it (n). */
  terms: Record<string, number>;
}

/** A memory's rev as the caller knows it (retrieval: its vector index), or undefined when it does not. */
export type RevOf = (id: number) => number | undefined;

/** A memory to insert; the store assigns `id`, `rev`, `updated_at = created_at`, `access_count = 0`. */
export type NewMemory = Omit<MemoryRecord, "id" | "rev" | "updated_at" | "last_accessed_at" | "access_count"> & { vector: Float32Array };

/** Fields a merge (or re-embed) may replace; the store bumps `rev` and sets `updated_at`. */
export interface MemoryPatch {
  text?: string;
  meta?: Record<string, unknown>;
  vector?: Float32Array;
  embedder_id?: string;
  importance?: number;
  temporal_type?: TemporalType;
  valid_until?: number | null;
  categories?: string[];
  /** Access statistics, set only when an import restores a memory as its export file has it. */
  access_count?: number;
  last_accessed_at?: number | null;
}

/** A key to insert; the store assigns its id. */
export interface NewKey {
  workspace_id: number;
  /** SHA-256 of the whole key, lowercase hex. The plaintext is never stored. */
  key_hash: string;
  /** The key's first 11 characters (public). */
  prefix: string;
  created_at: number;
}

/** A key as the workspace's settings list it: never its hash. */
export interface ApiKeyRecord {
  id: number;
  /** The key's first 11 characters (public). */
  prefix: string;
  created_at: number;
  /** Recorded at most once per KEY_USE_RESOLUTION_MS per key and process; null when never used. */
  last_used_at: number | null;
  revoked_at: number | null;
}

/** One UTC day's billable usage events (days as ms since the epoch). */
export interface UsageDay {
  day: number;
  write: number;
  read: number;
}

export interface IdempotencyRecord {
  workspace_id: number;
  key: string;
  /** SHA-256 hex of the canonical request body. */
  request_hash: string;
  /** The first response, as JSON-serializable data. */
  response: unknown;
  created_at: number;
}

export type UsageKind = "write" | "read";

/** A workspace's retrievals gathered off the request path (src/service/bookkeeping.ts), written as one. */
export interface ReadsBatch {
  workspaceId: number;
  /** Each memory returned: how many retrievals returned it, and the latest one's time. */
  touched: readonly { id: number; count: number; lastAtMs: number }[];
  /** One "read" usage event per retrieval, at its time. */
  readsAtMs: readonly number[];
}

/** A workspace to insert; the store assigns its id. */
export interface NewWorkspace {
  name: string;
  plan: string;
  billing_cycle: string;
  status: WorkspaceStatus;
  created_at: number;
}

/** A workspace as `admin workspace list` shows it. */
export interface WorkspaceSummary {
  workspace: Workspace;
  memories: number;
  liveKeys: number;
}

/** What health counts for a workspace at `nowMs`; the thresholds are health's own (./health/index.ts). */
export interface HealthCountsQuery {
  nowMs: number;
  /** Not accessed (or, never accessed, created) before this: untouched. */
  untouchedBeforeMs: number;
  /** Never retrieved and created before this. */
  neverRetrievedBeforeMs: number;
  /** Over this many characters (Unicode code points, in both stores): overlong. */
  overlongChars: number;
  /** The embedder in use: memories whose vector came from another cannot be recalled until re-embedded. */
  embedderId: string;
}

export interface HealthCounts {
  total: number;
  /** Time-bound memories past valid_until. */
  expired: number;
  /** Not expired, and untouched since `untouchedBeforeMs`. */
  untouched: number;
  overlong: number;
  neverRetrieved: number;
  /** Vectors from another embedder than `embedderId`. */
  otherModel: number;
}

/** Which of a workspace's memories the dashboard (`brain-mcp ui`) lists; every field narrows. */
export interface MemoryFilter {
  /** Only these memories (a search's results, narrowed by the other fields). */
  ids?: readonly number[];
  /** Among the memory's categories (domain or topic). */
  category?: string;
  temporalType?: TemporalType;
  minImportance?: number;
  maxImportance?: number;
  /** Created at or after this (ms). */
  createdFromMs?: number;
  /** Created before this (ms). */
  createdBeforeMs?: number;
  /** Only the memories behind one of health's signals, judged as healthCounts judges them. */
  signal?: { kind: "stale" | "never_retrieved" | "overlong"; query: HealthCountsQuery };
}

/** Counts the dashboard charts, grouped in the store; days are UTC days as ms since the epoch. */
export interface MemoryStats {
  createdPerDay: { day: number; count: number }[];
  /** Most frequent first. */
  categories: { category: string; count: number }[];
  importance: { importance: number; count: number }[];
  recallsPerDay: { day: number; count: number }[];
}

/** A memory's record and its float vector row, read together. */
export interface MemoryWithVector {
  record: MemoryRecord;
  vector: VectorRecord;
}

/**
 * What a write transaction will read first, said in advance: a store may read it as the lock is granted, in the same
 * round trip (PostgreSQL), and answer the transaction's first getIdempotency / vectorsSince calls from it. A hint only:
 * every answer is the one the call would read then (the lock is held, so nothing else has written), and calls that
 * do not match it read as usual. SQLite ignores it.
 */
export interface WriteReadAhead {
  /** The Idempotency-Key whose record the transaction will look up. */
  idempotencyKey?: string;
  /** The rows since `sinceRev` (codes for `codesFor`) the index refresh will ask for. */
  vectorsSince?: { sinceRev: number; codesFor: string };
}

/** Operations that run under one workspace's write lock, inside one transaction. */
export interface WorkspaceTx {
  readonly workspaceId: number;
  /**
   * Vectors of this workspace's memories with rev > sinceRev, ordered by rev ascending; rows of `codesFor` with stored
   * codes come as codes (VectorRecord.codes), the others as floats; at most `limit` rows when given.
   */
  vectorsSince(sinceRev: number, limit?: number, codesFor?: string): Promise<VectorRecord[]>;
  /** Float vectors of these memories (any order; unknown ids skipped): the exact re-scoring of a vector screen. */
  vectorsOf(ids: readonly number[]): Promise<VectorRecord[]>;
  /** vectorsOf and the records of the same memories in one read (any order; unknown ids skipped). */
  memoriesWithVectors(ids: readonly number[]): Promise<MemoryWithVector[]>;
  getMemory(id: number): Promise<MemoryRecord | null>;
  insertMemory(memory: NewMemory): Promise<MemoryRecord>;
  /** Applies the patch, bumps rev, sets updated_at = nowMs. Returns the updated record (null if absent). */
  updateMemory(id: number, patch: MemoryPatch, nowMs: number): Promise<MemoryRecord | null>;
  /** The record for (workspace, key) created at or after `notBeforeMs`, or null. */
  getIdempotency(key: string, notBeforeMs: number): Promise<IdempotencyRecord | null>;
  /** Inserts or replaces (workspace, key); also drops this workspace's records older than `expireBeforeMs`. */
  putIdempotency(record: IdempotencyRecord, expireBeforeMs: number): Promise<void>;
  recordUsage(kind: UsageKind, memoryId: number | null, nowMs: number): Promise<void>;
}

export interface MemoryStore {
  readonly dialect: "sqlite" | "postgres";

  // Workspaces
  /** Inserts the workspace; returns it with the id the store assigned. */
  insertWorkspace(workspace: NewWorkspace): Promise<Workspace>;
  /**
   * Inserts the workspace and its key in one transaction only when the store holds no workspace at all, serialized
   * across processes (SQLite `BEGIN IMMEDIATE`, PostgreSQL an advisory lock): of several processes starting on an
   * empty store, exactly one gets the workspace and its key's id back; null, and nothing written, when a workspace
   * exists. `key` is inserted with the new workspace's id.
   */
  insertFirstWorkspace(workspace: NewWorkspace, key: Omit<NewKey, "workspace_id">): Promise<{ workspace: Workspace; keyId: number } | null>;
  getWorkspace(id: number): Promise<Workspace | null>;
  /** Returns the updated workspace, or null when it does not exist. */
  setWorkspaceStatus(id: number, status: WorkspaceStatus): Promise<Workspace | null>;
  countWorkspaces(): Promise<number>;
  /** Every workspace, oldest first, with its memory count and its live (not revoked) keys. */
  listWorkspaces(): Promise<WorkspaceSummary[]>;

  // Keys
  /** Inserts the key; returns the id the store assigned. */
  insertKey(key: NewKey): Promise<number>;
  /** The live (not revoked) key with this hash and its workspace, or null. */
  findKeyByHash(keyHash: string): Promise<{ keyId: number; prefix: string; keyHash: string; workspace: Workspace } | null>;
  /**
   * findKeyByHash, and for a key found, takeRateToken of its bucket, in one step (one statement on PostgreSQL): the
   * request's first read. Nothing is taken for an unknown or revoked key.
   */
  findKeyTakingToken(
    keyHash: string,
    rps: number,
    burst: number,
    nowMs: number,
  ): Promise<{ keyId: number; prefix: string; keyHash: string; workspace: Workspace; rate: RateDecision } | null>;
  /** Sets revoked_at; true when a live key was revoked. */
  revokeKey(keyId: number, nowMs: number): Promise<boolean>;
  /** The key with this id, live or revoked (revokedAt null when live), or null when there is none. */
  getKey(keyId: number): Promise<{ workspaceId: number; revokedAt: number | null } | null>;
  /** The workspace's keys, revoked ones included, oldest first. */
  listKeys(workspaceId: number): Promise<ApiKeyRecord[]>;
  /** Sets last_used_at = nowMs unless it is already at or after `notBeforeMs` (one cheap indexed update). */
  markKeyUsed(keyId: number, nowMs: number, notBeforeMs: number): Promise<void>;

  // Memories (reads outside the write lock)
  /** Same as WorkspaceTx.vectorsSince, outside any lock (sees committed rows); at most `limit` rows when given. */
  vectorsSince(workspaceId: number, sinceRev: number, limit?: number, codesFor?: string): Promise<VectorRecord[]>;
  /** Same as WorkspaceTx.vectorsOf, outside any lock. */
  vectorsOf(workspaceId: number, ids: readonly number[]): Promise<VectorRecord[]>;
  /** Same as WorkspaceTx.memoriesWithVectors, outside any lock: a retrieve's re-score and its records in one read. */
  memoriesWithVectors(workspaceId: number, ids: readonly number[]): Promise<MemoryWithVector[]>;
  /** The workspace's vector snapshot of `embedderId`, or null when there is none of that model. */
  readVectorSnapshot(workspaceId: number, embedderId: string): Promise<StoredVectorSnapshot | null>;
  /**
   * Stores a new vector snapshot, one chunk per transaction (pulled from `chunks` as they are written), then makes it
   * the workspace's in one transaction that drops the older one; false (and nothing kept) when a memory was forgotten
   * after `upToRev`, whose codes a chunk may hold.
   */
  writeVectorSnapshot(workspaceId: number, header: VectorSnapshotHeader, chunks: Iterable<Uint8Array>): Promise<boolean>;
  /**
   * The workspace's memories holding any of `terms` (lower-case words of letters and digits; words shorter than three
   * characters are left out on every store, ./shared-sql.ts matchableTerms), best first by the store's lexical index
   * (SQLite FTS5, PostgreSQL full text over a tsvector with a GIN index), at most `limit`.
   * Equal scores go newest first by `revOf` when given, else by id (./shared-sql.ts rankPostings).
   */
  searchText(workspaceId: number, terms: readonly string[], limit: number, revOf?: RevOf): Promise<LexicalMatch[]>;
  /**
   * searchText and vectorsSince(workspaceId, since.sinceRev, since.limit, since.codesFor) in one read: a retrieve's
   * lexical search and its index refresh in one round trip (PostgreSQL; a store without it does the two reads).
   */
  searchTextWithVectorsSince?(
    workspaceId: number,
    terms: readonly string[],
    limit: number,
    since: { sinceRev: number; codesFor: string; limit: number },
    revOf?: RevOf,
  ): Promise<{ matches: LexicalMatch[]; vectors: VectorRecord[] }>;
  /** Ids of the workspaces holding memories, the most recently written first, at most `limit`. */
  recentWorkspaces(limit: number): Promise<number[]>;
  /** The records with these ids in this workspace (any order; unknown ids skipped). */
  getMemories(workspaceId: number, ids: readonly number[]): Promise<MemoryRecord[]>;
  /** Every memory of the workspace without vectors, in rev order (tools and tests; health counts in the store instead). */
  listMemories(workspaceId: number): Promise<MemoryRecord[]>;
  /** A page of the workspace's memories matching `filter`, newest first, and how many match (the dashboard). */
  browseMemories(
    workspaceId: number,
    filter: MemoryFilter,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; memories: MemoryRecord[] }>;
  /** The dashboard's chart data, counted in the database. */
  memoryStats(workspaceId: number): Promise<MemoryStats>;
  /** Health's signals counted in the database, in one pass over the workspace's rows (no text leaves the store). */
  healthCounts(workspaceId: number, query: HealthCountsQuery): Promise<HealthCounts>;
  countMemories(workspaceId: number): Promise<number>;
  /** access_count + 1 and last_accessed_at = nowMs for these ids, in one statement. Does not bump rev. */
  touchMemories(workspaceId: number, ids: readonly number[], nowMs: number): Promise<void>;
  /**
   * A retrieval's bookkeeping in one transaction: touchMemories for the ids returned and one "read" usage event.
   * Not a memory write: PostgreSQL commits it without waiting for the WAL flush (synchronous_commit off), so a crash
   * of the database server within about 0.6 s may forget the last reads' counts, never a memory.
   */
  recordRead(workspaceId: number, ids: readonly number[], nowMs: number): Promise<void>;
  /**
   * Many retrievals' bookkeeping in one transaction (access_count + count, last_accessed_at = the later of the two,
   * the usage events), with recordRead's durability. Does not bump rev. With `waitForLock: false` (the batching
   * flush's own interval) a store whose write lock another process holds writes nothing and answers false at once,
   * rather than waiting on this thread (SQLite's busy wait would stall every request for up to busy_timeout): the
   * caller keeps the reads and tries again. Otherwise (the default, and a clean stop's flush) it waits; true = written.
   */
  recordReads(batches: readonly ReadsBatch[], options?: { waitForLock?: boolean }): Promise<boolean>;
  /**
   * Up to `limit` memories (oldest rev first) whose embedder_id differs from `embedderId` (re-embedding), only those
   * whose embedder_id starts with `fromPrefix` when given.
   */
  memoriesNotEmbeddedBy(embedderId: string, limit: number, workspaceId?: number, fromPrefix?: string): Promise<MemoryRecord[]>;

  /**
   * Forgets these memories of the workspace, under its write lock in one transaction: the row, its vector, the
   * idempotent answers naming it, and a tombstone (id and rev only) that every process's vector cache applies through
   * vectorsSince; the workspace's vector snapshot (which may hold their codes); records one "delete" usage event per
   * memory (no text). Returns the ids actually deleted (unknown
   * ids and other workspaces' memories are skipped).
   */
  deleteMemories(workspaceId: number, ids: readonly number[]): Promise<number[]>;

  /**
   * Rewrites the table that held memory texts so that forgotten texts leave the database's files (`admin memory
   * compact`). SQLite: VACUUM and a truncating checkpoint (a forget already erases; this also covers free space left by
   * an earlier version). PostgreSQL: VACUUM FULL of `memories` (locked for its duration), as superuser the statistics
   * of its text and meta removed from pg_statistic (`statistics`), and a CHECKPOINT, which needs superuser or
   * pg_checkpoint (`checkpoint`).
   */
  compact(): Promise<{ ms: number; checkpoint: boolean; statistics: boolean }>;

  /**
   * Runs `fn` in one transaction holding the workspace's write lock: SQLite `BEGIN IMMEDIATE` (which serializes
   * every writer on the file, across processes), PostgreSQL `pg_advisory_xact_lock` keyed by the workspace.
   * Commits when `fn` resolves, rolls back when it throws. `fn` must await only `tx` operations (no model or
   * network calls): on SQLite nothing else may interleave on the connection while the transaction is open.
   */
  writeInWorkspace<T>(workspaceId: number, fn: (tx: WorkspaceTx) => Promise<T>, readAhead?: WriteReadAhead): Promise<T>;

  // Idempotency fast path (outside the lock; the authoritative check repeats inside it)
  getIdempotency(workspaceId: number, key: string, notBeforeMs: number): Promise<IdempotencyRecord | null>;

  // Usage
  /** Records one event outside any write lock (reads). */
  recordUsage(workspaceId: number, kind: UsageKind, memoryId: number | null, nowMs: number): Promise<void>;
  usageCounts(workspaceId: number): Promise<{ write: number; read: number }>;
  /** Billable events (writes and reads) per UTC day, oldest first; days without any are left out. */
  usagePerDay(workspaceId: number): Promise<UsageDay[]>;
  /** Billable events created in [fromMs, toMs). */
  usageBetween(workspaceId: number, fromMs: number, toMs: number): Promise<{ write: number; read: number }>;

  // Rate limit: a token bucket per key (in-process on SQLite, shared across processes on PostgreSQL)
  takeRateToken(keyId: number, rps: number, burst: number, nowMs: number): Promise<RateDecision>;

  /** Webhook endpoints, the event outbox and deliveries (../webhooks/store.ts), on this store's connection. */
  readonly webhooks: WebhookStore;

  /** Reads and writes a probe row; false (never throws) when the store cannot. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
