// The draft memory that flows through the write pipeline. Each stage is a function from a draft to a draft; a stage
// rejects by throwing ServiceError (the HTTP edge maps it), so a rejected draft never reaches a later stage.
import type { Temporal } from "../../contract/wire.js";
import type { Judgement } from "../models/types.js";
import type { MemoryRecord } from "../store/types.js";

export interface Draft {
  workspaceId: number;
  /** Trimmed text, within limits (validated at the edge). */
  text: string;
  meta: Record<string, unknown>;
  /** Set by embed. */
  vector?: Float32Array;
  embedderId?: string;
  /** The judge's raw answer for `text` (validated by the importance, temporal and categories stages). */
  judgement?: Judgement;
  /** Set by dedup: the existing memory this draft merges into, their cosine, and the meta the merge writes. */
  duplicateOf?: { memory: MemoryRecord; cosine: number; meta: Record<string, unknown> } | null;
  /** Set by dedup on a merge: true when the draft's text is the richer one and replaces the existing text. */
  keepsNewText?: boolean;
  importance?: number;
  temporal?: Temporal;
  categories?: string[];
}

/** The memory that survives a merge keeps the judgement of the text it keeps. */
export function survivingIsNew(draft: Draft): boolean {
  return !draft.duplicateOf || draft.keepsNewText === true;
}
