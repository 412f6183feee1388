// A memory to insert through a store's write transaction, with only what a test cares about given.
import type { NewMemory } from "../../src/service/store/types.js";

export function newMemory(workspaceId: number, text: string, createdAt = Date.UTC(2025, 0, 1)): NewMemory {
  return {
    workspace_id: workspaceId,
    text,
    meta: {},
    vector: new Float32Array([1, 0, 0]),
    embedder_id: "emb-a",
    importance: 5,
    temporal_type: "persistent",
    valid_until: null,
    categories: [],
    created_at: createdAt,
  };
}
