// The package's public API: the typed client (`import { Brain } from "brain-mcp"`).
export { Brain } from "./client/brain.js";
export type { ClientOptions, RequestOptions } from "./client/core.js";
export { USER_AGENT } from "./client/core.js";
export type { RetrieveOptions } from "./client/resources/memory.js";
export {
  BrainError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ValidationError,
  RateLimitError,
  ServiceUnavailableError,
  InternalServerError,
  ConnectionError,
  TimeoutError,
  CLIENT_ERROR_CODES,
} from "./client/errors.js";
export { createStderrLogger, redact } from "./client/logger.js";
export { verifyWebhook, WebhookVerificationError } from "./client/webhooks.js";
export type { WebhookEvent } from "./client/webhooks.js";
export type { Logger, LogFields, LogLevel } from "./client/logger.js";
export type {
  StoreResponse,
  RetrieveResponse,
  RetrievedMemory,
  HealthResponse,
  HealthSignals,
  Recommendation,
  StatusResponse,
  Temporal,
} from "./client/schemas.js";
export type { ErrorCode, ErrorType } from "./contract/wire.js";
export {
  DEFAULT_BASE_URL,
  TEXT_MAX_CHARS,
  QUERY_MAX_CHARS,
  TOP_K_MIN,
  TOP_K_MAX,
  TOP_K_DEFAULT,
  MIN_SCORE_MIN,
  MIN_SCORE_MAX,
  MIN_SCORE_DEFAULT,
  META_MAX_BYTES,
  CLIENT_TIMEOUT_MS_DEFAULT,
  CLIENT_MAX_RETRIES_DEFAULT,
  CALL_DEADLINE_MS_DEFAULT,
} from "./contract/limits.js";
export { DOMAINS, TOPICS } from "./contract/taxonomy.js";
export { VERSION } from "./version.js";
