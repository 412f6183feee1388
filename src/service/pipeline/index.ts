// The write pipeline, in DESIGN.md's order: screen → embed → dedup → importance → temporal → categories → commit.
// The model work (embedding, judging) happens before the workspace's write lock; dedup and commit happen inside one
// write transaction, so two stores of the same fact at the same moment yield one memory.
import { IDEMPOTENCY_TTL_MS } from "../../contract/limits.js";
import type { StoreResponse } from "../../contract/wire.js";
import type { Embedder, Judge } from "../models/types.js";
import type { MemoryRecord, MemoryStore } from "../store/types.js";
import type { StoreInput } from "../types.js";
import { storeSource, type VectorIndexes } from "../retrieval/vector-index.js";
import type { PiiVerdict } from "./pii/types.js";
import { categories } from "./categories.js";
import { commit } from "./commit.js";
import { DEDUP_CANDIDATES, dedup } from "./dedup.js";
import { embed } from "./embed.js";
import { judgeDraft } from "./judge.js";
import { replayOf, requestHash } from "./idempotency.js";
import { importance } from "./importance.js";
import { screen } from "./screen.js";
import { temporal } from "./temporal.js";

export interface WriteDeps {
  store: MemoryStore;
  indexes: VectorIndexes;
  embedder: Embedder;
  judge: Judge;
  screenPii: (text: string) => PiiVerdict;
  now: () => Date;
}

export async function runWritePipeline(
  deps: WriteDeps,
  workspaceId: number,
  input: StoreInput,
  idempotencyKey: string | undefined,
): Promise<StoreResponse> {
  const { store, indexes, embedder } = deps;
  const hash = idempotencyKey ? requestHash(input) : "";
  const startMs = deps.now().getTime();
  // A replay is answered without the lock; its read runs beside the model's work (a round trip off the path on
  // PostgreSQL), and is awaited first: a replay or a reused key answers before anything the draft may throw.
  const replayed = idempotencyKey
    ? store.getIdempotency(workspaceId, idempotencyKey, startMs - IDEMPOTENCY_TTL_MS).then((record) => replayOf(record, hash))
    : null;
  const drafted = (async () => {
    const screened = screen({ workspaceId, text: input.text, meta: input.meta }, deps.screenPii);
    return judgeDraft(await embed(screened, embedder), deps.judge, deps.now());
  })();
  if (replayed) {
    drafted.catch(() => {}); // reported below when no replay answers first
    const replay = await replayed;
    if (replay) return replay;
  }
  const draft = await drafted;

  // A workspace not yet in this process's cache loads outside the lock (from its snapshot, in bulk): the lock then
  // waits only for the rows written since.
  if (!indexes.has(workspaceId)) await indexes.refreshShared(workspaceId, storeSource(store, workspaceId));
  return store.writeInWorkspace(
    workspaceId,
    async (tx) => {
      const nowMs = deps.now().getTime();
      if (idempotencyKey) {
        // Authoritative check: a concurrent request with the same key may have committed meanwhile.
        const replay = replayOf(await tx.getIdempotency(idempotencyKey, nowMs - IDEMPOTENCY_TTL_MS), hash);
        if (replay) return replay;
      }
      // Inside the lock: see every memory committed so far, by any process.
      const index = await indexes.refresh(workspaceId, tx);
      // The index re-scores from the store (async); dedup asks at the embedder's threshold, so its answer is ready. The
      // candidates' records come with their float rows (one read, not one more per candidate dedup looks at).
      const records = new Map<number, MemoryRecord>();
      const floatsAndRecords = async (ids: readonly number[]) =>
        (await tx.memoriesWithVectors(ids)).map(({ record, vector }) => (records.set(record.id, record), vector));
      const near = draft.vector ? await index.search(draft.vector, embedder.dedupThreshold, DEDUP_CANDIDATES, floatsAndRecords) : [];
      const lookup = {
        candidates: (_v: Float32Array, threshold: number) => near.filter((hit) => hit.cosine >= threshold),
        load: async (id: number) => records.get(id) ?? tx.getMemory(id),
        embedSentences: (sentences: string[]) => embedder.embed(sentences, "document"),
      };
      const deduplicated = await dedup(draft, lookup, embedder.dedupThreshold);
      const response = await commit(categories(temporal(importance(deduplicated))), tx, nowMs);
      if (idempotencyKey) {
        await tx.putIdempotency(
          { workspace_id: workspaceId, key: idempotencyKey, request_hash: hash, response, created_at: nowMs },
          nowMs - IDEMPOTENCY_TTL_MS,
        );
      }
      return response;
    },
    { idempotencyKey, vectorsSince: indexes.refreshAhead(workspaceId) },
  );
}
