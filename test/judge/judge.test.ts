import { beforeAll, describe, expect, it } from "vitest";
import { IMPORTANCE_MAX, IMPORTANCE_MIN, TEXT_MAX_CHARS } from "../../src/contract/limits.js";
import { isValidCategoryList } from "../../src/contract/taxonomy.js";
import { createOfflineEmbedder } from "../../src/service/models/embed/index.js";
import { createOfflineJudge } from "../../src/service/models/judge/index.js";
import type { Embedder, Judgement } from "../../src/service/models/types.js";

const NOW = new Date("2025-03-10T15:30:00Z");
const ODD_TEXTS = [
  "x",
  "?!",
  "ok",
  "🙂🙂🙂",
  "Der Nutzer bevorzugt den dunklen Modus.",
  "用户喜欢深色模式",
  "   spaced    out    text   ",
  "lol",
  "always never must important critical security deadline customer decided allergic",
  "monday tuesday wednesday thursday friday saturday sunday today tomorrow this week next month",
  "a".repeat(TEXT_MAX_CHARS),
  "The user prefers dark mode. ".repeat(280),
];

function expectValid(j: Judgement) {
  expect(Number.isInteger(j.importance)).toBe(true);
  expect(j.importance).toBeGreaterThanOrEqual(IMPORTANCE_MIN);
  expect(j.importance).toBeLessThanOrEqual(IMPORTANCE_MAX);
  expect(isValidCategoryList(j.categories)).toBe(true);
  if (j.temporal.type === "persistent") expect(j.temporal.valid_until).toBeNull();
  else expect(j.temporal.valid_until).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
}

let embedder: Embedder;
beforeAll(async () => {
  embedder = createOfflineEmbedder("hybrid");
  await embedder.load();
});

describe("the offline judge", () => {
  it("answers every text, however odd, with a judgement the contract accepts", async () => {
    const judge = createOfflineJudge({ embedderId: embedder.id });
    // The classifiers' cost does not grow with length: long texts borrow a short text's vector (embedding is slow).
    const short = ODD_TEXTS.filter((t) => t.length < 200);
    const vectors = await embedder.embed(short, "document");
    for (const text of ODD_TEXTS) {
      expectValid(await judge.judge(text, NOW, null));
      expectValid(await judge.judge(text, NOW, vectors[Math.max(0, short.indexOf(text))]!));
    }
  });

  it("is deterministic: the same text, clock and vector give the same judgement", async () => {
    const text = "We promised Acme the SSO fix by Friday; it's a blocker for their renewal.";
    const [vector] = await embedder.embed([text], "document");
    const a = createOfflineJudge({ embedderId: embedder.id });
    const b = createOfflineJudge({ embedderId: embedder.id });
    const first = await a.judge(text, NOW, vector!);
    expect(await a.judge(text, NOW, vector!)).toEqual(first);
    expect(await b.judge(text, new Date(NOW), vector!)).toEqual(first);
  });

  it("ignores a vector from an unknown model rather than misreading it", async () => {
    const text = "The user is allergic to peanuts.";
    const noise = new Float32Array(1024).fill(1 / 32);
    const unknown = createOfflineJudge({ embedderId: "text-embedding-3-small" });
    expect(await unknown.judge(text, NOW, noise)).toEqual(await unknown.judge(text, NOW, null));
    expect(await createOfflineJudge().judge(text, NOW, noise)).toEqual(await unknown.judge(text, NOW, null));
  });

  it("names whether it uses the classifiers in its id", () => {
    expect(createOfflineJudge().id).toBe("rules/1");
    expect(createOfflineJudge({ embedderId: embedder.id }).id).toMatch(/^rules\+classifiers\/2@minilm-l6\/1$/);
  });

  it("rates a security or health fact above chit-chat", async () => {
    const judge = createOfflineJudge({ embedderId: embedder.id });
    const texts = [
      "The production database password leaked; rotate it now.",
      "The user is allergic to penicillin.",
      "lol nice weather today",
      "Had a sandwich for lunch.",
    ];
    const vectors = await embedder.embed(texts, "document");
    const [leak, allergy, weather, lunch] = await Promise.all(texts.map((t, i) => judge.judge(t, NOW, vectors[i]!)));
    expect(Math.min(leak!.importance, allergy!.importance)).toBeGreaterThanOrEqual(7);
    expect(Math.max(weather!.importance, lunch!.importance)).toBeLessThanOrEqual(3);
  });

  it("puts the domain first and never repeats a topic", async () => {
    const j = await createOfflineJudge().judge("Deadline deadline deadline: the customer contract is due by Friday.", NOW, null);
    const [domain, ...topics] = j.categories;
    expect(["work", "personal", "technical", "business"]).toContain(domain);
    expect(new Set(topics).size).toBe(topics.length);
  });
});
