// The memory store: everything the service keeps, behind one async, dialect-neutral interface.
// SQLite (./sqlite.ts) and PostgreSQL (./postgres.ts) implement it with the same behaviour; the domain core
// (pipeline, retrieval, health) never writes SQL.
//
// Conventions every implementation follows:
// - Timestamps are integer milliseconds since the epoch (UTC); the core renders them as ISO 8601 `Z`.
// - Vectors are Float32Array (stored as raw little-endian float32 bytes: SQLite BLOB, PostgreSQL bytea).
// - `rev` is a per-workspace revision: strictly increasing within a workspace, assigned only inside
//   `writeInWorkspace` (so, under the workspace's write lock) as max(rev of the workspace) + 1, and bumped on insert
//   and on every update of a memory's text/vector/judgement (merge, re-embed). Readers cache vectors and ask for
//   `rev > cachedMax`; because revs are assigned under the lock and committed in order, no row is ever missed.
//   Access statistics (touchMemories) do NOT bump rev.
// - Implementations: `openSqliteStore(path): MemoryStore` (./sqlite.ts) and
//   `openPostgresStore(databaseUrl: string, { log }): Promise<MemoryStore>` (./postgres.ts, loaded by ./open-store.ts).
// - Workspace ids, key ids and memory ids are made by the core (`ws_…`, `key_…`, `mem_…`); the store keeps them.
import type { TemporalType, WorkspaceStatus } from "../../contract/wire.js";
import type { RateDecision, Workspace } from "../types.js";

/** A memory as the store keeps it, without its vector. */
export interface MemoryRecord {
  id: string;
  workspace_id: string;
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

/** What the vector index caches per memory. */
export interface VectorRecord {
  id: string;
  rev: number;
  embedder_id: string;
  vector: Float32Array;
}

/** A memory to insert; the store assigns `rev`, `updated_at = created_at`, `access_count = 0`. */
export type NewMemory = Omit<MemoryRecord, "rev" | "updated_at" | "last_accessed_at" | "access_count"> & { vector: Float32Array };

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
}

export interface StoredKey {
  id: string;
  workspace_id: string;
  /** SHA-256 of the whole key, lowercase hex. The plaintext is never stored. */
  key_hash: string;
  /** The key's first 11 characters (public). */
  prefix: string;
  created_at: number;
}

export interface IdempotencyRecord {
  workspace_id: string;
  key: string;
  /** SHA-256 hex of the canonical request body. */
  request_hash: string;
  /** The first response, as JSON-serializable data. */
  response: unknown;
  created_at: number;
}

export type UsageKind = "write" | "read";

export interface NewWorkspace {
  id: string;
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

/** Operations that run under one workspace's write lock, inside one transaction. */
export interface WorkspaceTx {
  readonly workspaceId: string;
  /** Vectors of this workspace's memories with rev > sinceRev, ordered by rev ascending. */
  vectorsSince(sinceRev: number): Promise<VectorRecord[]>;
  getMemory(id: string): Promise<MemoryRecord | null>;
  insertMemory(memory: NewMemory): Promise<MemoryRecord>;
  /** Applies the patch, bumps rev, sets updated_at = nowMs. Returns the updated record (null if absent). */
  updateMemory(id: string, patch: MemoryPatch, nowMs: number): Promise<MemoryRecord | null>;
  /** The record for (workspace, key) created at or after `notBeforeMs`, or null. */
  getIdempotency(key: string, notBeforeMs: number): Promise<IdempotencyRecord | null>;
  /** Inserts or replaces (workspace, key); also drops this workspace's records older than `expireBeforeMs`. */
  putIdempotency(record: IdempotencyRecord, expireBeforeMs: number): Promise<void>;
  recordUsage(kind: UsageKind, memoryId: string | null, nowMs: number): Promise<void>;
}

export interface MemoryStore {
  readonly dialect: "sqlite" | "postgres";

