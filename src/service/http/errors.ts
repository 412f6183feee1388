// Maps failures to the documented error body: {"error": {type, code, message, request_id, ...}}.
import type { Context } from "hono";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../../contract/limits.js";
import { ERROR_STATUS, ERROR_TYPE, type ErrorBody, type ErrorCode } from "../../contract/wire.js";
import { ServiceError, type ServiceLog } from "../types.js";
import type { EdgeEnv } from "./context.js";

/** Builds the JSON error answer, with the request id repeated from `x-request-id`. */
export function errorResponse(c: Context<EdgeEnv>, error: ServiceError, headers: Record<string, string> = {}): Response {
  const code = error.code;
  const body: ErrorBody = {
    error: {
      type: ERROR_TYPE[code],
      code,
      message: error.message,
      request_id: c.get("requestId"),
    },
  };
  if (error.details.param !== undefined) body.error.param = error.details.param;
  if (error.details.pii_types !== undefined) body.error.pii_types = [...error.details.pii_types];
  if (error.details.retry_after !== undefined) body.error.retry_after = error.details.retry_after;
  c.set("errorCode", code);
  const extra: Record<string, string> = { ...headers };
  if (code === "invalid_api_key") extra["WWW-Authenticate"] = "Bearer";
  if (code === "rate_limited" && error.details.retry_after !== undefined) {
    extra["Retry-After"] = String(error.details.retry_after);
  }
  if (ERROR_STATUS[code] === 503) extra["Retry-After"] ??= String(UNAVAILABLE_RETRY_AFTER_SECONDS);
  return c.json(body, ERROR_STATUS[code] as 400, extra);
}

// Error codes of drivers that mean "the store cannot be reached right now" (try again later), not a bug.
const STORE_UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "EAI_AGAIN",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "53300", // too_many_connections
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_CANTOPEN",
  "SQLITE_READONLY",
]);

/** True for a failure to reach or lock the store (503), as opposed to a defect (500). */
export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (STORE_UNAVAILABLE_CODES.has(code)) return true;
    if (/^08/.test(code)) return true; // PostgreSQL connection_exception class
    if (code.startsWith("SQLITE_IOERR") || code.startsWith("SQLITE_BUSY")) return true;
  }
  if (/Connection terminated|connection timeout|timeout exceeded when trying to connect/i.test(err.message)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isStoreUnavailable(cause);
}

/** True when the store's disk (or its quota) is full: nothing can be written until space is freed. */
export function isStorageFull(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  // SQLite's own code, the OS's, and PostgreSQL's disk_full
  if (code === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT" || code === "53100") return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isStorageFull(cause);
}

/** Turns anything thrown by a middleware or route into a documented answer; never leaks a defect's details. */
export function toServiceError(err: unknown, log: ServiceLog, requestId: string): ServiceError {
  if (err instanceof ServiceError) return err;
  if (isStorageFull(err)) {
    log.error("store's disk is full", { request_id: requestId, ...describe(err) });
    return new ServiceError(
      "storage_full",
      "The memory store's disk is full, so nothing can be written; memories already stored are kept. Free disk space on the service's machine and try again.",
    );
  }
  if (isStoreUnavailable(err)) {
    log.error("store unavailable", { request_id: requestId, ...describe(err) });
    return new ServiceError("store_unavailable", "The memory store is unavailable; try again shortly.");
  }
  log.error("unexpected error", { request_id: requestId, ...describe(err) });
  return new ServiceError("internal_error", `The service failed unexpectedly; try again, and report request ${requestId} if it persists.`);
}

function describe(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { error: typeof err };
  return { error: err.name, error_code: (err as { code?: unknown }).code, stack: err.stack };
}

export function serviceError(code: ErrorCode, message: string, details: ServiceError["details"] = {}): ServiceError {
  return new ServiceError(code, message, details);
}
