// The memory service's core behind MemoryService and AdminService, put together from its three concerns over one
// store and the loaded models: the request path (memory-operations.ts), administration (administration.ts) and
// maintenance (maintenance.ts).
import { createAdministration } from "./administration.js";
import { batchReadBookkeeping } from "./bookkeeping.js";
import type { RandomBytes } from "./ids.js";
import { createMaintenance } from "./maintenance.js";
import { createMemoryOperations } from "./memory-operations.js";
import type { Embedder, Judge } from "./models/types.js";
import type { PiiVerdict } from "./pipeline/pii/types.js";
import { VectorIndexes, storeSource } from "./retrieval/vector-index.js";
import type { ServiceSettings } from "./settings.js";
import type { MemoryStore } from "./store/types.js";
import type { AdminService, MemoryService, ServiceLog } from "./types.js";
import { createWebhookRuntime } from "./webhooks/runtime.js";

export { DEFAULT_BILLING_CYCLE, DEFAULT_PLAN } from "./administration.js";
export { KEY_USE_RESOLUTION_MS } from "./memory-operations.js";

export interface CoreDeps {
  store: MemoryStore;
  embedder: Embedder;
  judge: Judge;
  screenPii: (text: string) => PiiVerdict;
  /** Read once from the environment by whoever starts the service (settings.ts). */
  settings: ServiceSettings;
  log: ServiceLog;
  now: () => Date;
  version: string;
  random?: RandomBytes;
}

export function createService(deps: CoreDeps): MemoryService & AdminService {
  const { store, embedder, log, now, settings } = deps;
  const nowMs = () => now().getTime();
  const indexes = new VectorIndexes(embedder.dimensions, embedder.id, settings.vectorCacheBytes);
  /** The workspace's vector index, caught up with the store (shared by concurrent readers). */
  const loadIndex = (workspaceId: number) => indexes.refreshShared(workspaceId, storeSource(store, workspaceId));
  const webhooks = createWebhookRuntime({ store, settings: settings.webhooks, log, now: nowMs, version: deps.version });
  const reads = batchReadBookkeeping(store, log);

  return {
    ...createMemoryOperations({ ...deps, indexes, loadIndex, reads, webhooks }),
    ...createAdministration({ store, nowMs, random: deps.random }),
    ...createMaintenance({ store, embedder, loadIndex, log, nowMs }),
    webhooks,
    async close() {
      await webhooks.stop();
      await reads.close().catch((error: Error) => log.warn("retrieval bookkeeping lost at close", { error: error.message }));
      // A snapshot being stored (about a second at 100,000) is finished, so the next start loads from it.
      await indexes.settled();
      await store.close();
    },
  };
}
