// openService: opens the store, loads the models once, and returns the service core (MemoryService & AdminService).
import { loadModels, type Models } from "./models/index.js";
import type { Embedder, Judge } from "./models/types.js";
import { offlineEmbedderKind } from "./models/embed/index.js";
import { describeModelRuntime } from "./models/embed/runtime.js";
import { screenPii } from "./pipeline/pii/index.js";
import { factConflict } from "./pipeline/same-fact.js";
import { createService } from "./service.js";
import { openStore } from "./store/open-store.js";
import type { AdminService, MemoryService, ServiceLog, ServiceOptions } from "./types.js";
import type { RandomBytes } from "./ids.js";
import { serviceSettings, type ServiceSettings } from "./settings.js";

export interface OpenServiceOptions extends ServiceOptions {
  /** Models already loaded (tests; a process that serves several stores); otherwise loadModels(env). */
  models?: { embedder: Embedder; judge: Judge };
  /** Randomness for ids and keys (tests). */
  random?: RandomBytes;
  /** The settings, read from the environment by the caller; else from `env` here. */
  settings?: ServiceSettings;
}

/** The workspace made on a store's first start, and its key (the plaintext exists only here). */
export type FirstWorkspace = NonNullable<Awaited<ReturnType<AdminService["createFirstWorkspace"]>>>;

const SILENT_LOG: ServiceLog = { debug() {}, info() {}, warn() {}, error() {} };

/** The package version: src/version.ts when the build has one, else package.json's version. */
async function packageVersion(): Promise<string> {
  try {
    const modulePath = "../version.js";
    const mod = (await import(modulePath)) as { VERSION?: string; version?: string };
    return mod.VERSION ?? mod.version ?? "0.3.0";
  } catch {
    return "0.3.0";
  }
}

/**
 * openService, then, when the store holds no workspace, a workspace named `name` with a new key (the first start of
 * `serve`). Of several processes starting together on an empty store exactly one makes it; the others get null.
 */
export async function openServiceWithFirstWorkspace(
  options: OpenServiceOptions,
  name: string,
): Promise<{ service: MemoryService & AdminService; firstWorkspace: FirstWorkspace | null }> {
  const service = await openService(options);
  try {
    return { service, firstWorkspace: await service.createFirstWorkspace(name) };
  } catch (err) {
    await service.close().catch(() => undefined);
    throw err;
  }
}

/** A PII screen and a same-fact comparison on fixed texts, their answers thrown away (V8 compiles expressions on first use). */
function warmUpScreens(): void {
  const texts = [
    "Call Maria on +44 20 7946 0958 before 5pm; her card ends 4242 and the staging password was rotated on Friday.",
    "Maria called on Friday before 5pm about the staging server, which was rotated to a new region.",
  ];
  for (const text of texts) screenPii(text);
  factConflict(texts[0]!, texts[1]!);
}

export async function openService(options: OpenServiceOptions): Promise<MemoryService & AdminService> {
  const env = options.env ?? process.env;
  const log = options.log ?? SILENT_LOG;
  const store = await openStore({ dbPath: options.dbPath, databaseUrl: options.databaseUrl }, { log });
  try {
    const loading = options.models ? null : loadModels(env);
    // While the model loads in its worker: the screens' expressions compiled on a text of their own, not on the
    // first memory stored (~15 ms of it; the judge's are compiled by its load).
    warmUpScreens();
    const models = options.models ?? (await loading!);
    // which runtime runs the sentence model (native, or the WebAssembly fallback and why): said once, at start
    if (!options.models && offlineEmbedderKind(env) !== "lexical") log.info("model runtime", { ...describeModelRuntime(env) });
    const service = createService({
      store,
      embedder: models.embedder,
      judge: models.judge,
      screenPii,
      settings: options.settings ?? serviceSettings(env),
      log,
      now: options.now ?? (() => new Date()),
      version: await packageVersion(),
      random: options.random,
    });
    // Models loaded here are this service's to end (the embed worker); models passed in belong to the caller.
    if (!options.models) {
      const closeStore = service.close.bind(service);
      service.close = async () => {
        try {
          await closeStore();
        } finally {
          await (models as Models).close?.();
        }
      };
    }
    return service;
  } catch (err) {
    await store.close();
    throw err;
  }
}
