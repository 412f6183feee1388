// Dedup through a real `brain-mcp serve` (HTTP on 127.0.0.1, SQLite file, the default offline embedder), issue 28:
// a word of time, order or state that differs keeps both memories; a pure elaboration merges into the richer text.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ServiceHandle, call, startService } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let svc: ServiceHandle;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

async function storeAll(texts: string[]) {
  const { apiKey } = await svc.newWorkspace("dedup");
  const answers = [];
  for (const text of texts) {
    const res = await call(svc.baseURL, "POST", "/v1/memory/store", { key: apiKey, json: { text } });
    expect(res.status, res.text).toBe(200);
    answers.push(res.json);
  }
  const got = await call(svc.baseURL, "POST", "/v1/memory/retrieve", { key: apiKey, json: { query: texts[0], top_k: 10, min_score: 0 } });
  expect(got.status, got.text).toBe(200);
  return { answers, texts: (got.json.memories as Array<{ text: string }>).map((m) => m.text).sort() };
}

describe("dedup through serve (issue 28)", () => {
  it("the same numbers before and after the same event stay two memories, each with its own words", async () => {
    const before = "Weekly sign-ups were 1,200 before the pricing redesign.";
    const after = "Weekly sign-ups were 1,200 after the pricing redesign.";
    const { answers, texts } = await storeAll([before, after]);
    expect(answers[1].dedup).toEqual({ action: "stored_new", existing_id: null });
    expect(texts).toEqual([after, before]);
  });

  it("a day named on one side only is an elaboration: merged, and the text that names the day survives", async () => {
    const plain = "Our release cadence is every two weeks.";
    const withDay = "Our release cadence is every two weeks, on Tuesdays.";
    const { answers, texts } = await storeAll([plain, withDay]);
    expect(answers[1].dedup).toEqual({ action: "merged", existing_id: answers[0].memory_id });
    expect(texts).toEqual([withDay]);
  });

  it("the elaboration stored first absorbs the plainer restatement and keeps its words", async () => {
    const withDay = "Our release cadence is every two weeks, on Tuesdays.";
    const plain = "Our release cadence is every two weeks.";
    const { answers, texts } = await storeAll([withDay, plain]);
    expect(answers[1].dedup).toEqual({ action: "merged", existing_id: answers[0].memory_id });
    expect(texts).toEqual([withDay]);
  });
});
