// The service's log: one JSON object per line (time, level, msg, fields) on a stream, normally stderr.
import type { ServiceLog } from "../types.js";

export type LogLevel = "debug" | "info" | "warn" | "error" | "off";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

export function parseLogLevel(value: string | undefined, fallback: LogLevel): LogLevel {
  const v = value?.trim().toLowerCase();
  return v !== undefined && v in RANK ? (v as LogLevel) : fallback;
}

export function createJsonLog(
  stream: { write(line: string): unknown },
  level: LogLevel = "info",
  now: () => Date = () => new Date(),
): ServiceLog {
  const emit =
    (lvl: Exclude<LogLevel, "off">) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (RANK[lvl] < RANK[level]) return;
      stream.write(`${JSON.stringify({ time: now().toISOString(), level: lvl, msg, ...fields })}\n`);
    };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
