// Stage 3: deduplication against the workspace's existing memories (runs under the workspace's write lock).
// The most similar memory with cosine >= the embedder's dedup threshold that states the same fact absorbs the
// draft; the richer text survives. One cosine cannot tell "prod db" from "staging db", so the embedder's
// distinctFacts check (other number, name, environment, negation) vetoes a merge the cosine alone would make.
import { META_MAX_BYTES } from "../../contract/limits.js";
import type { MemoryRecord } from "../store/types.js";
import type { Draft } from "./draft.js";

export interface NearestLookup {
  /** Existing memories with cosine >= threshold, most similar first (a few at most). */
  candidates(vector: Float32Array, threshold: number): Array<{ id: number; cosine: number }>;
  load(id: number): Promise<MemoryRecord | null>;
}

/** How many near memories are checked before a draft is stored as new. */
export const DEDUP_CANDIDATES = 5;

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

export async function dedup(
  draft: Draft,
  lookup: NearestLookup,
  threshold: number,
  distinctFacts?: (a: string, b: string) => boolean,
): Promise<Draft> {
  if (!draft.vector) return { ...draft, duplicateOf: null };
  for (const hit of lookup.candidates(draft.vector, threshold)) {
    const memory = await lookup.load(hit.id);
    if (!memory || distinctFacts?.(draft.text, memory.text)) continue;
    return {
      ...draft,
      duplicateOf: { memory, cosine: hit.cosine },
      keepsNewText: newTextIsRicher(draft.text, memory.text),
    };
  }
  return { ...draft, duplicateOf: null };
}
