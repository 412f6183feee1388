// Stage 3: deduplication against the workspace's existing memories (runs under the workspace's write lock).
// A near memory (cosine >= the embedder's dedup threshold) absorbs the draft only when the two state the same fact
// about the same subject (same-fact.ts: speaker, numbers, names, dates, negation, words of time, order and state) and
// the text that survives states every term and every sentence of the one it replaces; otherwise the draft is stored
// as a memory of its own. A merge that loses a fact is data loss; a merge not made only leaves a near-copy.
import { META_MAX_BYTES, META_MAX_KEYS } from "../../contract/limits.js";
import type { MemoryRecord } from "../store/types.js";
import type { Deduplicated, Judged } from "./draft.js";
import { type SentenceCosines, cosinesByEmbedding, factConflict, keepsEveryFact, survivorOf } from "./same-fact.js";

export interface NearestLookup {
  /** Existing memories with cosine >= threshold, most similar first (a few at most). */
  candidates(vector: Float32Array, threshold: number): Array<{ id: number; cosine: number }>;
  load(id: number): Promise<MemoryRecord | null>;
  /** Document vectors of a few sentences: asked only for a candidate that passed every rule. */
  embedSentences(sentences: string[]): Promise<Float32Array[]>;
}

/** How many near memories are checked before a draft is stored as new. */
export const DEDUP_CANDIDATES = 5;

/** Distinct word tokens: a text that says more distinct things is richer. */
export function distinctTokens(text: string): number {
  return new Set(
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [],
  ).size;
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

/** Keys at every level of a meta value, counted as the store's validation counts them. */
function metaKeys(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + metaKeys(item), 0);
  return Object.values(value).reduce((n: number, child) => n + 1 + metaKeys(child), 0);
}

/**
 * Every key of both metas; on a key both have, the value of the text that survives, so the meta still describes the
 * words kept (a `dia_id` names the turn whose text it is). Null when the union would exceed the meta limits (bytes
 * or keys): the merge is then not made, so no key is dropped.
 */
export function mergeMeta(surviving: Record<string, unknown>, absorbed: Record<string, unknown>): Record<string, unknown> | null {
  const merged = { ...absorbed, ...surviving };
  const fits = Buffer.byteLength(JSON.stringify(merged), "utf8") <= META_MAX_BYTES && metaKeys(merged) <= META_MAX_KEYS;
  return fits ? merged : null;
}

export async function dedup(draft: Judged, lookup: NearestLookup, threshold: number): Promise<Deduplicated> {
  for (const hit of lookup.candidates(draft.vector, threshold)) {
    const memory = await lookup.load(hit.id);
    if (!memory || factConflict(draft.text, memory.text)) continue;
    // The text that names a day, place or state the other does not survives; otherwise the richer one.
    const survivor = survivorOf(draft.text, memory.text);
    const keepsNewText = survivor === "either" ? newTextIsRicher(draft.text, memory.text) : survivor === "a";
    const [kept, replaced] = keepsNewText ? [draft, memory] : [memory, draft];
    const meta = mergeMeta(kept.meta, replaced.meta);
    const measured = cosinesByEmbedding((sentences) => lookup.embedSentences(sentences));
    // Two texts of one sentence and no speaker each are their own sentences: their cosine is already measured.
    const cosines: SentenceCosines = async (open, keptSentences) =>
      open.length === 1 && keptSentences.length === 1 && open[0] === replaced.text && keptSentences[0] === kept.text
        ? [[hit.cosine]]
        : measured(open, keptSentences);
    if (!meta || !(await keepsEveryFact(kept.text, replaced.text, cosines, threshold))) continue;
    return { ...draft, duplicateOf: { memory, cosine: hit.cosine, meta, keepsNewText } };
  }
  return { ...draft, duplicateOf: null };
}
