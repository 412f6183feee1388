// The dedup rules as pure functions: who said it, numbers, dates, negation; a merge keeps every fact or is refused.
import { describe, expect, it } from "vitest";
import { META_MAX_BYTES, META_MAX_KEYS } from "../../src/contract/limits.js";
import { mergeMeta } from "../../src/service/pipeline/dedup.js";
import {
  cosinesByEmbedding,
  factConflict,
  keepsEveryFact,
  sentencesNotContained,
  sentencesOf,
  speakerOf,
  survivorOf,
} from "../../src/service/pipeline/same-fact.js";
import { bagOfWords } from "../core/models.js";

const asBagsOfWords = cosinesByEmbedding(async (texts) => texts.map((t) => bagOfWords(t)));

describe("who said it", () => {
  it.each([
    ["Sam: Hey Evan! Long time no see.", "sam"],
    ["Mary Ann Lee: I moved to Porto.", "mary ann lee"],
    ["Standup is at 9:30 every weekday.", null],
    ["see https://example.com: the docs", null],
    ["Dana prefers dark mode.", null],
  ])("%s is said by %s", (text, speaker) => {
    expect(speakerOf(text)).toBe(speaker);
  });

  it("turns of two speakers are different facts, however alike their words", () => {
    expect(factConflict("Sam: Hey Evan! Long time no see…", "Evan: Hey Sam, what's up? Long time no see…")).toBe("speaker");
    expect(factConflict("Caroline: Thanks, Mel!", "Melanie: Thanks, Mel!")).toBe("speaker");
  });

  it("a text that names its speaker and one that names none are not the same statement", () => {
    expect(factConflict("Caroline: I went to the support group.", "I went to the support group.")).toBe("speaker");
  });

  it("the same speaker restating the same thing is not told apart by rule", () => {
    expect(factConflict("Gina: Can't wait for tomorrow's grand opening!", "Gina: Can't wait for the grand opening tomorrow!")).toBeNull();
  });
});

describe("numbers, dates and negation must agree", () => {
  it.each([
    ["The API's free tier allows 60 requests per minute.", "The API's free tier allows 600 requests per minute."],
    ["Dana's flight to Lisbon leaves on May 14.", "Dana's flight to Lisbon leaves on May 16."],
    ["Dana prefers tea in the afternoon.", "Dana prefers coffee in the morning."],
    ["Backups run every night.", "Backups run every weekend."],
    ["The retro is on fridays.", "The retro is on mondays."],
    ["Jon: I lost my job yesterday.", "Jon: I lost my job today."],
    ["Dana likes sushi.", "Dana dislikes sushi."],
    ["Marcus owns the billing service.", "Priya owns the billing service."],
  ])("%s / %s are different facts", (a, b) => {
    expect(factConflict(a, b)).toBe("key-terms");
  });

  it.each([
    ["Never deploy on Fridays.", "Do not deploy on a Friday, ever."],
    ["Dana's birthday is on 22 August.", "Dana was born on the 22nd of August."],
    ["Backups run every night.", "The backups run every night."],
  ])("%s / %s may be the same fact", (a, b) => {
    expect(factConflict(a, b)).toBeNull();
  });
});

describe("words of time, order and state must agree (issue 28)", () => {
  it("the same numbers before and after the same event are two facts", () => {
    expect(factConflict("Sign-ups were 1,200 a week before the redesign.", "Sign-ups were 1,200 a week after the redesign.")).toBe(
      "time-order-state",
    );
    expect(factConflict("Jon: I opened the store in May.", "Jon: I closed the store in May.")).toBe("time-order-state");
  });
});

