// The wire shapes of the four operations, as the reference service sends them (snake_case, as the API names them).
// The client parses responses with lenient zod schemas built from these; the service builds responses typed by them.

export type WorkspaceStatus = "active" | "suspended" | "limit_reached" | "deleted";
export type TemporalType = "persistent" | "time_bound";
export type DedupAction = "stored_new" | "merged";

export interface StoreRequest {
  text: string;
  meta?: Record<string, unknown>;
}

export interface Temporal {
  type: TemporalType;
  /** ISO 8601 UTC, second precision, `Z`; null for persistent memories. */
  valid_until: string | null;
}

/**
 * store's answer. The specification's fields in its order (status .. temporal); no extras. Ids are integers
 * assigned by the store and never reused.
 */
export interface StoreResponse {
  status: "ok";
  memory_id: number;
  workspace_id: number;
  /** `stored_new` (existing_id null) or `merged` (existing_id = memory_id = the surviving memory). */
  dedup: { action: DedupAction; existing_id: number | null };
  /** 1..10. */
  importance: number;
  /** 2 to 4 labels: one domain, then one to three topics (src/service/models/judge/categories.ts). */
  categories: string[];
  temporal: Temporal;
}

export interface RetrieveRequest {
  query: string;
  top_k?: number;
  min_score?: number;
}

/** One element of retrieve's `memories`: the specification's fields (id .. meta), then our documented extras. */
export interface RetrievedMemory {
  id: number;
  text: string;
  /** Hybrid score in 0..1 (DESIGN.md "Retrieval and decay"); results are ranked by it. */
  score: number;
  /** Raw cosine between the query's and the memory's vectors, clamped to 0..1. */
  similarity: number;
  importance: number;
  /** The caller's meta, beside the service's own `temporal` and `categories` keys (which win on a clash). */
  meta: Record<string, unknown> & { temporal: Temporal; categories: string[] };
  // Extras (documented; no client may require them):
  /** True for a time-bound memory past its valid_until (its score was multiplied by 0.2). */
  expired: boolean;
  created_at: string;
  last_accessed_at: string | null;
  access_count: number;
}

export interface RetrieveResponse {
  memories: RetrievedMemory[];
  /** Extra: memories.length. */
  count: number;
}

/** The specification names total_memories; the other five names are ours (it lists their meanings only). */
export interface HealthSignals {
  total_memories: number;
  stale_memories: number;
  duplicate_memories: number;
  overlong_memories: number;
  never_retrieved_memories: number;
  open_recommendations: number;
}

export interface Recommendation {
  code: string;
  message: string;
  count: number;
}

export interface HealthResponse {
  /** 0..100, one decimal. */
  quality_score: number;
  signals: HealthSignals;
  // Extras:
  recommendations: Recommendation[];
  generated_at: string;
}

/** status's answer: the specification's nine fields in its order, then our documented extras. */
export interface StatusResponse {
  workspace_id: number;
  workspace_name: string;
  workspace_status: WorkspaceStatus;
  plan_name: string;
  billing_cycle: string;
  api_key_id: number;
  api_key_prefix: string;
  healthy: boolean;
  server_time: string;
  // Extras:
  memory_count: number;
  version: string;
}

/** Every error answer: `{"error": {...}}`, with the request id repeated from `x-request-id`. */
export interface ErrorBody {
  error: {
    type: ErrorType;
    code: ErrorCode;
    message: string;
    request_id: string;
    /** 429 only: seconds to wait, an integer (also sent as `Retry-After`). */
    retry_after?: number;
    /** 422 pii_detected only: the kinds found, never the values. */
    pii_types?: string[];
    /** 422 invalid_request: the offending field, when there is one. */
    param?: string;
  };
}

export type ErrorType =
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "invalid_request_error"
  | "rate_limit_error"
  | "api_error"
  | "service_unavailable_error";

export type ErrorCode =
  | "invalid_api_key"
  | "workspace_suspended"
  | "workspace_deleted"
  | "workspace_limit_reached"
  | "not_found"
  | "method_not_allowed"
  | "invalid_request"
  | "text_too_long"
  | "pii_detected"
  | "idempotency_key_reused"
  | "payload_too_large"
  | "request_timeout"
  | "unsupported_media_type"
  | "rate_limited"
  | "internal_error"
  | "store_unavailable"
  | "storage_full";

/** Which HTTP status answers each error code. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_api_key: 401,
  workspace_suspended: 403,
  workspace_deleted: 403,
  workspace_limit_reached: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_request: 422,
  text_too_long: 422,
  pii_detected: 422,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  request_timeout: 408,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  store_unavailable: 503,
  storage_full: 503,
};

export const ERROR_TYPE: Record<ErrorCode, ErrorType> = {
  invalid_api_key: "authentication_error",
  workspace_suspended: "permission_error",
  workspace_deleted: "permission_error",
  workspace_limit_reached: "permission_error",
  not_found: "not_found_error",
  method_not_allowed: "invalid_request_error",
  invalid_request: "invalid_request_error",
  text_too_long: "invalid_request_error",
  pii_detected: "invalid_request_error",
  idempotency_key_reused: "invalid_request_error",
  payload_too_large: "invalid_request_error",
  request_timeout: "invalid_request_error",
  unsupported_media_type: "invalid_request_error",
  rate_limited: "rate_limit_error",
  internal_error: "api_error",
  store_unavailable: "service_unavailable_error",
  storage_full: "service_unavailable_error",
};

/** The four public routes. Nothing else is public. */
export const ROUTES = {
  store: { method: "POST", path: "/v1/memory/store" },
  retrieve: { method: "POST", path: "/v1/memory/retrieve" },
  health: { method: "GET", path: "/v1/optimize/health" },
  status: { method: "GET", path: "/v1/status" },
} as const;

/** Request ids: `req_` + 26 characters (a ULID). */
export const REQUEST_ID_PATTERN = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;
