// Every way a client call can fail, one class per HTTP status family (DESIGN.md "The client library").
// Messages say what failed and carry the request id; they never carry the key.
import { redact } from "./logger.js";

export interface BrainErrorInit {
  statusCode?: number | null;
  requestId?: string | null;
  body?: unknown;
  code?: string | null;
  cause?: unknown;
}

/** Codes the client itself sets, for failures that never reached (or never came back from) the service. */
export const CLIENT_ERROR_CODES = {
  missingApiKey: "missing_api_key",
  invalidBaseUrl: "invalid_base_url",
  insecureBaseUrl: "insecure_base_url",
  connection: "connection_error",
  timeout: "timeout",
  cancelled: "cancelled",
  invalidResponse: "invalid_response",
  redirectRefused: "redirect_refused",
  tooManyRedirects: "too_many_redirects",
  redirectNotFollowed: "redirect_not_followed",
  invalidOption: "invalid_option",
  closed: "client_closed",
} as const;

export class BrainError extends Error {
  override name = "BrainError";
  /** The HTTP status, or null when no response came back (network errors, timeouts, client-side refusals). */
  readonly statusCode: number | null;
  /** The service's `x-request-id` (or the body's `request_id`), null when there was no response. */
  readonly requestId: string | null;
  /** The parsed JSON error body, the raw text when it was not JSON, or null. */
  readonly body: unknown;
  /** The service's `error.code` (`pii_detected`, `workspace_suspended`, ...) or one of CLIENT_ERROR_CODES. */
  readonly code: string | null;
  /** 422 `pii_detected` only: the kinds of personal data found, never the values. */
  readonly piiTypes?: string[];

  constructor(message: string, init: BrainErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.statusCode = init.statusCode ?? null;
    this.requestId = init.requestId ?? null;
    this.body = init.body ?? null;
    this.code = init.code ?? null;
    const piiTypes = errorField(init.body, "pii_types");
    if (Array.isArray(piiTypes)) this.piiTypes = piiTypes.filter((t): t is string => typeof t === "string");
  }
}

/** 401: the key is missing, invalid or revoked (also thrown at construction when there is no key at all). */
export class AuthenticationError extends BrainError {
  override name = "AuthenticationError";
}
/** 403: the workspace is suspended or deleted, or (store only) has reached its limit; tell them apart by `code`. */
export class PermissionError extends BrainError {
  override name = "PermissionError";
}
/** 404: no such route (e.g. a service that predates status or health). */
export class NotFoundError extends BrainError {
  override name = "NotFoundError";
}
/** 422 (and 400, 413, 415): the request was refused as it stands; `code` says why (`pii_detected`, `text_too_long`, ...). */
export class ValidationError extends BrainError {
  override name = "ValidationError";
}
/** 429: too many requests for this key; `retryAfter` says how many seconds to wait, when the service said. */
export class RateLimitError extends BrainError {
  override name = "RateLimitError";
  readonly retryAfter: number | null;
  constructor(message: string, init: BrainErrorInit & { retryAfter?: number | null } = {}) {
    super(message, init);
    this.retryAfter = init.retryAfter ?? null;
  }
}
/** 502, 503, 504: the service (or a proxy before it) is unavailable; retried before it is thrown. */
export class ServiceUnavailableError extends BrainError {
  override name = "ServiceUnavailableError";
}
/** Any other 5xx: the service failed; not retried (a store may have been written). */
export class InternalServerError extends BrainError {
  override name = "InternalServerError";
}
/** No response: connection refused or reset, DNS failure, or (as TimeoutError) no answer in time. `statusCode` is null. */
export class ConnectionError extends BrainError {
  override name = "ConnectionError";

  /** The first error code below this one (`ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_SOCKET`, ...), if any. */
  get causeCode(): string | null {
    return causeCodes(this.cause)[0] ?? null;
  }

  /** Nothing listens at the address: the service is not running there. */
  get refused(): boolean {
    return causeCodes(this.cause).includes("ECONNREFUSED");
  }
}
/** No response in time: an attempt's `timeout`, or the caller's deadline signal. `statusCode` is null. */
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
}

/** Every string `code` along `cause` (and inside AggregateError's `errors`, from happy-eyeballs connects). */
function causeCodes(error: unknown, depth = 0): string[] {
  if (!error || typeof error !== "object" || depth >= 5) return [];
  const { code, errors, cause } = error as { code?: unknown; errors?: unknown; cause?: unknown };
  const codes = typeof code === "string" ? [code] : [];
  if (Array.isArray(errors)) for (const e of errors) codes.push(...causeCodes(e, depth + 1));
  return codes.concat(causeCodes(cause, depth + 1));
}

type Headers = Record<string, string | string[] | undefined>;

/** The error for an HTTP answer that is not a success, chosen by status. */
export function errorFromResponse(
  operation: string,
  statusCode: number,
  headers: Headers,
  body: unknown,
  requestId: string | null,
  attempts = 1,
): BrainError {
  const code = stringField(body, "code");
  const serverMessage = stringField(body, "message");
  const id = requestId ?? stringField(body, "request_id");
  const detail = serverMessage ? `: ${redact(serverMessage)}` : "";
  const tried = attempts > 1 ? ` after ${attempts} attempts` : "";
  const message = `${operation} failed with ${statusCode}${code ? ` ${code}` : ""}${tried}${detail}${requestSuffix(id)}`;
  const init: BrainErrorInit = { statusCode, requestId: id, body, code };
  if (statusCode === 401) return new AuthenticationError(message, init);
  if (statusCode === 403) return new PermissionError(message, init);
  if (statusCode === 404) return new NotFoundError(message, init);
  if (statusCode === 422 || statusCode === 400 || statusCode === 413 || statusCode === 415) {
    return new ValidationError(message, init);
  }
  if (statusCode === 429) return new RateLimitError(message, { ...init, retryAfter: retryAfterSeconds(headers, body) });
  if (statusCode === 502 || statusCode === 503 || statusCode === 504) return new ServiceUnavailableError(message, init);
  if (statusCode >= 500) return new InternalServerError(message, init);
  return new BrainError(message, init);
}

/** Seconds to wait, from `retry-after-ms`, then `Retry-After` (seconds or an HTTP date), then the body's `retry_after`. */
export function retryAfterSeconds(headers: Headers, body: unknown, now: number = Date.now()): number | null {
  const ms = Number(firstHeader(headers["retry-after-ms"]));
  if (firstHeader(headers["retry-after-ms"]) !== undefined && Number.isFinite(ms) && ms >= 0) return ms / 1000;
  const header = firstHeader(headers["retry-after"]);
  if (header !== undefined && header.trim() !== "") {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds;
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, (date - now) / 1000);
  }
  const fromBody = errorField(body, "retry_after");
  if (typeof fromBody === "number" && Number.isFinite(fromBody) && fromBody >= 0) return fromBody;
  return null;
}

export function requestSuffix(requestId: string | null): string {
  return requestId ? ` (request ${requestId})` : "";
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function errorField(body: unknown, field: string): unknown {
  if (typeof body !== "object" || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  return (error as Record<string, unknown>)[field];
}

function stringField(body: unknown, field: string): string | null {
  const value = errorField(body, field);
  return typeof value === "string" && value !== "" ? value : null;
}
