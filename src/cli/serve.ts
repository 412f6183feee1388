// `brain-mcp serve`: the memory service over HTTP(S), on SQLite by default or PostgreSQL with a database URL.
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import envPaths from "env-paths";
import { DEFAULT_HOST, DEFAULT_PORT } from "../contract/limits.js";
import { createJsonLog, parseLogLevel } from "../service/process/json-log.js";
import { asMissingDependency, loadOptional } from "../service/process/optional-deps.js";
import type { Embedder, Judge } from "../service/models/types.js";
import type { FirstWorkspace } from "../service/open.js";
import type { AdminService, MemoryService, ServiceLog } from "../service/types.js";
import { readFlags, usageError as flagUsageError } from "./flags.js";
import { dbWaitSeconds, openWaitingForStore } from "./store-wait.js";

const USAGE = `usage: brain-mcp serve [--host 127.0.0.1] [--port 8787] [--db PATH] [--database-url URL]
                       [--tls-cert FILE --tls-key FILE] [--redirect-to URL] [--insecure-http]

  --db PATH            SQLite file (env BRAIN_DB; default brain.db in the data folder)
  --database-url URL   PostgreSQL (env BRAIN_DATABASE_URL; wins over a SQLite path)
  --tls-cert, --tls-key  serve HTTPS with this certificate and key (PEM files)
  --redirect-to URL    answer every request with 301 to URL + path (for an old host); no store is opened
  --insecure-http      allow plain HTTP on a non-loopback address (behind a TLS proxy)`;

/** How many workspaces' vector indexes `serve` loads at start, most recently written first (BRAIN_WARM_WORKSPACES). */
export const WARM_WORKSPACES_DEFAULT = 16;

function warmWorkspaces(value: string | undefined): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isInteger(n) && n >= 0 ? n : WARM_WORKSPACES_DEFAULT;
}

/** Where the service keeps its memories. */
export interface StoreLocation {
  dbPath?: string;
  databaseUrl?: string;
  /** Printable, with any password replaced by `***`. */
  description: string;
}

/** The default SQLite file: brain.db in env-paths' data folder for `brain` (no suffix). */
export function defaultDbPath(): string {
  return join(envPaths("brain", { suffix: "" }).data, "brain.db");
}

/** Hides the password of a connection string. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable database URL)";
  }
}

/** The flags that name the store, shared by every command that opens it (`serve`, `admin`, `ui`). */
export const STORE_FLAGS = { db: { type: "string" }, "database-url": { type: "string" } } as const;

/** A --port value as a number, or null when it is not 0..65535. */
export function portFrom(raw: string): number | null {
  const port = Number(raw);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : null;
}

/** Flags beat the environment; a database URL (from either) wins over a SQLite path. */
export function resolveStoreLocation(flags: { db?: string; "database-url"?: string }, env: NodeJS.ProcessEnv): StoreLocation {
  const databaseUrl = flags["database-url"] || env.BRAIN_DATABASE_URL || undefined;
  if (databaseUrl !== undefined) {
    return { databaseUrl, description: `PostgreSQL at ${redactDatabaseUrl(databaseUrl)}` };
  }
  const dbPath = flags.db || env.BRAIN_DB || defaultDbPath();
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  return { dbPath, description: `SQLite at ${dbPath}` };
}

/** Opens the store and models, turning a missing optional package into an install hint. */
export async function openStore(
  location: StoreLocation,
  env: NodeJS.ProcessEnv,
  log: ServiceLog,
  opts: { withoutModels?: boolean } = {},
): Promise<MemoryService & AdminService> {
  const [{ openService }, { serviceSettings }] = await loadOptional(() =>
    Promise.all([import("../service/open.js"), import("../service/settings.js")]),
  );
  const models = opts.withoutModels ? { embedder: NO_EMBEDDER, judge: NO_JUDGE } : undefined;
  // The service's settings are read here, once; the core never reads the environment.
  const settings = serviceSettings(env);
  return loadOptional(() => openService({ dbPath: location.dbPath, databaseUrl: location.databaseUrl, env, settings, log, models }));
}

/**
 * openStore for `serve`: on a store with no workspace yet, also makes the "default" workspace and its key. Several
 * serves starting together on one empty store make one: the one that did gets it back, the others null.
 */
export async function openServeStore(
  location: StoreLocation,
  env: NodeJS.ProcessEnv,
  log: ServiceLog,
): Promise<{ service: MemoryService & AdminService; firstWorkspace: FirstWorkspace | null }> {
  const { openServiceWithFirstWorkspace } = await loadOptional(() => import("../service/open.js"));
  return loadOptional(() =>
    openServiceWithFirstWorkspace({ dbPath: location.dbPath, databaseUrl: location.databaseUrl, env, log }, "default"),
  );
}

// Workspace and key administration never embeds or judges, so it skips the seconds of loading the models.
const modelsNotLoaded = async (): Promise<never> => {
  throw new Error("this command opened the store without its models");
};
const NO_EMBEDDER: Embedder = {
  id: "none",
  dimensions: 1,
  dedupThreshold: 1,
  load: async () => undefined,
  embed: modelsNotLoaded,
};
const NO_JUDGE: Judge = { id: "none", load: async () => undefined, judge: modelsNotLoaded };

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\]|::ffff:127(\.\d{1,3}){3})$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

