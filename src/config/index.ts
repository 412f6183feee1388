// The adapter's settings, resolved once: environment first, then the config file, then the default.

import { DEFAULT_BASE_URL } from "../contract/limits.js";
import { ConfigError, readEnv, type LogLevel, type ToolNameMode } from "./env.js";
import { configFilePath, readConfigFile } from "./file.js";

export { ConfigError, LOG_LEVELS, readEnv, TOOL_NAME_MODES, type LogLevel, type ToolNameMode } from "./env.js";
export { configFilePath, defaultConfigDir, readConfigFile, writeConfigFile, type ConfigFile } from "./file.js";
export { createLogger, redact, type Logger } from "./logger.js";

export interface AdapterConfig {
  /** Undefined when neither BRAIN_API_KEY nor the config file has one: every call then says how to set it. */
  apiKey?: string;
  keySource: "env" | "file" | "none";
  baseURL: string;
  baseURLSource: "env" | "file" | "default";
  configPath: string;
  toolNames: ToolNameMode;
  timeoutMs: number;
  maxRetries: number;
  callDeadlineMs: number;
  logLevel: LogLevel;
  /** Set (with `keepBadBaseURL`) when the base URL is unusable: the sentence saying why and what it should look like. */
  baseURLProblem?: string;
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Hears warnings found while loading (a config file others can read). */
  warn?: (message: string) => void;
  /** The adapter: a bad base URL is reported in baseURLProblem (then by every tool call), not thrown. */
  keepBadBaseURL?: boolean;
}

export function loadConfig(options: LoadConfigOptions = {}): AdapterConfig {
  const env = readEnv(options.env ?? process.env);
  const configPath = configFilePath(env.configPath);
  const file = readConfigFile(configPath, options.warn ?? ((m) => void process.stderr.write(`brain-mcp ${m}\n`)));
  const fileKey = file.api_key?.trim() || undefined;
  const fileURL = file.base_url?.trim() || undefined;

  const baseURL = env.baseURL ?? fileURL ?? DEFAULT_BASE_URL;
  const baseURLSource = env.baseURL ? "env" : fileURL ? "file" : "default";
  let baseURLProblem: string | undefined;
  try {
    checkBaseURL(baseURL, baseURLSource === "env" ? "BRAIN_BASE_URL" : `"base_url" in ${configPath}`);
  } catch (error) {
    if (!options.keepBadBaseURL || !(error instanceof ConfigError)) throw error;
    baseURLProblem = error.message;
  }

  return {
    apiKey: env.apiKey ?? fileKey,
    keySource: env.apiKey ? "env" : fileKey ? "file" : "none",
    baseURL: baseURL.replace(/\/+$/, ""),
    baseURLSource,
    configPath,
    toolNames: env.toolNames,
    timeoutMs: env.timeoutMs,
    maxRetries: env.maxRetries,
    callDeadlineMs: env.callDeadlineMs,
    logLevel: env.logLevel,
    ...(baseURLProblem ? { baseURLProblem } : {}),
  };
}

/** What a base URL looks like: the service's root, without /v1 (the client adds the API's paths). */
export const ADDRESS_EXAMPLES = "http://127.0.0.1:8787 or https://brain.example.com (no /v1)";

/** An http(s) URL; plain http only to this machine (the key must not cross a network in clear). */
export function checkBaseURL(value: string, source: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      `${source}=${JSON.stringify(value)} is not a URL: give the service's address with its scheme, like ${ADDRESS_EXAMPLES}.`,
    );
  }
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && isLoopback(url.hostname)) return;
  if (url.protocol === "http:") {
    throw new ConfigError(
      `${source}=${JSON.stringify(value)} uses plain http off this machine: use https (plain http is only for 127.0.0.1, ::1 or localhost).`,
    );
  }
  throw new ConfigError(`${source}=${JSON.stringify(value)} must be an https:// (or loopback http://) URL, like ${ADDRESS_EXAMPLES}.`);
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}
