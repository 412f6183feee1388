// Stage 3: deduplication against the workspace's existing memories (runs under the workspace's write lock).
// The nearest memory with cosine >= the embedder's dedup threshold absorbs the draft; the richer text survives.
import { META_MAX_BYTES } from "../../contract/limits.js";
import type { MemoryRecord } from "../store/types.js";
import type { Draft } from "./draft.js";

export interface NearestLookup {
  /** The nearest existing memory's id and cosine, or null when the workspace is empty. */
  nearest(vector: Float32Array): { id: string; cosine: number } | null;
  load(id: string): Promise<MemoryRecord | null>;
}

/** Distinct word tokens: a text that says more distinct things is richer. */
export function distinctTokens(text: string): number {
  return new Set(text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).size;
}

/**
 * Richer = more distinct word tokens; on a tie, the longer text after collapsing whitespace; on a full tie the new
 * text (the latest wording of the same fact).
 */
export function newTextIsRicher(newText: string, existingText: string): boolean {
  const a = distinctTokens(newText);
  const b = distinctTokens(existingText);
  if (a !== b) return a > b;
  const la = newText.replace(/\s+/g, " ").length;
  const lb = existingText.replace(/\s+/g, " ").length;
  return la >= lb;
}

/** Existing keys, overwritten by the new ones; if the union would exceed the meta limit, the new meta alone. */
export function mergeMeta(existing: Record<string, unknown>, incoming: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...existing, ...incoming };
  return Buffer.byteLength(JSON.stringify(merged), "utf8") <= META_MAX_BYTES ? merged : incoming;
}

export async function dedup(draft: Draft, lookup: NearestLookup, threshold: number): Promise<Draft> {
  const hit = draft.vector ? lookup.nearest(draft.vector) : null;
  if (!hit || hit.cosine < threshold) return { ...draft, duplicateOf: null };
  const memory = await lookup.load(hit.id);
  if (!memory) return { ...draft, duplicateOf: null };
  return {
    ...draft,
    duplicateOf: { memory, cosine: hit.cosine },
    keepsNewText: newTextIsRicher(draft.text, memory.text),
  };
}
