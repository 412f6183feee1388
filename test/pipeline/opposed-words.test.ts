// Words of time, order and state: a scale both texts use with different words, a marked word on one side, or one
// thing named as the start in one and the end in the other makes two facts; a word on one side only does not.
import { describe, expect, it } from "vitest";
import { STOPWORDS } from "../../src/service/models/embed/lexical.js";
import { SCALES, endsOf, polesOf, timeOrderStateConflict } from "../../src/service/pipeline/opposed-words.js";

const isContentWord = (w: string) => !STOPWORDS.has(w);
const conflict = (a: string, b: string) => timeOrderStateConflict(a, b, isContentWord);

describe("rule: a scale used by both texts with different words is a disagreement", () => {
  it.each([
    ["Sign-ups were 1,200 a week before the redesign.", "Sign-ups were 1,200 a week after the redesign.", "order"],
    ["Ticket 42 was opened by Dana.", "Ticket 42 was closed by Dana.", "openness"],
    ["Dana started the migration on Monday.", "Dana finished the migration on Monday.", "progress"],
    ["The migration to Postgres is planned.", "The migration to Postgres is done.", "progress"],
    ["The old pricing page lists 3 plans.", "The new pricing page lists 3 plans.", "age"],
    ["The export flag is enabled in staging.", "The export flag is disabled in staging.", "switch"],
    ["Dana's expense claim was approved.", "Dana's expense claim was rejected.", "verdict"],
    ["Revenue rose 5 percent in March.", "Revenue fell 5 percent in March.", "trend"],
    ["Jon joined Acme in 2021.", "Jon left Acme in 2021.", "membership"],
    ["The first release was in May.", "The last release was in May.", "sequence"],
    ["Jon: My grandfather passed away last year.", "Jon: My grandfather was born last year.", "life"],
  ])("%s / %s (%s)", (a, b, scale) => {
    expect(conflict(a, b)).toMatchObject({ scale });
    expect(conflict(b, a)).toMatchObject({ scale });
  });

  it("the same words on both sides agree, however they are inflected", () => {
    expect(conflict("The store opens before noon.", "The store opened before noon.")).toBeNull();
    expect(conflict("We started the audit.", "We begin the audit.")).toBeNull();
  });

  it("a phrase is read before its words: 'passed away' is not 'passed'", () => {
    expect(polesOf("My grandfather passed away.")).toEqual(new Map([["life", new Set(["dead"])]]));
  });
});

describe("rule: a marked word on one side only is a disagreement", () => {
  it.each([
    ["I live in Porto.", "I used to live in Porto.", "era"],
    ["Dana formerly worked at Acme.", "Dana worked at Acme.", "era"],
    ["We migrated to Postgres.", "We planned to migrate to Postgres.", "progress"],
  ])("%s / %s (%s)", (a, b, scale) => {
    expect(conflict(a, b)).toMatchObject({ scale });
  });

  it("an unmarked word on one side only is not a disagreement (an elaboration at most)", () => {
    expect(conflict("The numbers were 5 and 7.", "The numbers were 5 and 7 before the launch.")).toBeNull();
    expect(conflict("Ticket 42 is about login.", "Ticket 42 about login is closed.")).toBeNull();
  });
});

describe("rule: one thing named as the start in one text and the end in the other is a disagreement", () => {
  it("from and to", () => {
    expect(endsOf("Dana moved from Porto to Lisbon.", isContentWord)).toEqual(
      new Map([
        ["porto", new Set(["from"])],
        ["lisbon", new Set(["to"])],
      ]),
    );
    expect(conflict("Dana moved from Porto to Lisbon.", "Dana moved from Lisbon to Porto.")).toMatchObject({ scale: "from-to" });
    expect(conflict("The freeze lasts from Friday.", "The freeze lasts until Friday.")).toMatchObject({ scale: "from-to" });
  });

  it("the same ends, or a thing named on one side only, agree", () => {
    expect(conflict("Dana moved to Lisbon.", "Dana moved to Lisbon from Porto.")).toBeNull();
    expect(conflict("Flights from Porto to Lisbon leave hourly.", "Flights to Lisbon from Porto leave hourly.")).toBeNull();
  });
});

describe("the list", () => {
  it("every scale has at least two poles and no word is on two poles of one scale", () => {
    for (const [name, { poles, marked }] of Object.entries(SCALES)) {
      expect(Object.keys(poles).length, name).toBeGreaterThanOrEqual(2);
      const words = Object.values(poles).flatMap((w) => w.split(" "));
      expect(new Set(words).size, name).toBe(words.length);
      for (const pole of marked ?? []) expect(Object.keys(poles), name).toContain(pole);
    }
  });
});
