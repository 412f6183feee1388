// Stage 7: commit. A new memory is inserted; a merge updates the surviving memory (bumping its rev). Runs inside the
// workspace's write transaction, with the usage event, so an acknowledged store is billed exactly once.
import type { StoreResponse } from "../../contract/wire.js";
import type { WorkspaceTx } from "../store/types.js";
import { mergeMeta } from "./dedup.js";
import type { Draft } from "./draft.js";

export async function commit(draft: Draft, tx: WorkspaceTx, nowMs: number, newId: () => string): Promise<StoreResponse> {
  const temporal = draft.temporal!;
  const validUntil = temporal.valid_until === null ? null : Date.parse(temporal.valid_until);
  const dup = draft.duplicateOf;
  let memoryId: string;
  if (dup) {
    const keepNew = draft.keepsNewText === true;
    memoryId = dup.memory.id;
    await tx.updateMemory(
      memoryId,
      {
        meta: mergeMeta(dup.memory.meta, draft.meta),
        importance: draft.importance!,
        temporal_type: temporal.type,
        valid_until: validUntil,
        categories: draft.categories!,
        ...(keepNew ? { text: draft.text, vector: draft.vector!, embedder_id: draft.embedderId! } : {}),
      },
      nowMs,
    );
  } else {
    memoryId = newId();
    await tx.insertMemory({
      id: memoryId,
      workspace_id: draft.workspaceId,
      text: draft.text,
      meta: draft.meta,
      vector: draft.vector!,
      embedder_id: draft.embedderId!,
      importance: draft.importance!,
      temporal_type: temporal.type,
      valid_until: validUntil,
      categories: draft.categories!,
      created_at: nowMs,
    });
  }
  await tx.recordUsage("write", memoryId, nowMs);
  return {
    status: "ok",
    memory_id: memoryId,
    importance: draft.importance!,
    temporal,
    categories: draft.categories!,
    dedup: dup ? { action: "merged", existing_id: memoryId } : { action: "stored_new", existing_id: null },
  };
}
