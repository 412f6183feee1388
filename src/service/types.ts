// The seam between the service's HTTP edge (src/service/http) and its domain core (store, pipeline, retrieval,
// health). The HTTP layer validates shapes, authenticates, applies the workspace-state and rate-limit rules and
// maps ServiceError to the JSON error body; the core does the work and never sees HTTP.
import type { ErrorCode, HealthResponse, RetrieveResponse, StatusResponse, StoreResponse, WorkspaceStatus } from "../contract/wire.js";
import type { PiiType } from "./pipeline/pii/types.js";
import type { ServiceLog } from "./process/log.js";
import type { RateDecision, Workspace } from "./store/types.js";
import type { WebhookRuntime } from "./webhooks/runtime.js";

export type { ServiceLog } from "./process/log.js";
export type { RateDecision, Workspace } from "./store/types.js";

/** Who is calling: resolved from the bearer key. */
export interface AuthContext {
  workspace: Workspace;
  keyId: number;
  /** The key's public prefix (first 11 characters). */
  keyPrefix: string;
}

/** A validated store request: `text` already trimmed and within limits, `meta` within 4 KiB. */
export interface StoreInput {
  text: string;
  meta: Record<string, unknown>;
}

/** A validated retrieve request with defaults applied. */
export interface RetrieveInput {
  query: string;
  top_k: number;
  min_score: number;
}

/** A failure the core reports; the HTTP layer turns it into the documented status and body. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { pii_types?: PiiType[]; param?: string; retry_after?: number } = {},
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export interface MemoryService {
  /** The key's workspace and key id, or null for an unknown or revoked key. */
  authenticate(apiKey: string): Promise<AuthContext | null>;
  /**
   * authenticate, then consumeRateLimit of the key found, in one step (one statement on PostgreSQL): the HTTP edge's
   * guard. Null (and no token taken) for an unknown or revoked key.
   */
  authenticateTakingToken(apiKey: string): Promise<{ auth: AuthContext; rate: RateDecision } | null>;
  /** Runs the write pipeline. Throws ServiceError (pii_detected, idempotency_key_reused, ...). */
  store(auth: AuthContext, input: StoreInput, opts: { idempotencyKey?: string }): Promise<StoreResponse>;
  retrieve(auth: AuthContext, input: RetrieveInput): Promise<RetrieveResponse>;
  health(auth: AuthContext): Promise<HealthResponse>;
  status(auth: AuthContext): Promise<StatusResponse>;
  /** Takes one token from the key's bucket (shared across processes where the store allows). */
  consumeRateLimit(keyId: number): Promise<RateDecision>;
  /**
   * Runs the query model once and loads the vector indexes of the `workspaces` most recently written workspaces, one
   * after another, so the first reads after a start do not wait for them (seconds at 100,000 memories). Requests are
   * served meanwhile.
   */
  warmUp(workspaces: number, opts?: { reembed?: boolean }): Promise<void>;
  /** True when the store can be read and written and the models are loaded. */
  healthy(): Promise<boolean>;
  /** Webhook delivery (started by `serve`) and the anomaly counters the HTTP edge feeds. */
  readonly webhooks?: WebhookRuntime;
  close(): Promise<void>;
}

/** Workspace and key administration (`brain-mcp admin`, first start of `serve`, `--embedded`). */
export interface AdminService {
  createWorkspace(input: { name: string; plan?: string; billing_cycle?: string }): Promise<Workspace>;
  setWorkspaceStatus(workspaceId: number, status: WorkspaceStatus): Promise<Workspace>;
  countWorkspaces(): Promise<number>;
  /** Every workspace, oldest first, with its memory count and live keys (`admin workspace list`). */
  listWorkspaces(): Promise<{ workspace: Workspace; memories: number; liveKeys: number }[]>;
  /**
   * On a store with no workspace, makes one named `name` with a key, in one step that several processes starting
   * together on an empty store can race safely: exactly one gets it back, the others (and every later start) null.
   */
  createFirstWorkspace(name: string): Promise<{ workspace: Workspace; keyId: number; apiKey: string; prefix: string } | null>;
  /** Makes a new key; the plaintext is returned once and only its SHA-256 is kept. */
  createKey(workspaceId: number): Promise<{ keyId: number; apiKey: string; prefix: string }>;
  /** Registers an existing key (e.g. of an older prefix) for a workspace. */
  importKey(workspaceId: number, apiKey: string): Promise<{ keyId: number; prefix: string }>;
  revokeKey(keyId: number): Promise<boolean>;
  /** Whether the key with this id is live or revoked; null when there is no such key. */
  keyState(keyId: number): Promise<"live" | "revoked" | null>;
  /**
   * Re-embeds every memory whose vector came from another model; returns how many were re-embedded. `onProgress` is
   * told the running count after each batch; `fromPrefix` limits it to vectors whose model id starts so. `serve` runs it
   * at start for the models this version retired (RETIRED_EMBEDDER_PREFIX); `admin reembed` for all, on demand.
   */
  reembed(opts?: { workspaceId?: number; fromPrefix?: string; onProgress?: (done: number) => void }): Promise<number>;
}

export interface ServiceOptions {
  /** SQLite file path; ignored when databaseUrl is set. */
  dbPath?: string;
  /** PostgreSQL connection string; wins over dbPath. */
  databaseUrl?: string;
  env?: NodeJS.ProcessEnv;
  /** Structured log sink (stderr JSON lines in production). */
  log?: ServiceLog;
  /** Clock, for tests. */
  now?: () => Date;
}
