// The request path: the four operations of the public API over one store and the loaded models, with the
// authentication and rate limiting in front of them.
import type { StatusResponse } from "../contract/wire.js";
import type { ReadBookkeeping } from "./bookkeeping.js";
import { measureHealth } from "./health/index.js";
import { hashApiKey, keyPrefix, sameKeyHash } from "./ids.js";
import type { Embedder, Judge } from "./models/types.js";
import { runWritePipeline } from "./pipeline/index.js";
import type { PiiVerdict } from "./pipeline/pii/types.js";
import { retrieveMemories } from "./retrieval/retrieve.js";
import type { VectorIndexes, WorkspaceIndex } from "./retrieval/vector-index.js";
import type { ServiceSettings } from "./settings.js";
import type { MemoryStore } from "./store/types.js";
import { isoSeconds } from "./time.js";
import type { AuthContext, MemoryService, ServiceLog, Workspace } from "./types.js";
import type { WebhookRuntime } from "./webhooks/runtime.js";

/** How finely a key's last use is recorded: at most one write per key and process in this window. */
export const KEY_USE_RESOLUTION_MS = 60_000;

export interface MemoryOperationsDeps {
  store: MemoryStore;
  indexes: VectorIndexes;
  loadIndex: (workspaceId: number) => Promise<WorkspaceIndex>;
  embedder: Embedder;
  judge: Judge;
  screenPii: (text: string) => PiiVerdict;
  reads: ReadBookkeeping;
  webhooks: WebhookRuntime;
  settings: ServiceSettings;
  log: ServiceLog;
  now: () => Date;
  version: string;
}

export type MemoryOperations = Pick<
  MemoryService,
  "authenticate" | "authenticateTakingToken" | "store" | "retrieve" | "health" | "status" | "consumeRateLimit" | "healthy"
>;

export function createMemoryOperations(deps: MemoryOperationsDeps): MemoryOperations {
  const { store, indexes, embedder, reads, webhooks, log, now } = deps;
  const nowMs = () => now().getTime();

  // last_used_at is written at most once per KEY_USE_RESOLUTION_MS per key and process, never on the request's path.
  const keyUseNoted = new Map<number, number>();
  function noteKeyUse(keyId: number): void {
    const at = nowMs();
    if ((keyUseNoted.get(keyId) ?? -Infinity) > at - KEY_USE_RESOLUTION_MS) return;
    keyUseNoted.set(keyId, at);
    store.markKeyUsed(keyId, at, at - KEY_USE_RESOLUTION_MS).catch((err: Error) => {
      log.warn("could not record a key's last use", { key_id: keyId, error: err.message });
    });
  }

  function authOf(found: { keyId: number; workspace: Workspace }, apiKey: string): AuthContext {
    noteKeyUse(found.keyId);
    // The prefix is cut from the key presented, so a row written before prefixes were bounded never shows more.
    return { workspace: found.workspace, keyId: found.keyId, keyPrefix: keyPrefix(apiKey) };
  }

  const operations: MemoryOperations = {
    async authenticate(apiKey) {
      if (!apiKey) return null;
      const keyHash = hashApiKey(apiKey);
      // The key itself is never compared: its SHA-256 finds the row, and that match is confirmed in constant time.
      const found = await store.findKeyByHash(keyHash);
      return found && sameKeyHash(found.keyHash, keyHash) ? authOf(found, apiKey) : null;
    },

    async authenticateTakingToken(apiKey) {
      if (!apiKey) return null;
      const keyHash = hashApiKey(apiKey);
      const { rps, burst } = deps.settings.rateLimit;
      const found = await store.findKeyTakingToken(keyHash, rps, burst, nowMs());
      return found && sameKeyHash(found.keyHash, keyHash) ? { auth: authOf(found, apiKey), rate: found.rate } : null;
    },

    store(auth, input, opts) {
      return runWritePipeline(
        { store, indexes, embedder, judge: deps.judge, screenPii: deps.screenPii, now },
        auth.workspace.id,
        input,
        opts.idempotencyKey,
      );
    },

    retrieve(auth, input) {
      return retrieveMemories({ store, reads, indexes, embedder, now }, auth.workspace.id, input);
    },

    async health(auth) {
      await reads.flush(); // health counts memories never retrieved: every retrieval so far must be in
      const report = await measureHealth({ store, embedder, loadIndex: deps.loadIndex }, auth.workspace.id, nowMs());
      webhooks.qualityMeasured(auth.workspace.id, report.quality_score);
      return report;
    },

    async status(auth): Promise<StatusResponse> {
      const workspace = (await store.getWorkspace(auth.workspace.id)) ?? auth.workspace;
      const [memoryCount, healthy] = await Promise.all([store.countMemories(workspace.id), operations.healthy()]);
      // The specification's nine fields in its order, then the documented extras.
      return {
        workspace_id: workspace.id,
        workspace_name: workspace.name,
        workspace_status: workspace.status,
        plan_name: workspace.plan,
        billing_cycle: workspace.billing_cycle,
        api_key_id: auth.keyId,
        api_key_prefix: auth.keyPrefix,
        healthy,
        server_time: isoSeconds(nowMs()),
        memory_count: memoryCount,
        version: deps.version,
      };
    },

    consumeRateLimit(keyId) {
      return store.takeRateToken(keyId, deps.settings.rateLimit.rps, deps.settings.rateLimit.burst, nowMs());
    },

    async healthy() {
      return store.ping();
    },
  };
  return operations;
}
