// The config file (`config.json`, keys `api_key` and `base_url`): where it lives, reading it, writing it 0600.

import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import envPaths from "env-paths";
import { ConfigError } from "./env.js";

export interface ConfigFile {
  api_key?: string;
  base_url?: string;
}

/** The folder env-paths gives the name `brain` with no suffix (Linux: ~/.config/brain). */
export function defaultConfigDir(): string {
  return envPaths("brain", { suffix: "" }).config;
}

/** `BRAIN_CONFIG` if set, else `config.json` in the default folder. */
export function configFilePath(explicit?: string): string {
  return explicit ?? join(defaultConfigDir(), "config.json");
}

/**
 * Reads the file; a missing file is an empty config. `warn` hears about a file others can read
 * (it holds a key). A file that is not a JSON object is a ConfigError naming the path.
 */
export function readConfigFile(path: string, warn: (message: string) => void): ConfigFile {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ConfigError(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
  if (process.platform !== "win32") {
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) {
      warn(
        `warning: the config file ${path} is readable by others (mode ${mode.toString(8).padStart(4, "0")}); ` +
          `it holds your API key: run chmod 600 ${JSON.stringify(path)}`,
      );
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`the config file ${path} is not valid JSON: fix it or rewrite it with \`brain-mcp config set-key\`.`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`the config file ${path} must hold a JSON object with "api_key" and/or "base_url".`);
  }
  const file = parsed as Record<string, unknown>;
  for (const key of ["api_key", "base_url"] as const) {
    if (file[key] !== undefined && typeof file[key] !== "string") {
      throw new ConfigError(`"${key}" in the config file ${path} must be a string.`);
    }
  }
  return parsed as ConfigFile;
}

/** Merges `patch` into the file (keeping other keys) and writes it atomically: file 0600, folder 0700. */
export function writeConfigFile(path: string, patch: ConfigFile): void {
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    if (current === null || typeof current !== "object" || Array.isArray(current)) current = {};
  } catch {
    current = {};
  }
  const next = { ...current, ...patch };
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
  chmodSync(temp, 0o600); // the umask may have narrowed it; never widened, but be exact
  renameSync(temp, path);
}
