import { describe, expect, it } from "vitest";
import { distinctFacts, keyTerms, lexicalFeatures, wordsOf } from "../../src/service/models/embed/lexical.js";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe("lexical features", () => {
  it("compound names and numbers are kept whole and in parts", () => {
    expect(wordsOf("Deploy to eu-west-1 at 10:30, v2.4.1")).toEqual(
      expect.arrayContaining(["eu-west-1", "eu", "west", "1", "v2.4.1", "v2", "4"]),
    );
  });

  it("a shared rare word makes texts similar; stopwords alone do not", () => {
    const a = lexicalFeatures("The Patroni failover for the cluster", 512);
    const b = lexicalFeatures("Who configured Patroni?", 512);
    const c = lexicalFeatures("It is what it is, and that is that.", 512);
    expect(dot(a, b)).toBeGreaterThan(dot(a, c) + 0.15);
    expect(dot(a, c)).toBeLessThan(0.15);
  });

  it("an empty text is the zero vector, not NaN", () => {
    expect(lexicalFeatures("", 64).every((x) => x === 0)).toBe(true);
  });
});

describe("telling different facts apart for dedup", () => {
  it.each([
    ["The API's free tier allows 60 requests per minute.", "The API's paid tier allows 600 requests per minute."],
    ["Marcus owns the billing service.", "Priya owns the billing service."],
    ["The production database runs in eu-west-1.", "The staging database runs in eu-west-1."],
    ["Dana is allergic to peanuts.", "Dana's son is allergic to peanuts."],
    ["Dana likes sushi.", "Dana dislikes sushi."],
    ["Dana's flight to Lisbon leaves on May 14.", "Dana's flight back from Lisbon leaves on May 16."],
  ])("%s / %s state different facts", (a, b) => {
    expect(distinctFacts(a, b)).toBe(true);
  });

  it.each([
    ["Never deploy on Fridays.", "Do not deploy on a Friday, ever."],
    ["Logs are kept for 30 days in Loki.", "Loki keeps our logs for thirty days."],
    ["Dana's birthday is on 22 August.", "Dana was born on the 22nd of August."],
    ["Invoices over 10,000 euros need approval from Hannah.", "Hannah must approve any invoice above 10,000 euros."],
    ["The production database runs in eu-west-1.", "Prod's database is hosted in the eu-west-1 region."],
  ])("%s / %s may be the same fact", (a, b) => {
    expect(distinctFacts(a, b)).toBe(false);
  });

  it("numbers are read alike in digits, words and ordinals", () => {
    expect([...keyTerms("the first of February, thirty days, 10,000 euros")].map(([t]) => t)).toEqual(
      expect.arrayContaining(["1", "february", "30", "10000"]),
    );
  });
});