  // Workspaces
  insertWorkspace(workspace: NewWorkspace): Promise<void>;
  /**
   * Inserts the workspace and its key in one transaction only when the store holds no workspace at all, serialized
   * across processes (SQLite `BEGIN IMMEDIATE`, PostgreSQL an advisory lock): of several processes starting on an
   * empty store, exactly one gets true. False, and nothing written, when a workspace exists.
   */
  insertFirstWorkspace(workspace: NewWorkspace, key: StoredKey): Promise<boolean>;
  getWorkspace(id: string): Promise<Workspace | null>;
  /** Returns the updated workspace, or null when it does not exist. */
  setWorkspaceStatus(id: string, status: WorkspaceStatus): Promise<Workspace | null>;
  countWorkspaces(): Promise<number>;
  /** Every workspace, oldest first, with its memory count and its live (not revoked) keys. */
  listWorkspaces(): Promise<WorkspaceSummary[]>;

  // Keys
  insertKey(key: StoredKey): Promise<void>;
  /** The live (not revoked) key with this hash and its workspace, or null. */
  findKeyByHash(keyHash: string): Promise<{ keyId: string; prefix: string; workspace: Workspace } | null>;
  /** Sets revoked_at; true when a live key was revoked. */
  revokeKey(keyId: string, nowMs: number): Promise<boolean>;

  // Memories (reads outside the write lock)
  /** Same as WorkspaceTx.vectorsSince, outside any lock (sees committed rows); at most `limit` rows when given. */
  vectorsSince(workspaceId: string, sinceRev: number, limit?: number): Promise<VectorRecord[]>;
  /** Ids of the workspaces holding memories, the most recently written first, at most `limit`. */
  recentWorkspaces(limit: number): Promise<string[]>;
  /** The records with these ids in this workspace (any order; unknown ids skipped). */
  getMemories(workspaceId: string, ids: readonly string[]): Promise<MemoryRecord[]>;
  /** Every memory of the workspace without vectors (tools and tests; health counts in the store instead). */
  listMemories(workspaceId: string): Promise<MemoryRecord[]>;
  /** Health's signals counted in the database, in one pass over the workspace's rows (no text leaves the store). */
  healthCounts(workspaceId: string, query: HealthCountsQuery): Promise<HealthCounts>;
  countMemories(workspaceId: string): Promise<number>;
  /** access_count + 1 and last_accessed_at = nowMs for these ids, in one statement. Does not bump rev. */
  touchMemories(workspaceId: string, ids: readonly string[], nowMs: number): Promise<void>;
  /**
   * A retrieval's bookkeeping in one transaction: touchMemories for the ids returned and one "read" usage event.
   * Not a memory write: PostgreSQL commits it without waiting for the WAL flush (synchronous_commit off), so a crash
   * of the database server within about 0.6 s may forget the last reads' counts, never a memory.
   */
  recordRead(workspaceId: string, ids: readonly string[], nowMs: number): Promise<void>;
  /** Up to `limit` memories (oldest rev first) whose embedder_id differs from `embedderId` (re-embedding). */
  memoriesNotEmbeddedBy(embedderId: string, limit: number, workspaceId?: string): Promise<MemoryRecord[]>;

  /**
   * Runs `fn` in one transaction holding the workspace's write lock: SQLite `BEGIN IMMEDIATE` (which serializes
   * every writer on the file, across processes), PostgreSQL `pg_advisory_xact_lock` keyed by the workspace.
   * Commits when `fn` resolves, rolls back when it throws. `fn` must await only `tx` operations (no model or
   * network calls): on SQLite nothing else may interleave on the connection while the transaction is open.
   */
  writeInWorkspace<T>(workspaceId: string, fn: (tx: WorkspaceTx) => Promise<T>): Promise<T>;

  // Idempotency fast path (outside the lock; the authoritative check repeats inside it)
  getIdempotency(workspaceId: string, key: string, notBeforeMs: number): Promise<IdempotencyRecord | null>;

  // Usage
  /** Records one event outside any write lock (reads). */
  recordUsage(workspaceId: string, kind: UsageKind, memoryId: string | null, nowMs: number): Promise<void>;
  usageCounts(workspaceId: string): Promise<{ write: number; read: number }>;

  // Rate limit: a token bucket per key (in-process on SQLite, shared across processes on PostgreSQL)
  takeRateToken(keyId: string, rps: number, burst: number, nowMs: number): Promise<RateDecision>;

  /** Reads and writes a probe row; false (never throws) when the store cannot. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
