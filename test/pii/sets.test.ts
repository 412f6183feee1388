import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type LabeledCase, scoreSet } from "./support.js";

const load = (path: string): LabeledCase[] => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
const pct = (x: number): string => (100 * x).toFixed(1) + "%";

function report(name: string, cases: LabeledCase[]): ReturnType<typeof scoreSet> {
  const score = scoreSet(cases);
  const positives = cases.filter((c) => c.pii).length;
  console.log(
    `[pii] ${name}: ${positives} secrets, ${cases.length - positives} look-alikes; ` +
      `recall ${score.recall.toFixed(3)}, false positives ${pct(score.falsePositiveRate)} (${score.falsePositives.length})`,
  );
  for (const c of score.misses) console.log(`[pii]   missed: ${c.note}`);
  for (const c of score.falsePositives) console.log(`[pii]   false positive: ${c.note}`);
  for (const c of score.wrongKinds) console.log(`[pii]   wrong kind: ${c.note}`);
  return score;
}

describe("the labeled PII set (test/eval/sets/pii.json)", () => {
  const cases = load("../eval/sets/pii.json");

  it("holds at least 120 secrets across every kind and 120 look-alikes", () => {
    expect(cases.filter((c) => c.pii).length).toBeGreaterThanOrEqual(120);
    expect(cases.filter((c) => !c.pii).length).toBeGreaterThanOrEqual(120);
    const kinds = new Set(cases.flatMap((c) => c.types));
    expect([...kinds].sort()).toEqual(["api_key", "credit_card", "national_id", "password", "private_key"]);
  });

  it("every secret is caught (recall 1.00) with the right kind, and at most 5% of look-alikes are rejected", () => {
    const score = report("pii.json", cases);
    expect(score.misses.map((c) => c.note)).toEqual([]);
    expect(score.wrongKinds.map((c) => c.note)).toEqual([]);
    expect(score.falsePositiveRate).toBeLessThanOrEqual(0.05);
  });
});

describe("the held-out set (test/pii/holdout.json), written after the detectors", () => {
  it("reports recall and false-positive rate per round (an estimate of generalization, not a target)", () => {
    const cases = load("./holdout.json");
    for (const round of [...new Set(cases.map((c) => c.round ?? 1))]) {
      report(
        `holdout.json round ${round}`,
        cases.filter((c) => (c.round ?? 1) === round),
      );
    }
    const score = report("holdout.json all rounds", cases);
    expect(score.recall).toBeGreaterThan(0.9);
  });
});