describe("a day, time, date or place named on one side only is an elaboration (issue 28)", () => {
  it.each([
    ["Our release cadence is every two weeks.", "Our release cadence is every two weeks, on Tuesdays."],
    ["Standup is at the office.", "Standup is at the office at 9:30am."],
    ["The offsite is in May.", "The offsite is in May, in Lisbon."],
    ["Dana moved to Porto.", "Dana moved to Porto in March 2024."],
    ["Jon: I lost my job.", "Jon: I lost my job yesterday."],
  ])("%s / %s: no conflict, and the text that names it survives", (short, long) => {
    expect(factConflict(short, long)).toBeNull();
    expect(factConflict(long, short)).toBeNull();
    expect(survivorOf(short, long)).toBe("b");
    expect(survivorOf(long, short)).toBe("a");
  });

  it.each([
    ["The offsite is in May.", "The offsite is in Lisbon."],
    ["The release is on Tuesdays.", "The release is at 9:30."],
    ["Standup is every weekday at 9:30am.", "Standup is every weekday at 9:30pm."],
  ])("each naming one the other does not, %s / %s are two facts", (a, b) => {
    expect(factConflict(a, b)).toBe("key-terms");
  });

  it("a number, name or negation on one side only is still a different fact", () => {
    expect(factConflict("Dana has kids.", "Dana has two kids.")).toBe("key-terms");
    expect(factConflict("The billing service is owned.", "The billing service is owned by Marcus.")).toBe("key-terms");
    expect(factConflict("Dana likes sushi.", "Dana does not like sushi.")).toBe("key-terms");
  });

  it("times are read alike however written", () => {
    expect(factConflict("Standup is at 9:30am.", "Standup is at 9.30 a.m.")).toBeNull();
    expect(survivorOf("Standup is at 2pm.", "Standup is at 14:00.")).toBe("either");
  });

  it("texts naming the same terms may keep either (the richer one, dedup.ts decides)", () => {
    expect(survivorOf("Marcus owns the billing service.", "The billing service is owned by Marcus.")).toBe("either");
  });
});

describe("a merge keeps every fact of both texts", () => {
  it("sentences are read without the speaker's prefix", () => {
    expect(sentencesOf("Jon: Thanks! I'm going for my dreams! Standup is at 9:30.")).toEqual([
      "Thanks!",
      "I'm going for my dreams!",
      "Standup is at 9:30.",
    ]);
  });

  it("a restatement whose words the surviving text all holds loses nothing, and needs no model", async () => {
    let asked = 0;
    const cosines = cosinesByEmbedding(async (texts) => {
      asked++;
      return texts.map((t) => bagOfWords(t));
    });
    expect(sentencesNotContained("Jon: Thanks!", "Jon: Thanks! I'm going for my dreams!")).toEqual([]);
    expect(await keepsEveryFact("Jon: Thanks! I'm going for my dreams!", "Jon: Thanks!", cosines, 0.9)).toBe(true);
    expect(asked).toBe(0);
  });

  it("a sentence the surviving text does not state refuses the merge", async () => {
    const kept = "Jon: Thanks! Your pride and support mean a lot. Looking forward to enjoying the moment with you.";
    const replaced = "Jon: Thanks for the support. You rock!";
    expect(sentencesNotContained(replaced, kept)).toEqual(["You rock!"]);
    expect(await keepsEveryFact(kept, replaced, asBagsOfWords, 0.5)).toBe(false);
  });

  it("a sentence said in other words is covered when it is close to one sentence of the surviving text", async () => {
    const kept = "The billing service is owned by Marcus. It runs on Kubernetes.";
    const replaced = "Marcus owns the billing service.";
    const closeEnough = cosinesByEmbedding(async (texts) => texts.map((t) => bagOfWords(/billing/.test(t) ? "billing service marcus" : t)));
    expect(await keepsEveryFact(kept, replaced, closeEnough, 0.9)).toBe(true);
    expect(await keepsEveryFact(kept, replaced, asBagsOfWords, 0.9)).toBe(false);
  });
});

describe("a merge keeps every key of both metas", () => {
  it("keys of both survive; on a shared key the value of the text that survives", () => {
    expect(mergeMeta({ a: 1, b: 1 }, { b: 2, c: 3 })).toEqual({ a: 1, b: 1, c: 3 });
  });

  it("a union over the size limit refuses the merge instead of dropping the older keys", () => {
    const half = "x".repeat(Math.ceil(META_MAX_BYTES / 2));
    expect(mergeMeta({ older: half }, { newer: half })).toBeNull();
  });

  it("a union over the key limit refuses the merge", () => {
    const keys = (prefix: string) => Object.fromEntries(Array.from({ length: META_MAX_KEYS / 2 + 1 }, (_, i) => [`${prefix}${i}`, i]));
    expect(mergeMeta(keys("a"), keys("b"))).toBeNull();
    expect(mergeMeta(keys("a"), keys("a"))).not.toBeNull();
  });
});
