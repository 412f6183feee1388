// The memory service's domain core behind MemoryService and AdminService: authentication, the write pipeline,
// retrieval, health, status, rate limiting and administration over one MemoryStore and the loaded models.
import { RATE_LIMIT_BURST_DEFAULT, RATE_LIMIT_RPS_DEFAULT } from "../contract/limits.js";
import type { StatusResponse, WorkspaceStatus } from "../contract/wire.js";
import { measureHealth } from "./health/index.js";
import { hashApiKey, importedKeyProblem, keyPrefix, keyRecordOf, newApiKey, sameKeyHash, type RandomBytes } from "./ids.js";
import { batchReadBookkeeping } from "./bookkeeping.js";
import { RETIRED_EMBEDDER_PREFIX } from "./models/retired.js";
import type { Embedder, Judge } from "./models/types.js";
import { runWritePipeline } from "./pipeline/index.js";
import type { PiiVerdict } from "./pipeline/pii/types.js";
import { retrieveMemories } from "./retrieval/retrieve.js";
import { VectorIndexes } from "./retrieval/vector-index.js";
import type { MemoryStore, NewKey, NewWorkspace } from "./store/types.js";
import { isoSeconds } from "./time.js";
import type { AdminService, AuthContext, MemoryService, ServiceLog, Workspace } from "./types.js";
import { createWebhookRuntime } from "./webhooks/runtime.js";

export const DEFAULT_PLAN = "free";
export const DEFAULT_BILLING_CYCLE = "monthly";
/** How finely a key's last use is recorded: at most one write per key and process in this window. */
export const KEY_USE_RESOLUTION_MS = 60_000;
/** Memories re-embedded per write transaction. */
const REEMBED_BATCH = 64;

export interface CoreDeps {
  store: MemoryStore;
  embedder: Embedder;
  judge: Judge;
  screenPii: (text: string) => PiiVerdict;
  env: NodeJS.ProcessEnv;
  log: ServiceLog;
  now: () => Date;
  version: string;
  random?: RandomBytes;
}

