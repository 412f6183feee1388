// rankPostings (shared-sql.ts): memories holding the same query words score the same; where the limit cuts through
// them, the ones kept are the newest by the caller's revs, not the smallest (random) ids.
import { describe, expect, it } from "vitest";
import { rankPostings } from "../../src/service/store/shared-sql.js";

// Ids chosen so that id order and rev order disagree: rev 1 is the largest id, rev 6 the smallest.
const REVS = new Map([
  [600, 1],
  [500, 2],
  [400, 3],
  [300, 4],
  [200, 5],
  [100, 6],
]);
// "harbour" is in 900 (alone: the best score); "sam" in every memory.
const POSTINGS = [
  { term: "harbour", ids: [900] },
  { term: "sam", ids: [900, 600, 500, 400, 300, 200, 100] },
];
const revOf = (id: number) => REVS.get(id);

describe("ties at the lexical cut", () => {
  it("keeps the newest of equal scores, after the better scores", () => {
    const got = rankPostings(POSTINGS, 1000, 4, revOf).map((m) => m.id);
    expect(got).toEqual([900, 100, 200, 300]);
  });

  it("counts a memory the caller does not know yet as the newest", () => {
    const got = rankPostings(POSTINGS, 1000, 3, (id) => (id === 600 ? undefined : revOf(id))).map((m) => m.id);
    expect(got).toEqual([900, 600, 100]);
  });

  it("keeps the statement's id order without revs (lexicalSearchStatement's ORDER BY score DESC, id)", () => {
    expect(rankPostings(POSTINGS, 1000, 4).map((m) => m.id)).toEqual([900, 100, 200, 300]);
    const byId = [
      { term: "harbour", ids: [900] },
      { term: "sam", ids: [900, 100, 200, 300, 400, 500, 600] },
    ];
    expect(rankPostings(byId, 1000, 3).map((m) => m.id)).toEqual([900, 100, 200]);
  });

  it("leaves the scores, the query's weight and the words as they were", () => {
    const plain = rankPostings(POSTINGS, 1000, 10);
    const tied = rankPostings(POSTINGS, 1000, 10, revOf);
    expect(new Set(tied.map((m) => m.id))).toEqual(new Set(plain.map((m) => m.id)));
    for (const m of tied) expect(m).toEqual(plain.find((p) => p.id === m.id));
  });

  it("asks about the runs of equal scores the cut reaches, not about every posting", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i + 1);
    const postings = [
      { term: "rare", ids: [1, 2, 3] },
      { term: "common", ids },
      { term: "other", ids: [5000, 5001] },
    ];
    const asked = new Set<number>();
    const got = rankPostings(postings, 10_000, 2, (id) => (asked.add(id), id));
    // 1-3 hold both words (the best score, tied): the newest two of them.
    expect(got.map((m) => m.id)).toEqual([3, 2]);
    expect([...asked].sort((a, b) => a - b)).toEqual([1, 2, 3]);
  });
});
