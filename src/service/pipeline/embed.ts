// Stage 2: the text's document vector. It needs the model, not the store, so it runs before the write lock.
import type { Embedder } from "../models/types.js";
import type { Draft, Embedded } from "./draft.js";

export async function embed(draft: Draft, embedder: Embedder): Promise<Embedded> {
  const [vector] = await embedder.embed([draft.text], "document");
  return { ...draft, vector: vector!, embedderId: embedder.id };
}
