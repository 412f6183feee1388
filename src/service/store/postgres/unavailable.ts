// Which PostgreSQL failures mean "the database cannot be reached right now" (a 503 the client may retry) rather
// than a bug (a 500). The pool drops broken connections by itself and reconnects when the database is back.
import { ServiceError } from "../../types.js";

/** Node socket errors seen when the server is down, restarting or unreachable. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENOENT", // a unix socket path that is gone while the server restarts
]);

/**
 * SQLSTATEs: connection exceptions (class 08), shutdown and startup (57P01-57P03), too many connections, and the
 * bounds of ./pool.ts: a statement cancelled for running too long (57014), a lock not granted in time (55P03), a
 * transaction left idle too long (25P03).
 */
function isUnavailableSqlState(code: string): boolean {
  return code.startsWith("08") || ["57P01", "57P02", "57P03", "53300", "57014", "55P03", "25P03"].includes(code);
}

const CONNECTION_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /query read timeout/i, // pool.ts's client-side bound: the server never answered
  /not queryable/i,
  /connection (?:is )?(?:closed|ended)/i,
  /cannot use a pool after calling end/i,
  /client was closed/i,
];

export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || isUnavailableSqlState(code))) return true;
  return CONNECTION_MESSAGES.some((re) => re.test(err.message));
}

/** The error the HTTP layer answers with 503 store_unavailable; never carries SQL, parameters or memory text. */
export function storeUnavailable(): ServiceError {
  return new ServiceError("store_unavailable", "The memory store (PostgreSQL) is unreachable right now; retry in a few seconds.");
}

/** Rethrows connection failures as store_unavailable and everything else unchanged. */
export function asStoreError(err: unknown): unknown {
  return isStoreUnavailable(err) ? storeUnavailable() : err;
}