/** Prints a failure; a missing optional package becomes the exact install command. */
export function reportFailure(command: string, err: unknown): number {
  const missing = asMissingDependency(err);
  if (missing) {
    process.stderr.write(
      `brain-mcp ${command}: the optional package ${missing.packageName} is not installed.\n` + `Install it with: ${missing.install}\n`,
    );
    return 1;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`brain-mcp ${command}: ${message}\n`);
  return 1;
}

const usageError = (message: string) => flagUsageError("serve", USAGE, message);

/** Runs until SIGTERM/SIGINT, then shuts down gracefully and exits 0. Returns an exit code only on failure. */
export async function runServe(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const flags = readFlags("serve", USAGE, argv, {
    host: { type: "string", default: DEFAULT_HOST },
    port: { type: "string", default: String(DEFAULT_PORT) },
    ...STORE_FLAGS,
    "tls-cert": { type: "string" },
    "tls-key": { type: "string" },
    "redirect-to": { type: "string" },
    "insecure-http": { type: "boolean", default: false },
  });
  if (flags.exitCode !== undefined) return flags.exitCode;
  const { values } = flags;
  const port = portFrom(values.port);
  if (port === null) return usageError(`--port must be 0..65535, not ${values.port}`);
  if ((values["tls-cert"] === undefined) !== (values["tls-key"] === undefined)) {
    return usageError("--tls-cert and --tls-key go together");
  }
  const host = values.host;
  const tlsFiles = values["tls-cert"] !== undefined ? { cert: values["tls-cert"], key: values["tls-key"]! } : undefined;
  if (!tlsFiles && !isLoopbackHost(host) && !values["insecure-http"]) {
    return usageError(
      `refusing to serve plain HTTP on ${host}: API keys would cross the network in clear text. ` +
        "Use --tls-cert/--tls-key, or --insecure-http behind a TLS-terminating proxy.",
    );
  }
  let redirectTo: string | undefined;
  if (values["redirect-to"] !== undefined) {
    try {
      const target = new URL(values["redirect-to"]);
      if (target.protocol !== "https:" && target.protocol !== "http:") throw new Error("not http(s)");
      redirectTo = values["redirect-to"];
    } catch {
      return usageError(`--redirect-to must be an http(s) URL, not ${values["redirect-to"]}`);
    }
  }

  const log = createJsonLog(process.stderr, parseLogLevel(env.BRAIN_LOG, "info"));
  const say = (line: string) => process.stdout.write(`brain-mcp serve: ${line}\n`);

  let service: (MemoryService & AdminService) | undefined;
  try {
    const tls = tlsFiles && { cert: readFileSync(tlsFiles.cert), key: readFileSync(tlsFiles.key) };
    const { startServer } = await loadOptional(() => import("../service/server.js"));
    if (redirectTo === undefined) {
      const location = resolveStoreLocation(values, env);
      say(`store: ${location.description}`);
      // SQLite is a file: only a database server is worth waiting for.
      const waitSeconds = location.databaseUrl ? dbWaitSeconds(env) : 0;
      const opened = await openWaitingForStore(() => openServeStore(location, env, log), waitSeconds, location.description, say);
      service = opened.service;
      if (opened.firstWorkspace) {
        const { workspace, apiKey } = opened.firstWorkspace;
        say(`created workspace ${workspace.id} ("${workspace.name}") with API key:`);
        process.stdout.write(`${apiKey}\n`);
        say("this key will not be shown again; keep it now (BRAIN_API_KEY, or `brain-mcp config set-key` reading it from stdin).");
      }
    }
    const server = await startServer({ service, host, port, tls, log, redirectTo });
    if (redirectTo !== undefined) say(`redirecting every request to ${redirectTo}`);
    say(`listening on ${server.url}`);
    // the first reads after a restart would otherwise wait while their workspace's index loads
    const warm = warmWorkspaces(env.BRAIN_WARM_WORKSPACES);
    // BRAIN_REEMBED_AT_START=0 leaves memories of an earlier model to `admin reembed` (health counts them meanwhile)
    const reembed = (env.BRAIN_REEMBED_AT_START ?? "").trim() !== "0";
    // Webhooks: this process sends the outbox's events too (several processes share the work; none sends one twice).
    service?.webhooks?.start();
    if (service)
      void service
        .warmUp(warm, { reembed })
        .catch((err) => log.warn("warming up (model, re-embedding, indexes) failed", { error: (err as Error).message }));

    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        // A second Ctrl-C means "now"; a repeated SIGTERM (supervisors resend) changes nothing.
        if (signal === "SIGINT") process.exit(130);
        return;
      }
      stopping = true;
      log.info("shutting down", { signal });
      server.close().then(
        () => process.exit(0),
        (err) => {
          log.error("shutdown failed", { error: (err as Error).message });
          process.exit(1);
        },
      );
    };
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGINT", () => stop("SIGINT"));
    // Serve until a signal ends the process.
    return await new Promise<number>(() => undefined);
  } catch (err) {
    await service?.close().catch(() => undefined);
    const code = reportFailure("serve", err);
    process.exitCode = code;
    return code;
  }
}
