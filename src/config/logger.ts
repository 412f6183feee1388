// The stderr logger: honours BRAIN_LOG and never prints a key (stdout belongs to the MCP protocol).

import { API_KEY_PREFIX } from "../contract/limits.js";
import type { LogLevel } from "./env.js";

export interface Logger {
  error(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  debug(message: string, ...details: unknown[]): void;
}

const SEVERITY: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };

// Workspace keys by their prefix, and whatever follows "Bearer" (keys with an older prefix too).
const KEY_PATTERN = new RegExp(`${API_KEY_PREFIX}[A-Za-z0-9]+|(?<=Bearer\\s+)[^\\s"',]+`, "g");

/** Replaces every key it can recognize, and each of `secrets` verbatim, with `***`. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(KEY_PATTERN, "***");
  for (const secret of secrets) if (secret) out = out.split(secret).join("***");
  return out;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Where lines go; stderr unless a test says otherwise. */
  write?: (line: string) => void;
  /** Values that must never be printed (the API key in use). */
  secrets?: readonly string[];
  prefix?: string;
}

export function createLogger(options: LoggerOptions): Logger {
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const prefix = options.prefix ?? "brain-mcp";
  const limit = SEVERITY[options.level];
  const emit =
    (level: Exclude<LogLevel, "off">) =>
    (message: string, ...details: unknown[]) => {
      if (SEVERITY[level] > limit) return;
      const extra = details.map(describe).filter(Boolean).join(" ");
      write(redact(`${prefix} ${level}: ${message}${extra ? " " + extra : ""}\n`, options.secrets));
    };
  return { error: emit("error"), warn: emit("warn"), info: emit("info"), debug: emit("debug") };
}

function describe(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
