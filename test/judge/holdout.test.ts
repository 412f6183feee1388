import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { isValidCategoryList } from "../../src/contract/taxonomy.js";
import { createOfflineEmbedder } from "../../src/service/models/embed/index.js";
import { createOfflineJudge } from "../../src/service/models/judge/index.js";
import { scoreCategories, scoreTemporal, type CategoryCase, type JudgeFn, type TemporalCase } from "./metrics.js";

// The held-out set was written after the rules and never used to tune them: its numbers are reported, and the
// assertions only guard against a collapse.
const holdout = JSON.parse(readFileSync(fileURLToPath(new URL("holdout.json", import.meta.url)), "utf8")) as {
  temporal: TemporalCase[];
  categories: CategoryCase[];
};

const rulesJudge = createOfflineJudge();
const rulesOnly: JudgeFn = (text, now) => rulesJudge.judge(text, now, null);
let withVectors: JudgeFn;

beforeAll(async () => {
  const embedder = createOfflineEmbedder("hybrid");
  await embedder.load();
  const judge = createOfflineJudge({ embedderId: embedder.id });
  const texts = holdout.categories.map((c) => c.text);
  const vectors = await embedder.embed(texts, "document");
  const byText = new Map(texts.map((t, i) => [t, vectors[i]!]));
  withVectors = (text, now) => judge.judge(text, now, byText.get(text)!);
});

const lines = (misses: string[]) => (misses.length ? `\n  ${misses.join("\n  ")}` : "");

describe("the held-out set (reported, not tuned on)", () => {
  it("temporal", async () => {
    const s = await scoreTemporal(holdout.temporal, rulesOnly);
    console.log(
      `holdout temporal: n=${s.n} type accuracy=${s.typeAccuracy.toFixed(3)} accuracy (type and end)=${s.accuracy.toFixed(3)}${lines(s.misses)}`,
    );
    expect(s.typeAccuracy).toBeGreaterThanOrEqual(0.7);
  });

  for (const mode of ["rules", "rules+classifier"] as const) {
    it(`categories (${mode})`, async () => {
      const run = mode === "rules" ? rulesOnly : withVectors;
      const now = new Date("2025-07-16T13:00:00Z");
      for (const c of holdout.categories) expect(isValidCategoryList((await run(c.text, now)).categories)).toBe(true);
      const s = await scoreCategories(holdout.categories, run, now);
      console.log(
        `holdout categories (${mode}): n=${s.n} domain accuracy=${s.domainAccuracy.toFixed(3)} topic F1 micro=${s.microF1.toFixed(3)} macro=${s.macroF1.toFixed(3)} all-label micro F1=${s.labelMicroF1.toFixed(3)}${lines(s.misses)}`,
      );
      expect(s.microF1).toBeGreaterThanOrEqual(0.4);
    });
  }
});
