// What both stores share about stored vector snapshots (../retrieval/vector-snapshot.ts holds their layout).
import { randomInt } from "node:crypto";

/**
 * A new snapshot's generation: its chunks are written under it, one transaction each, and only a complete one is named
 * by the workspace's row; drawn at random so two processes storing a snapshot at once never mix their chunks.
 */
export function newSnapshotGeneration(): number {
  return 1 + randomInt(2 ** 48 - 2);
}
