// Maintenance: warming a process up at start, and bringing memories embedded by another model to the current one
// (re-embedding them, or rewriting vectors that already hold this model's own).
import { RETIRED_EMBEDDER_PREFIX } from "./models/retired.js";
import type { Embedder } from "./models/types.js";
import { comparableVector, derivedPrefix } from "./retrieval/derived-vectors.js";
import type { WorkspaceIndex } from "./retrieval/vector-index.js";
import type { MemoryStore } from "./store/types.js";
import type { AdminService, MemoryService, ServiceLog } from "./types.js";

/** Memories re-embedded per write transaction. */
const REEMBED_BATCH = 64;
/** Vectors rewritten per write transaction when they derive from the model's own (no model runs). */
const DERIVE_BATCH = 500;

export interface MaintenanceDeps {
  store: MemoryStore;
  embedder: Embedder;
  loadIndex: (workspaceId: number) => Promise<WorkspaceIndex>;
  log: ServiceLog;
  nowMs: () => number;
}

export type Maintenance = Pick<MemoryService, "warmUp"> & Pick<AdminService, "reembed">;

export function createMaintenance({ store, embedder, loadIndex, log, nowMs }: MaintenanceDeps): Maintenance {
  /** Rewrites every vector that derives from this model's own (./retrieval/derived-vectors.ts); returns how many. */
  async function rewriteDerived(): Promise<number> {
    let done = 0;
    for (;;) {
      const batch = await store.memoriesNotEmbeddedBy(embedder.id, DERIVE_BATCH, undefined, derivedPrefix(embedder.id));
      if (batch.length === 0) return done;
      const byWorkspace = new Map<number, number[]>();
      for (const m of batch) byWorkspace.set(m.workspace_id, [...(byWorkspace.get(m.workspace_id) ?? []), m.id]);
      let rewritten = 0;
      for (const [workspaceId, ids] of byWorkspace) {
        await store.writeInWorkspace(workspaceId, async (tx) => {
          // Read inside the lock: a merge meanwhile gave a memory a vector of this model, which stays.
          for (const row of await tx.vectorsOf(ids)) {
            const vector = row.embedder_id === embedder.id ? null : comparableVector(row, embedder.id, embedder.dimensions);
            if (!vector) continue;
            await tx.updateMemory(row.id, { vector, embedder_id: embedder.id }, nowMs());
            rewritten++;
          }
        });
      }
      // A vector with no usable block (all zero) is left to `admin reembed`, which runs the model.
      if (rewritten === 0) return done;
      done += rewritten;
      log.info("rewrote vectors", { count: done, embedder: embedder.id });
    }
  }

  const maintenance: Maintenance = {
    async warmUp(workspaces, opts = {}) {
      // The model's first run in a process is several times slower than the next (kernels compile on first use); it
      // runs in the model's worker while this thread loads the indexes, so a first request waits for the longer of the two.
      const modelWarmed = embedder.embed(["warm up"], "query").then(
        () => null,
        (error: unknown) => error,
      );
      // After an upgrade, vectors of a model this version no longer ships are re-embedded before the indexes load, so
      // none drops out of recall for long. Vectors of a model it can still run (another BRAIN_EMBEDDER, a provider)
      // are left to `admin reembed`: processes configured apart must not re-embed each other's memories back and forth.
      const retired = (await store.memoriesNotEmbeddedBy(embedder.id, 1, undefined, RETIRED_EMBEDDER_PREFIX)).length > 0;
      if (retired && opts.reembed !== false) {
        log.warn("re-embedding, in the background, the memories embedded by an earlier default model (they are not recalled until then)", {
          embedder: embedder.id,
        });
        const count = await maintenance.reembed({ fromPrefix: RETIRED_EMBEDDER_PREFIX });
        log.warn("re-embedding done", { reembedded: count, embedder: embedder.id });
      }
      // 0.3.0's hybrid vectors hold this model's own: rewritten in place, no model run; recalled meanwhile all the same.
      if (opts.reembed !== false && (await store.memoriesNotEmbeddedBy(embedder.id, 1, undefined, derivedPrefix(embedder.id))).length > 0) {
        log.warn(
          "rewriting, in the background, the vectors of the previous default (the model's block of each is kept; recall is unaffected)",
          {
            embedder: embedder.id,
          },
        );
        log.warn("rewriting done", { rewritten: await rewriteDerived(), embedder: embedder.id });
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
      const failed = await modelWarmed;
      if (failed) throw failed;
    },

    async reembed(opts = {}) {
      let done = 0;
      for (;;) {
        const batch = await store.memoriesNotEmbeddedBy(embedder.id, REEMBED_BATCH, opts.workspaceId, opts.fromPrefix);
        if (batch.length === 0) break;
        const vectors = await embedder.embed(
          batch.map((m) => m.text),
          "document",
        );
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
  return maintenance;
}
