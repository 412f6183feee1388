// The API's documented limits and defaults (DESIGN.md "The API contract"). Imported everywhere, never repeated.

/** Where `brain-mcp serve` listens by default, and so the client's default base URL. */
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8787;
/** `brain-mcp ui`'s dashboard port (on 127.0.0.1). */
export const DEFAULT_UI_PORT = 8788;
export const DEFAULT_BASE_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;

/** Memory text: 1..8,000 characters after trimming. */
export const TEXT_MIN_CHARS = 1;
export const TEXT_MAX_CHARS = 8_000;
/** Retrieve query: 1..2,000 characters. */
export const QUERY_MIN_CHARS = 1;
export const QUERY_MAX_CHARS = 2_000;
/** Retrieve top_k: integer 1..50, default 5. */
export const TOP_K_MIN = 1;
export const TOP_K_MAX = 50;
export const TOP_K_DEFAULT = 5;
/**
 * Retrieve min_score: 0..1. The default, applied when a retrieve omits it, keeps answers and drops questions unrelated
 * to every memory (the score is calibrated: src/service/retrieval/weights.ts CONFIDENCE; docs/decisions.md, issue 30).
 */
export const MIN_SCORE_MIN = 0;
export const MIN_SCORE_MAX = 1;
export const MIN_SCORE_DEFAULT = 0.1;
/** The caller's meta object, serialized as JSON: at most 4 KiB. */
export const META_MAX_BYTES = 4 * 1024;
/** The caller's meta object: nested at most this deep (the object itself is depth 1) and this many keys in all. */
export const META_MAX_DEPTH = 5;
export const META_MAX_KEYS = 64;
/** A request body: at most 64 KiB. */
export const BODY_MAX_BYTES = 64 * 1024;
/** A request body's JSON: arrays and objects nested at most this deep (checked before parsing). */
export const BODY_MAX_DEPTH = 16;
/** Importance: integer 1..10. */
export const IMPORTANCE_MIN = 1;
export const IMPORTANCE_MAX = 10;
/** Idempotency keys are remembered this long. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Idempotency-Key header: 1..255 printable characters. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

/** Per-key token bucket defaults (a fleet shares its key). */
export const RATE_LIMIT_RPS_DEFAULT = 200;
export const RATE_LIMIT_BURST_DEFAULT = 400;

/** API keys: `svc_ws_` + 32 base62 characters; the public prefix is the first 11 characters. */
export const API_KEY_PREFIX = "svc_ws_";
export const API_KEY_RANDOM_CHARS = 32;
export const API_KEY_PUBLIC_PREFIX_CHARS = 11;

/** Client and adapter defaults. */
export const CLIENT_TIMEOUT_MS_DEFAULT = 30_000;
export const CLIENT_MAX_RETRIES_DEFAULT = 2;
export const CLIENT_MAX_REDIRECTS = 3;
export const CALL_DEADLINE_MS_DEFAULT = 45_000;

/** A 503's `Retry-After` in seconds: the store was unreachable or busy, or its disk full (`storage_full`). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;
/** A client must send a request's headers within this long, or get 408 and be disconnected (slowloris). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A client must send its whole request (64 KiB at most) within this long, or get 408 and be disconnected. */
export const REQUEST_TIMEOUT_MS = 20_000;
/** node:http server options that apply both limits (checked every second): the service's and the dashboard's. */
export const HTTP_SERVER_TIMEOUTS = {
  headersTimeout: HEADERS_TIMEOUT_MS,
  requestTimeout: REQUEST_TIMEOUT_MS,
  connectionsCheckingInterval: 1_000,
} as const;
/** On SIGTERM/SIGINT, in-flight requests get this long to finish before their connections are cut. */
export const SHUTDOWN_GRACE_MS = 10_000;
