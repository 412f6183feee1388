import { beforeAll, describe, expect, it } from "vitest";
import { isValidCategoryList } from "../../src/contract/taxonomy.js";
import { createOfflineEmbedder } from "../../src/service/models/embed/index.js";
import { createOfflineJudge } from "../../src/service/models/judge/index.js";
import type { Embedder } from "../../src/service/models/types.js";
import {
  loadSet,
  scoreCategories,
  scoreImportance,
  scoreTemporal,
  type CategoryCase,
  type ImportanceCase,
  type JudgeFn,
  type TemporalCase,
} from "./metrics.js";

// Scores both ways the service can run the offline judge: rules alone (no vector, or a vector from another model)
// and rules with the classifiers over the default hybrid embedder's vector.
const temporalSet = loadSet<TemporalCase>("../eval/sets/temporal.json");
const categorySet = loadSet<CategoryCase>("../eval/sets/categories.json");
const importanceSet = loadSet<ImportanceCase>("../eval/sets/importance.json");

let embedder: Embedder;
const rulesJudge = createOfflineJudge();
const rulesOnly: JudgeFn = (text, now) => rulesJudge.judge(text, now, null);
let withVectors: JudgeFn;

beforeAll(async () => {
  embedder = createOfflineEmbedder("hybrid");
  await embedder.load();
  const judge = createOfflineJudge({ embedderId: embedder.id });
  // One batch for every text: the model's per-call cost is fixed.
  const texts = [...new Set([...categorySet, ...importanceSet].map((c) => c.text))];
  const vectors = await embedder.embed(texts, "document");
  const byText = new Map(texts.map((t, i) => [t, vectors[i]!]));
  withVectors = async (text, now) => judge.judge(text, now, byText.get(text) ?? (await embedder.embed([text], "document"))[0]!);
});

const lines = (misses: string[]) => (misses.length ? `\n  ${misses.join("\n  ")}` : "");

describe("the offline judge on the labeled sets", () => {
  it("classifies temporal type and end with accuracy >= 0.85", async () => {
    const s = await scoreTemporal(temporalSet, rulesOnly);
    console.log(
      `temporal: n=${s.n} type accuracy=${s.typeAccuracy.toFixed(3)} accuracy (type and end)=${s.accuracy.toFixed(3)}${lines(s.misses)}`,
    );
    expect(s.typeAccuracy).toBeGreaterThanOrEqual(0.85);
    expect(s.accuracy).toBeGreaterThanOrEqual(0.85);
  });

  for (const mode of ["rules", "rules+classifier"] as const) {
    it(`gives every memory two to four valid categories and reports F1 (${mode})`, async () => {
      const run = mode === "rules" ? rulesOnly : withVectors;
      for (const c of categorySet) expect(isValidCategoryList((await run(c.text, new Date())).categories), c.text).toBe(true);
      const s = await scoreCategories(categorySet, run);
      console.log(
        `categories (${mode}): n=${s.n} domain accuracy=${s.domainAccuracy.toFixed(3)} topic F1 micro=${s.microF1.toFixed(3)} macro=${s.macroF1.toFixed(3)} all-label micro F1=${s.labelMicroF1.toFixed(3)}${lines(s.misses)}`,
      );
      expect(s.microF1).toBeGreaterThanOrEqual(0.6);
      expect(s.domainAccuracy).toBeGreaterThanOrEqual(0.7);
    });

    it(`rates importance close to the labels (${mode})`, async () => {
      const s = await scoreImportance(importanceSet, mode === "rules" ? rulesOnly : withVectors);
      console.log(`importance (${mode}): n=${s.n} MAE=${s.mae.toFixed(2)} within one point=${s.withinOne.toFixed(3)}${lines(s.misses)}`);
      expect(s.mae).toBeLessThanOrEqual(1.5);
      expect(s.withinOne).toBeGreaterThanOrEqual(0.7);
    });
  }
});
