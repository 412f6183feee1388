// The client's logging seam: a logger is passed in; every line goes through redact() first.
import { API_KEY_PREFIX } from "../contract/limits.js";

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogLevel = "off" | "error" | "warn" | "info" | "debug";

const LEVEL_RANK: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };

const noop = (): void => {};

/** A logger writing one line per entry to stderr (never stdout: the adapter's stdout is MCP only). */
export function createStderrLogger(level: LogLevel = "warn", write: (line: string) => void = writeStderr): Logger {
  const rank = LEVEL_RANK[level] ?? LEVEL_RANK.warn;
  const at = (name: Exclude<LogLevel, "off">) =>
    LEVEL_RANK[name] <= rank
      ? (message: string, fields?: LogFields) =>
          write(`brain-mcp ${name}: ${message}${fields && Object.keys(fields).length ? ` ${safeJson(fields)}` : ""}\n`)
      : noop;
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** True when this logger's debug() does nothing, so the client can skip building debug lines. */
export function isNoop(fn: (...args: never[]) => void): boolean {
  return fn === noop;
}

function writeStderr(line: string): void {
  process.stderr.write(line);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return "[unserializable]";
  }
}

// Keys begin with svc_ws_; older prefixes differ, so the client also redacts its own key literally.
const KEY_PATTERN = new RegExp(`${API_KEY_PREFIX}[A-Za-z0-9_-]*`, "g");
const BEARER_PATTERN = /Bearer\s+[^\s"',]+/gi;
const SECRET_FIELD = /^(authorization|proxy-authorization|api[-_]?key|apikey|x-api-key)$/i;

/** `value` with Authorization values, bearer tokens, `svc_ws_…` keys and the given secrets replaced by `***`. */
export function redact<T>(value: T, secrets: readonly string[] = [], depth = 0): T {
  if (typeof value === "string") return redactString(value, secrets) as T;
  if (typeof value !== "object" || value === null || depth > 6) return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, secrets, depth + 1)) as T;
  if (value instanceof Error) {
    return { name: value.name, message: redactString(value.message, secrets) } as T;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) ? "***" : redact(item, secrets, depth + 1);
  }
  return out as T;
}

function redactString(text: string, secrets: readonly string[]): string {
  let out = text.replace(BEARER_PATTERN, "Bearer ***").replace(KEY_PATTERN, "***");
  for (const secret of secrets) if (secret && out.includes(secret)) out = out.split(secret).join("***");
  return out;
}
