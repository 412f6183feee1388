// The LoCoMo harness's own parts: the protocol's reading of the data, its BM25Okapi baseline and its fusion.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The harness is plain JavaScript run by node; a non-literal specifier keeps tsc from asking for its types.
const load = async <T>(name: string): Promise<T> => (await import(`./${name}.js` as string)) as T;
type Bm25 = { createBm25Okapi(docs: string[]): { scores(query: string): Float64Array }; wordTokens(text: string): string[] };
type Dataset = {
  DEV_CONVERSATIONS: string[];
  dataMissing(): string | null;
  loadConversation(id: string): {
    turns: { diaId: string; text: string; meta: { dia_id: string; session: number; date: string } }[];
    questions: { question: string; category: number; evidence: string[] }[];
    dropped: number;
  };
};
type Measures = {
  firstHit(ranked: number[], relevant: number[], depth?: number): number;
  summarize(ranks: number[]): { n: number; r1: number; r5: number; r10: number; mrr: number };
  reciprocalRankFusion(lists: number[][], options: { k: number; depth: number }): number[];
};

describe("LoCoMo harness", () => {
  it("scores BM25 as rank-bm25's BM25Okapi does, including the epsilon floor for words in most documents", async () => {
    const { createBm25Okapi } = await load<Bm25>("bm25");
    const bm25 = createBm25Okapi([
      "Caroline: my grandma is from Sweden",
      "Melanie: I went to the lake",
      "Caroline: I love the lake",
      "Melanie: the kids love painting",
      "Caroline: the support group was great",
    ]);
    // Reference values: rank_bm25 2.x BM25Okapi over the same lowercased word tokens.
    const expected = [1.2453306989, 0.3259938625, 0.5497236676, 0, 0.1809312497];
    const scores = bm25.scores("caroline grandma lake");
    expected.forEach((value, i) => expect(scores[i]).toBeCloseTo(value, 9));
    const repeated = bm25.scores("the the");
    [0, 0.3618624994, 0.3924137423, 0.3924137423, 0.3618624994].forEach((value, i) => expect(repeated[i]).toBeCloseTo(value, 9));
  });

  it("reads the development half as the protocol says and refuses the held-out conversations", async (ctx) => {
    const { DEV_CONVERSATIONS, dataMissing, loadConversation } = await load<Dataset>("dataset");
    // The data is not in the repository: a clone alone skips, saying where to get it; CI's LoCoMo step requires it.
    const missing = dataMissing();
    if (missing && process.env.BRAIN_LOCOMO_REQUIRED !== "1") {
      process.stderr.write(`LoCoMo data test skipped: ${missing}\n`);
      ctx.skip(missing);
    }
    expect(missing).toBeNull();
    const all = DEV_CONVERSATIONS.map((id) => loadConversation(id));
    expect(all.reduce((n, c) => n + c.turns.length, 0)).toBe(2760);
    expect(all.reduce((n, c) => n + c.questions.length, 0)).toBe(760);
    const first = all[0]!.turns[0]!;
    expect(first.text).toBe("Caroline: Hey Mel! Good to see you! How have you been?");
    expect(first.meta).toEqual({ dia_id: "D1:1", session: 1, date: "1:56 pm on 8 May, 2023" });
    expect(all[0]!.turns.find((t) => t.diaId === "D1:5")!.text).toMatch(/ \[shares a photo of a photo of a dog .*\]$/);
    expect(all.every((c) => c.questions.every((q) => q.category >= 1 && q.category <= 4 && q.evidence.length > 0))).toBe(true);
    for (const held of ["44", "47", "48", "49", "50"]) expect(() => loadConversation(held)).toThrow(/not in the development half/);
  });

  it("says where to get the data when its folder is empty, from the one place every reader looks", async () => {
    const { dataMissing } = await load<{ dataMissing(dir: string): string | null }>("dataset");
    const empty = mkdtempSync(path.join(os.tmpdir(), "locomo-empty-"));
    try {
      const message = dataMissing(empty);
      expect(message).toContain(empty);
      expect(message).toContain("26.json");
      expect(message).toContain("https://github.com/snap-research/locomo");
      expect(message).toContain("BRAIN_LOCOMO_DIR");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("counts a hit at k by the first relevant item and fuses ranks as 1/(k + rank) over lists cut at the depth", async () => {
    const { firstHit, summarize, reciprocalRankFusion } = await load<Measures>("measures");
    expect(firstHit([5, 6, 7], [7])).toBe(3);
    expect(firstHit([5, 6, 7], [7], 2)).toBe(0);
    expect(summarize([1, 3, 0, 10])).toEqual({ n: 4, r1: 0.25, r5: 0.5, r10: 0.75, mrr: (1 + 1 / 3 + 1 / 10) / 4 });
    // 2: 1/61 + 1/62; 1: 1/61; 3: 1/62 (cut at depth 2 in the second list, so 4 is left out).
    expect(
      reciprocalRankFusion(
        [
          [1, 2],
          [2, 3, 4],
        ],
        { k: 60, depth: 2 },
      ),
    ).toEqual([2, 1, 3]);
  });
});
