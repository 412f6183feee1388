// Beside stage 2: the judge's rating of the text (importance, temporal, categories), which stages 4-6 validate.
// Like embedding, it needs the model, not the store, so it runs before the write lock.
import type { Judge } from "../models/types.js";
import type { Embedded, Judged } from "./draft.js";

export async function judgeDraft(draft: Embedded, judge: Judge, now: Date): Promise<Judged> {
  const judgement = await judge.judge(draft.text, now, draft.vector);
  return { ...draft, judgement };
}