function positiveNumber(raw: string | undefined, fallback: number): number {
  const n = raw === undefined || raw.trim() === "" ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export function createService(deps: CoreDeps): MemoryService & AdminService {
  const { store, embedder, judge, log, now } = deps;
  const indexes = new VectorIndexes(embedder.dimensions, embedder.id);
  const rps = positiveNumber(deps.env.BRAIN_RATE_LIMIT_RPS, RATE_LIMIT_RPS_DEFAULT);
  const burst = positiveNumber(deps.env.BRAIN_RATE_LIMIT_BURST, RATE_LIMIT_BURST_DEFAULT);
  const nowMs = () => now().getTime();
  const webhooks = createWebhookRuntime({ store, env: deps.env, log, now: nowMs, version: deps.version });
  const bookkeeping = batchReadBookkeeping(store, log);
  // Retrieval sees the store with its bookkeeping batched (bookkeeping.ts): reads are counted off the request path,
  // and records read back carry the counts not yet written. Every other method is the store's own.
  const retrievalStore = new Proxy(store, {
    get(target, name) {
      if (name === "recordRead") return bookkeeping.recordRead;
      if (name === "getMemories") {
        return async (workspaceId: number, ids: readonly number[]) => bookkeeping.withPendingReads(workspaceId, await target.getMemories(workspaceId, ids));
      }
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });

  const newWorkspace = (input: { name: string; plan?: string; billing_cycle?: string }, at: number): NewWorkspace => ({
    name: input.name,
    plan: input.plan ?? DEFAULT_PLAN,
    billing_cycle: input.billing_cycle ?? DEFAULT_BILLING_CYCLE,
    status: "active" as WorkspaceStatus,
    created_at: at,
  });
  /** Only the key's SHA-256 is stored. */
  const newKey = (apiKey: string, at: number): Omit<NewKey, "workspace_id"> => keyRecordOf(apiKey, at);

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

  /** The workspace's vector index, caught up with the store (shared by concurrent readers). */
  const loadIndex = (workspaceId: number) =>
    indexes.refreshShared(workspaceId, (since, limit) => store.vectorsSince(workspaceId, since, limit));

  async function requireWorkspace(id: number): Promise<Workspace> {
    const ws = await store.getWorkspace(id);
    if (!ws) throw new Error(`workspace ${id} does not exist`);
    return ws;
  }

  /** SQLite's and PostgreSQL's unique-constraint failures. */
  const isUniqueViolation = (err: unknown) => {
    const code = (err as { code?: unknown } | null)?.code;
    return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505";
  };

  /** A key for the workspace; one key opens one workspace, so a key some workspace already has is refused by name. */
  async function registerKey(workspaceId: number, apiKey: string): Promise<{ keyId: number; prefix: string }> {
    await requireWorkspace(workspaceId);
    const key = newKey(apiKey, nowMs());
    const holder = await store.findKeyByHash(key.key_hash);
    if (holder) {
      throw new Error(
        holder.workspace.id === workspaceId
          ? `this key is already key ${holder.keyId} of workspace ${workspaceId}; nothing was imported`
          : `this key already opens workspace ${holder.workspace.id} (key ${holder.keyId}), and a key opens one workspace only: ` +
            `import a different key, or revoke it there first and then import a new one; nothing was imported`,
      );
    }
    try {
      return { keyId: await store.insertKey({ ...key, workspace_id: workspaceId }), prefix: key.prefix };
    } catch (err) {
      // The hash is unique across live and revoked keys: a revoked key is never live again.
      if (!isUniqueViolation(err)) throw err;
      throw new Error("this key was revoked (or is being imported by someone else right now); import a new key; nothing was imported");
    }
  }

  const service: MemoryService & AdminService = {
    async authenticate(apiKey) {
      if (!apiKey) return null;
      const keyHash = hashApiKey(apiKey);
      // The key itself is never compared: its SHA-256 finds the row, and that match is confirmed in constant time.
      const found = await store.findKeyByHash(keyHash);
      if (!found || !sameKeyHash(found.keyHash, keyHash)) return null;
      noteKeyUse(found.keyId);
      // The prefix is cut from the key presented, so a row written before prefixes were bounded never shows more.
      return { workspace: found.workspace, keyId: found.keyId, keyPrefix: keyPrefix(apiKey) };
    },

    store(auth: AuthContext, input, opts) {
      return runWritePipeline(
        {
          store,
          indexes,
          embedder,
          judge,
          screenPii: deps.screenPii,
          now,
        },
        auth.workspace.id,
        input,
        opts.idempotencyKey,
      );
    },

    retrieve(auth, input) {
      return retrieveMemories({ store: retrievalStore, indexes, embedder, now }, auth.workspace.id, input);
    },

    async health(auth) {
      await bookkeeping.flush(); // health counts memories never retrieved: every retrieval so far must be in
      const report = await measureHealth({ store, embedder, loadIndex }, auth.workspace.id, nowMs());
      webhooks.qualityMeasured(auth.workspace.id, report.quality_score);
      return report;
    },

    async status(auth): Promise<StatusResponse> {
      const workspace = (await store.getWorkspace(auth.workspace.id)) ?? auth.workspace;
      const [memoryCount, healthy] = await Promise.all([store.countMemories(workspace.id), service.healthy()]);
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
      return store.takeRateToken(keyId, rps, burst, nowMs());
    },

    async warmUp(workspaces, opts = {}) {
      // the model's first run in a process is several times slower than the next (kernels compile on first use)
      await embedder.embed(["warm up"], "query");
      // After an upgrade, vectors of a model this version no longer ships are re-embedded before the indexes load, so
      // none drops out of recall for long. Vectors of a model it can still run (another BRAIN_EMBEDDER, a provider)
      // are left to `admin reembed`: processes configured apart must not re-embed each other's memories back and forth.
      const retired = (await store.memoriesNotEmbeddedBy(embedder.id, 1, undefined, RETIRED_EMBEDDER_PREFIX)).length > 0;
      if (retired && opts.reembed !== false) {
        log.warn("re-embedding, in the background, the memories embedded by an earlier default model (they are not recalled until then)", {
          embedder: embedder.id,
        });
        const count = await service.reembed({ fromPrefix: RETIRED_EMBEDDER_PREFIX });
        log.warn("re-embedding done", { reembedded: count, embedder: embedder.id });
      }
      if ((await store.memoriesNotEmbeddedBy(embedder.id, 1)).length > 0) {
        log.warn("some memories were embedded by another model and cannot be recalled until re-embedded: run `brain-mcp admin reembed`", {
          embedder: embedder.id,
        });
      }
      for (const workspaceId of await store.recentWorkspaces(workspaces)) {
        const started = Date.now();
        const index = await loadIndex(workspaceId);
        log.info("vector index loaded", { workspace: workspaceId, memories: index.size, ms: Date.now() - started });
      }
    },

    async healthy() {
      return store.ping();
    },

    webhooks,

    async close() {
      await webhooks.stop();
      await bookkeeping.close().catch((error: Error) => log.warn("retrieval bookkeeping lost at close", { error: error.message }));
      await store.close();
    },

    async createWorkspace(input) {
      return store.insertWorkspace(newWorkspace(input, nowMs()));
    },

    async createFirstWorkspace(name) {
      if ((await store.countWorkspaces()) > 0) return null; // every start but the first, without taking a lock
      const at = nowMs();
      const apiKey = newApiKey(deps.random);
      const key = newKey(apiKey, at);
      const made = await store.insertFirstWorkspace(newWorkspace({ name }, at), key);
      return made && { workspace: made.workspace, keyId: made.keyId, apiKey, prefix: key.prefix };
    },

    async setWorkspaceStatus(workspaceId, status) {
      const ws = await store.setWorkspaceStatus(workspaceId, status);
      if (!ws) throw new Error(`workspace ${workspaceId} does not exist`);
      return ws;
    },

    countWorkspaces() {
      return store.countWorkspaces();
    },

    listWorkspaces() {
      return store.listWorkspaces();
    },

    async createKey(workspaceId) {
      const apiKey = newApiKey(deps.random);
      const { keyId, prefix } = await registerKey(workspaceId, apiKey);
      return { keyId, apiKey, prefix };
    },

    async importKey(workspaceId, apiKey) {
      const problem = importedKeyProblem(apiKey);
      if (problem) throw new Error(`${problem}; nothing was imported`);
      return registerKey(workspaceId, apiKey);
    },

    revokeKey(keyId) {
      return store.revokeKey(keyId, nowMs());
    },

    async keyState(keyId) {
      const key = await store.getKey(keyId);
      return key === null ? null : key.revokedAt === null ? "live" : "revoked";
    },

    async reembed(opts = {}) {
      let done = 0;
      for (;;) {
        const batch = await store.memoriesNotEmbeddedBy(embedder.id, REEMBED_BATCH, opts.workspaceId, opts.fromPrefix);
        if (batch.length === 0) break;
        const vectors = await embedder.embed(batch.map((m) => m.text), "document");
        const byWorkspace = new Map<number, number[]>();
        batch.forEach((m, i) => byWorkspace.set(m.workspace_id, [...(byWorkspace.get(m.workspace_id) ?? []), i]));
        for (const [workspaceId, positions] of byWorkspace) {
          await store.writeInWorkspace(workspaceId, async (tx) => {
            for (const i of positions) {
              // A store may have merged into this memory meanwhile (new text, new vector): that one stays.
              const current = await tx.getMemory(batch[i]!.id);
              if (current?.embedder_id === embedder.id || current?.text !== batch[i]!.text) continue;
              await tx.updateMemory(batch[i]!.id, { vector: vectors[i]!, embedder_id: embedder.id }, nowMs());
            }
          });
        }
        done += batch.length;
        opts.onProgress?.(done);
        log.info("re-embedded memories", { count: done, embedder: embedder.id });
      }
      return done;
    },
  };

  return service;
}
