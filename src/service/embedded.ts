// `brain-mcp --embedded`: the service inside the adapter, on a loopback port over the local SQLite store, with a
// local workspace key kept in `embedded.json` in the config folder (apart from config.json's hosted key).
import { constants as fsConstants } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setFlagsFromString } from "node:v8";
import envPaths from "env-paths";
import { describeModelRuntime } from "./models/embed/runtime.js";
import { createJsonLog } from "./process/json-log.js";
import { loadOptional } from "./process/optional-deps.js";
import type { AdminService, MemoryService, ServiceLog } from "./types.js";

export interface EmbeddedOptions {
  /** The adapter's config folder; `embedded.json` lives here. */
  configDir: string;
  /** Where `brain.db` lives when BRAIN_DB is not set (default: env-paths' data folder for `brain`). */
  dataDir?: string;
  /** Service log (stderr); stdout belongs to MCP. */
  log?: ServiceLog;
  env?: NodeJS.ProcessEnv;
  /** Load the workspace's index and run the model once before the first call (default true; a one-shot CLI call skips it). */
  warmUp?: boolean;
}

export interface EmbeddedService {
  baseURL: string;
  apiKey: string;
  close(): Promise<void>;
}

interface EmbeddedFile {
  /** An integer; a file written by 0.1.0 holds its text id (unused: the key finds its workspace). */
  workspace_id: number | string;
  api_key: string;
  db_path: string;
}

const FILE_NAME = "embedded.json";
/** The embedded store's file name in the data folder; `serve`'s default is brain.db beside it. */
export const EMBEDDED_DB = "embedded.db";
const LOCK_WAIT_MS = 30_000;
const STALE_LOCK_MS = 60_000;

async function readEmbeddedFile(path: string): Promise<EmbeddedFile | null> {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as Partial<EmbeddedFile>;
    return typeof parsed.api_key === "string" ? (parsed as EmbeddedFile) : null;
  } catch {
    return null;
  }
}

/** Holds `embedded.json.lock` (O_EXCL) while `fn` runs, so two adapters starting together make one workspace. */
async function withLock<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      const handle = await open(lockPath, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      // A lock left by a crashed adapter must not block forever.
      const age = await stat(lockPath).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await rm(lockPath, { force: true });
      else if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`timed out waiting for ${lockPath}`);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}

/** The local workspace key: reused when it still authenticates, made once (under the lock) otherwise. */
async function localKey(service: MemoryService & AdminService, configDir: string, dbPath: string): Promise<EmbeddedFile> {
  const path = join(configDir, FILE_NAME);
  const usable = async (file: EmbeddedFile | null) => (file !== null && (await service.authenticate(file.api_key)) !== null ? file : null);
  const existing = await usable(await readEmbeddedFile(path));
  if (existing) return existing;
  await mkdir(configDir, { recursive: true, mode: 0o700 });
  return withLock(`${path}.lock`, async () => {
    // Another adapter may have made it while this one waited for the lock.
    const made = await usable(await readEmbeddedFile(path));
    if (made) return made;
    const workspace = await service.createWorkspace({ name: "embedded" });
    const key = await service.createKey(workspace.id);
    const file: EmbeddedFile = { workspace_id: workspace.id, api_key: key.apiKey, db_path: dbPath };
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, path);
    return file;
  });
}

export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedService> {
  // The model runs on this thread unless BRAIN_EMBED_WORKER says otherwise: one host's calls need no second isolate
  // beside the adapter's (-20 MB, test/bench/README.md); `serve` keeps its worker.
  const env: NodeJS.ProcessEnv = { BRAIN_EMBED_WORKER: "0", ...(options.env ?? process.env) };
  const log = options.log ?? createJsonLog(process.stderr, "warn");
  const dataDir = options.dataDir ?? envPaths("brain", { suffix: "" }).data;
  // A store of its own (not `serve`'s brain.db), unless BRAIN_DB names one or an earlier version's embedded.json
  // recorded where its memories are: those stay where they are.
  const recorded = (await readEmbeddedFile(join(options.configDir, FILE_NAME)))?.db_path;
  const dbPath = env.BRAIN_DB || recorded || join(dataDir, EMBEDDED_DB);
  await mkdir(dirname(dbPath), { recursive: true, mode: 0o700 });

  // With the native model, WebAssembly runs only the vector kernels: baseline code serves them (-4 MB, a 10,000-memory
  // scan 1.54 -> 1.77 ms); the WebAssembly model needs the optimizing tier (test/bench/README.md).
  if (describeModelRuntime(env).runtime === "native") setFlagsFromString("--liftoff-only");
  const { openService } = await loadOptional(() => import("./open.js"));
  const service = await loadOptional(() => openService({ dbPath, env, log }));
  try {
    const { api_key: apiKey } = await localKey(service, options.configDir, dbPath);
    const { startServer } = await loadOptional(() => import("./server.js"));
    const server = await startServer({ service, host: "127.0.0.1", port: 0, log });
    log.info("embedded service listening", { url: server.url, store: dbPath });
    // the workspace's index and the model's first run, ready before the host's first recall (a failure is logged,
    // unless the adapter is already closing: then the store is gone on purpose)
    let closing = false;
    if (options.warmUp !== false) {
      void service.warmUp(1).catch((err: unknown) => {
        if (!closing) log.warn("loading the vector index failed", { error: (err as Error).message });
      });
    }
    return {
      baseURL: server.url,
      apiKey,
      close: () => {
        closing = true;
        return server.close();
      },
    };
  } catch (err) {
    await service.close().catch(() => undefined);
    throw err;
  }
}
