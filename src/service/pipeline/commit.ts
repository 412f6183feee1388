// Stage 7: commit. A new memory is inserted (the store assigns its integer id); a merge updates the surviving memory
// (bumping its rev). Runs inside the workspace's write transaction, with the usage event, so an acknowledged store is
// billed exactly once.
import type { StoreResponse } from "../../contract/wire.js";
import type { WorkspaceTx } from "../store/types.js";
import type { ReadyToCommit } from "./draft.js";

export async function commit(draft: ReadyToCommit, tx: WorkspaceTx, nowMs: number): Promise<StoreResponse> {
  const { temporal, importance, categories } = draft;
  const validUntil = temporal.valid_until === null ? null : Date.parse(temporal.valid_until);
  const dup = draft.duplicateOf;
  let memoryId: number;
  if (dup) {
    memoryId = dup.memory.id;
    await tx.updateMemory(
      memoryId,
      {
        meta: dup.meta,
        importance,
        temporal_type: temporal.type,
        valid_until: validUntil,
        categories,
        ...(dup.keepsNewText ? { text: draft.text, vector: draft.vector, embedder_id: draft.embedderId } : {}),
      },
      nowMs,
    );
  } else {
    const inserted = await tx.insertMemory({
      workspace_id: draft.workspaceId,
      text: draft.text,
      meta: draft.meta,
      vector: draft.vector,
      embedder_id: draft.embedderId,
      importance,
      temporal_type: temporal.type,
      valid_until: validUntil,
      categories,
      created_at: nowMs,
    });
    memoryId = inserted.id;
  }
  await tx.recordUsage("write", memoryId, nowMs);
  // The specification's fields in its order.
  return {
    status: "ok",
    memory_id: memoryId,
    workspace_id: draft.workspaceId,
    dedup: dup ? { action: "merged", existing_id: memoryId } : { action: "stored_new", existing_id: null },
    importance,
    categories,
    temporal,
  };
}
