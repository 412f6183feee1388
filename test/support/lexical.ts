// The stores rank a word search in JavaScript (shared-sql.ts rankPostings); lexicalSearchStatement is the reference
// the tests hold them to, on either store.
import { expect } from "vitest";
import type { LexicalMatch } from "../../src/service/store/types.js";

/** The store's matches are the reference statement's: same ids in the same order, scores equal to 1e-9. */
export function expectSameLexicalMatches(got: readonly LexicalMatch[], expected: readonly LexicalMatch[]): void {
  expect(got.map((m) => m.id)).toEqual(expected.map((m) => m.id));
  got.forEach((m, i) => {
    const e = expected[i]!;
    expect(m.score).toBeCloseTo(e.score, 9);
    expect(m.queryWeight).toBeCloseTo(e.queryWeight, 9);
    expect(m.total).toBe(e.total);
    expect(m.terms).toEqual(e.terms);
  });
}
