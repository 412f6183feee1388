import type { PiiType } from "../../src/service/pipeline/pii/types.js";
import { screenPii } from "../../src/service/pipeline/pii/index.js";

/** The kinds screenPii reports for `text` ([] when it passes). */
export function kinds(text: string): PiiType[] {
  const verdict = screenPii(text);
  return verdict.ok ? [] : verdict.types;
}

/** A case of the labeled sets; holdout cases carry the round they were written in. */
export type LabeledCase = { text: string; pii: boolean; types: PiiType[]; note: string; round?: number };

export type SetScore = {
  recall: number;
  falsePositiveRate: number;
  misses: LabeledCase[];
  falsePositives: LabeledCase[];
  wrongKinds: LabeledCase[];
};

/** Recall over the PII cases, false-positive rate over the look-alikes, and which cases failed. */
export function scoreSet(cases: LabeledCase[]): SetScore {
  const positives = cases.filter((c) => c.pii);
  const negatives = cases.filter((c) => !c.pii);
  const misses = positives.filter((c) => kinds(c.text).length === 0);
  const falsePositives = negatives.filter((c) => kinds(c.text).length > 0);
  const wrongKinds = positives.filter((c) => {
    const found = kinds(c.text);
    return found.length > 0 && !c.types.every((t) => found.includes(t));
  });
  return {
    recall: (positives.length - misses.length) / positives.length,
    falsePositiveRate: falsePositives.length / negatives.length,
    misses,
    falsePositives,
    wrongKinds,
  };
}
