// The offline judge judges a few fixed texts at load() so that V8 compiles its expressions then, not on the first
// memories stored. That warm-up must leave nothing behind: each text below is judged by a fresh copy of the module
// with load() and by another without it, and every judgement is the same.
import { describe, expect, it, vi } from "vitest";
import holdout from "./holdout.json" with { type: "json" };

/** A unit vector per text, the same in both runs (a seeded generator), so the classifiers' path runs too. */
function vectorFor(text: string): Float32Array {
  let seed = 2166136261;
  for (const ch of text) seed = Math.imul(seed ^ ch.charCodeAt(0), 16777619) >>> 0;
  const v = new Float32Array(384).map(() => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32 - 0.5;
  });
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

async function judgeAll(warm: boolean) {
  vi.resetModules();
  const { createOfflineJudge } = await import("../../src/service/models/judge/index.js");
  const judge = createOfflineJudge({ embedderId: "minilm-l6/1" });
  if (warm) await judge.load();
  const texts = [...holdout.categories.map((c) => c.text), ...holdout.temporal.map((t) => t.text)];
  const now = new Date("2025-07-16T13:00:00Z");
  return Promise.all(texts.map((text) => judge.judge(text, now, vectorFor(text))));
}

describe("the offline judge's warm-up", () => {
  it("changes no judgement (each text judged alike by a fresh judge with and without load())", async () => {
    const cold = await judgeAll(false);
    const warm = await judgeAll(true);
    expect(warm).toHaveLength(58);
    expect(warm).toEqual(cold);
    // the texts are judged, not passed through empty
    expect(cold.filter((j) => j.categories.length > 0).length).toBeGreaterThan(40);
  });
});
