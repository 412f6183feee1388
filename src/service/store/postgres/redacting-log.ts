// The PostgreSQL store's log: the service's log with the connection string's password removed from every line.
// A driver error may quote what it was given; the password must never reach a log.
import type { ServiceLog } from "../../types.js";

const MASK = "***";

/** The password of a connection string, raw and percent-decoded (either may appear in a message); none when absent. */
export function passwordsOf(databaseUrl: string): string[] {
  try {
    const raw = new URL(databaseUrl).password;
    if (raw === "") return [];
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // a malformed escape: only the raw form can appear
    }
    return [...new Set([raw, decoded])];
  } catch {
    return [];
  }
}

function scrub(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return secrets.reduce((s, secret) => s.split(secret).join(MASK), value);
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, secrets)]));
  }
  return value;
}

/** `log` with every occurrence of the URL's password in messages and fields replaced by `***`. */
export function redactingLog(log: ServiceLog, databaseUrl: string): ServiceLog {
  const secrets = passwordsOf(databaseUrl);
  if (secrets.length === 0) return log;
  const wrap = (emit: ServiceLog["info"]) => (msg: string, fields?: Record<string, unknown>) =>
    emit(scrub(msg, secrets) as string, fields && (scrub(fields, secrets) as Record<string, unknown>));
  return { debug: wrap(log.debug), info: wrap(log.info), warn: wrap(log.warn), error: wrap(log.error) };
}
