// The adapter's environment variables (DESIGN.md "The adapter"), parsed once at start-up.
// A bad value is a start-up error that names the variable; a missing one takes its default.

import { CALL_DEADLINE_MS_DEFAULT, CLIENT_MAX_RETRIES_DEFAULT, CLIENT_TIMEOUT_MS_DEFAULT } from "../contract/limits.js";

export const TOOL_NAME_MODES = ["auto", "dotted", "underscore"] as const;
export type ToolNameMode = (typeof TOOL_NAME_MODES)[number];

export const LOG_LEVELS = ["off", "error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What the environment says; undefined where it says nothing (the config file or a default decides). */
export interface EnvSettings {
  apiKey?: string;
  baseURL?: string;
  configPath?: string;
  toolNames: ToolNameMode;
  timeoutMs: number;
  maxRetries: number;
  callDeadlineMs: number;
  logLevel: LogLevel;
}

/** A setting the user got wrong: the message names the variable (or file) and what is accepted. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export function readEnv(env: NodeJS.ProcessEnv): EnvSettings {
  return {
    apiKey: nonEmpty(env.BRAIN_API_KEY),
    baseURL: nonEmpty(env.BRAIN_BASE_URL),
    configPath: nonEmpty(env.BRAIN_CONFIG),
    toolNames: oneOf("BRAIN_TOOL_NAMES", env.BRAIN_TOOL_NAMES, TOOL_NAME_MODES, "auto"),
    timeoutMs: seconds("BRAIN_TIMEOUT", env.BRAIN_TIMEOUT, CLIENT_TIMEOUT_MS_DEFAULT),
    maxRetries: count("BRAIN_MAX_RETRIES", env.BRAIN_MAX_RETRIES, CLIENT_MAX_RETRIES_DEFAULT),
    callDeadlineMs: seconds("BRAIN_CALL_DEADLINE", env.BRAIN_CALL_DEADLINE, CALL_DEADLINE_MS_DEFAULT),
    logLevel: oneOf("BRAIN_LOG", env.BRAIN_LOG, LOG_LEVELS, "warn"),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[], fallback: T): T {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid: use one of ${allowed.join(", ")}.`);
}

/** Seconds in the environment (fractions allowed), milliseconds inside. */
function seconds(name: string, raw: string | undefined, fallbackMs: number): number {
  const value = nonEmpty(raw);
  if (value === undefined) return fallbackMs;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid: give a number of seconds greater than 0 (at most 3600).`);
  }
  return Math.round(n * 1000);
}

function count(name: string, raw: string | undefined, fallback: number): number {
  const value = nonEmpty(raw);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 10) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid: give a whole number from 0 to 10.`);
  }
  return n;
}
