// The draft memory that flows through the write pipeline. Each stage is a function from a draft to a draft; a stage
// rejects by throwing ServiceError (the HTTP edge maps it), so a rejected draft never reaches a later stage.
// Each stage's output type carries the fields it filled, so a stage placed before the one it depends on does not
// compile: embed → judge → dedup → importance, temporal, categories (in any order among themselves) → commit.
import type { Temporal } from "../../contract/wire.js";
import type { Judgement } from "../models/types.js";
import type { MemoryRecord } from "../store/types.js";

/** What the edge validated: trimmed text within limits, and meta. */
export interface Draft {
  workspaceId: number;
  text: string;
  meta: Record<string, unknown>;
}

export interface Embedded extends Draft {
  vector: Float32Array;
  embedderId: string;
}

export interface Judged extends Embedded {
  /** The judge's raw answer for `text` (validated by the importance, temporal and categories stages). */
  judgement: Judgement;
}

/** An existing memory that absorbs the draft. */
export interface Merge {
  memory: MemoryRecord;
  cosine: number;
  /** The meta the merge writes. */
  meta: Record<string, unknown>;
  /** True when the draft's text is the richer one and replaces the existing text. */
  keepsNewText: boolean;
}

export interface Deduplicated extends Judged {
  duplicateOf: Merge | null;
}

/** Everything commit writes. */
export interface CommitFields {
  importance: number;
  temporal: Temporal;
  categories: string[];
}

export type ReadyToCommit = Deduplicated & CommitFields;

/** The memory that survives a merge keeps the judgement of the text it keeps. */
export function survivingIsNew(draft: Deduplicated): boolean {
  return !draft.duplicateOf || draft.duplicateOf.keepsNewText;
}
