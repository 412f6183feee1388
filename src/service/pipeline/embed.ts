// Stage 2: the text's document vector (and, beside it, the judge's rating of the text; both need the model, not
// the store, so they run before the workspace's write lock is taken).
import type { Embedder, Judge } from "../models/types.js";
import type { Draft, Embedded, Judged } from "./draft.js";

export async function embed(draft: Draft, embedder: Embedder): Promise<Embedded> {
  const [vector] = await embedder.embed([draft.text], "document");
  return { ...draft, vector: vector!, embedderId: embedder.id };
}

export async function judgeDraft(draft: Embedded, judge: Judge, now: Date): Promise<Judged> {
  const judgement = await judge.judge(draft.text, now, draft.vector);
  return { ...draft, judgement };
}
