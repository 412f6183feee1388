// Hybrid retrieval through openService over a real SQLite file, with a pinned clock.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_SCORE_DEFAULT } from "../../src/contract/limits.js";
import { parseRetrieveRequest } from "../../src/service/http/validation.js";
import {
  askingFactor,
  fusedRelevance,
  howMuchFactor,
  inflectedEvidence,
  lexicalEvidence,
  whenFactor,
} from "../../src/service/retrieval/fusion.js";
import { confidence, frequency, importanceTerm, recency } from "../../src/service/retrieval/score.js";
import { foldText, stemOf, wordMatch, wordsOf } from "../../src/service/retrieval/search-terms.js";
import { CONFIDENCE, EXPIRED_FACTOR, FUSION, LEXICAL_EVIDENCE, RELEVANCE_FLOOR, WEIGHTS } from "../../src/service/retrieval/weights.js";
import { openTestService, pinnedClock, tempDir, workspaceOf } from "./support.js";

const tmp = tempDir();
const clock = pinnedClock("2025-06-01T12:00:00Z");
let service: Awaited<ReturnType<typeof openTestService>>;
beforeAll(async () => {
  service = await openTestService(join(tmp.dir, "retrieve.db"), { clock });
});
afterAll(async () => {
  await service.close();
  tmp.cleanup();
});

describe("ranking", () => {
  it("a relevant memory comes before an unrelated one even when the unrelated one is important, fresh and frequent", async () => {
    const { auth } = await workspaceOf(service);
    clock.set("2025-01-01T00:00:00Z");
    const relevant = await service.store(auth, { text: "the primary database runs postgres 16 importance 1", meta: {} }, {});
    clock.set("2025-06-01T12:00:00Z");
    const loud = await service.store(auth, { text: "team lunch happens friday noon importance 10", meta: {} }, {});
    for (let i = 0; i < 20; i++) await service.retrieve(auth, { query: "team lunch friday", top_k: 5, min_score: 0 });

    const got = await service.retrieve(auth, { query: "which postgres version does the database run", top_k: 5, min_score: 0 });
    expect(got.memories.map((m) => m.id)).toEqual([relevant.memory_id]);
    expect(got.memories.map((m) => m.id)).not.toContain(loud.memory_id);
  });

  it("importance, recency and frequency reorder memories of comparable relevance", async () => {
    const { auth } = await workspaceOf(service);
    const plain = await service.store(auth, { text: "the cache layer uses redis cluster importance 2", meta: {} }, {});
    const key = await service.store(auth, { text: "the cache layer uses memcached importance 10", meta: {} }, {});
    const got = await service.retrieve(auth, { query: "cache layer", top_k: 5, min_score: 0 });
    expect(got.memories.map((m) => m.id)).toEqual([key.memory_id, plain.memory_id]);
    expect(got.memories[0]!.score).toBeGreaterThan(got.memories[1]!.score);
  });

  it("a memory the lexical index finds, holding several query words whole, joins with its raw cosine though below the floor", async () => {
    const { auth } = await workspaceOf(service);
    const near = await service.store(auth, { text: "grandma lives in sweden", meta: {} }, {});
    const wordy = await service.store(
      auth,
      {
        text: "a long note about gardening painting cooking hiking swimming reading travelling singing dancing running and grandma lives",
        meta: {},
      },
      {},
    );
    const got = await service.retrieve(auth, { query: "where does grandma live", top_k: 5, min_score: 0 });
    expect(got.memories.map((m) => m.id)).toEqual([near.memory_id, wordy.memory_id]);
    expect(got.memories[1]!.similarity).toBeLessThan(RELEVANCE_FLOOR);
    expect(got.memories[1]!.similarity).toBeGreaterThan(0);
  });

  it("a memory said by the person the query names comes first; one without a speaker is never lifted", async () => {
    const { auth } = await workspaceOf(service);
    // The same words each time (equal cosines and lexical scores): only who said it differs.
    const byCaroline = await service.store(auth, { text: "Caroline: Melanie went hiking in the mountains", meta: {} }, {});
    const byMelanie = await service.store(auth, { text: "Melanie: Caroline went hiking in the mountains", meta: {} }, {});
    const noSpeaker = await service.store(auth, { text: "Caroline went hiking in the mountains with Melanie", meta: {} }, {});
    const ids = [byCaroline.memory_id, byMelanie.memory_id, noSpeaker.memory_id];
    expect(new Set(ids).size).toBe(3);

    const aboutCaroline = await service.retrieve(auth, { query: "where did caroline go hiking", top_k: 5, min_score: 0 });
    expect(aboutCaroline.memories[0]!.id).toBe(byCaroline.memory_id);
    const aboutMelanie = await service.retrieve(auth, { query: "where did melanie go hiking", top_k: 5, min_score: 0 });
    expect(aboutMelanie.memories[0]!.id).toBe(byMelanie.memory_id);
    const nobody = await service.retrieve(auth, { query: "who went hiking in the mountains", top_k: 5, min_score: 0 });
    const scores = nobody.memories.filter((m) => ids.includes(m.id)).map((m) => m.score);
    expect(scores).toHaveLength(3);
    expect(Math.max(...scores) - Math.min(...scores)).toBeLessThan(0.02);
  });

  it("a query that shares a word with a memory but reaches no memory's floor returns nothing", async () => {
    const { auth } = await workspaceOf(service);
    await service.store(
      auth,
      {
        text: "a long note about gardening painting cooking hiking swimming reading travelling singing dancing running and grandma",
        meta: {},
      },
      {},
    );
    expect(await service.retrieve(auth, { query: "grandma recipe for lemon drizzle cake tonight please", top_k: 5, min_score: 0 })).toEqual(
      { memories: [], count: 0 },
    );
  });

  it("a query unrelated to every memory returns nothing", async () => {
    const { auth } = await workspaceOf(service);
    await service.store(auth, { text: "the ci pipeline runs on github actions", meta: {} }, {});
    await service.store(auth, { text: "quarterly planning starts in october", meta: {} }, {});
    const got = await service.retrieve(auth, { query: "favourite ice cream flavour", top_k: 50, min_score: 0 });
    expect(got).toEqual({ memories: [], count: 0 });
  });

  it("a best match that barely clears the floor scores low and the default min_score drops it; a clear one scores high", async () => {
    const { auth } = await workspaceOf(service);
    await service.store(
      auth,
      { text: "the ci pipeline runs on github actions with eleven parallel jobs and nightly builds", meta: {} },
      {},
    );
    await service.store(auth, { text: "quarterly planning starts in october", meta: {} }, {});
    // one shared word of two (bag of words: cosine 1/√20 = 0.224): just above the test embedder's floor 0.2
    const weak = await service.retrieve(auth, { query: "jobs today", top_k: 5, min_score: 0 });
    expect(weak.count).toBe(1);
    expect(weak.memories[0]!.similarity).toBeGreaterThanOrEqual(RELEVANCE_FLOOR);
    // alone above the floor, its gap to the tenth candidate is its distance to the floor
    expect((1 + CONFIDENCE.gap) * (weak.memories[0]!.similarity - RELEVANCE_FLOOR)).toBeLessThan(CONFIDENCE.center);
    expect(weak.memories[0]!.score).toBeLessThan(MIN_SCORE_DEFAULT);
    expect((await service.retrieve(auth, { query: "jobs today", top_k: 5, min_score: MIN_SCORE_DEFAULT })).count).toBe(0);

    const clear = await service.retrieve(auth, { query: "ci pipeline github actions jobs", top_k: 5, min_score: MIN_SCORE_DEFAULT });
    expect((1 + CONFIDENCE.gap) * (clear.memories[0]!.similarity - RELEVANCE_FLOOR)).toBeGreaterThan(
      CONFIDENCE.center + 2 * CONFIDENCE.width,
    );
    expect(clear.memories[0]!.score).toBeGreaterThan(0.75);
  });

  it("top_k caps the answer and min_score drops memories scoring below it", async () => {
    const { auth } = await workspaceOf(service);
    for (let i = 0; i < 8; i++) await service.store(auth, { text: `service ${i} logs to loki with label set ${i * 7}`, meta: {} }, {});
    const all = await service.retrieve(auth, { query: "service logs loki", top_k: 50, min_score: 0 });
    expect(all.count).toBe(8);
    const capped = await service.retrieve(auth, { query: "service logs loki", top_k: 3, min_score: 0 });
    expect(capped.count).toBe(3);
    expect(capped.memories).toHaveLength(3);
    const cut = (all.memories[2]!.score + all.memories[3]!.score) / 2;
    const bounded = await service.retrieve(auth, { query: "service logs loki", top_k: 50, min_score: cut });
    for (const m of bounded.memories) expect(m.score).toBeGreaterThanOrEqual(cut);
    const none = await service.retrieve(auth, { query: "service logs loki", top_k: 50, min_score: 1 });
    expect(none.count).toBe(0);
    for (const m of all.memories) {
      expect(m.score).toBeGreaterThanOrEqual(0);
      expect(m.score).toBeLessThanOrEqual(1);
      expect(m.similarity).toBeGreaterThan(0);
      expect(m.similarity).toBeLessThanOrEqual(1);
    }
    const scores = all.memories.map((m) => m.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });
});

describe("decay and access", () => {
  it("a time-bound memory past its valid_until scores ×0.2 and is reported as expired", async () => {
    const { auth } = await workspaceOf(service);
    clock.set("2025-06-01T00:00:00Z");
    const stored = await service.store(
      auth,
      { text: "the conference booth is staffed until 2025-06-10 importance 7", meta: { owner: "sam" } },
      {},
    );
    expect(stored.temporal).toEqual({ type: "time_bound", valid_until: "2025-06-10T00:00:00Z" });

    const before = await service.retrieve(auth, { query: "conference booth", top_k: 5, min_score: 0 });
    expect(before.memories[0]!.expired).toBe(false);

    clock.set("2025-06-20T00:00:00Z");
    const after = await service.retrieve(auth, { query: "conference booth", top_k: 5, min_score: 0 });
    const m = after.memories[0]!;
    expect(m.expired).toBe(true);
    // One candidate: similarity' = 1; last accessed 19 days ago, once.
    const raw =
      WEIGHTS.similarity * 1 +
      WEIGHTS.recency * recency(Date.parse("2025-06-20T00:00:00Z"), Date.parse("2025-06-01T00:00:00Z")) +
      WEIGHTS.importance * importanceTerm(7) +
      WEIGHTS.frequency * frequency(1);
    const sure = confidence(RELEVANCE_FLOOR, m.similarity, 1);
    expect(m.score).toBeCloseTo(sure * raw * EXPIRED_FACTOR, 5);
    expect(m.meta).toEqual({
      owner: "sam",
      temporal: { type: "time_bound", valid_until: "2025-06-10T00:00:00Z" },
      categories: ["work", "project"],
    });
  });

  it("every returned memory gets access_count + 1 and last_accessed_at = now", async () => {
    const { auth } = await workspaceOf(service);
    clock.set("2025-06-01T00:00:00Z");
    const s = await service.store(auth, { text: "grafana dashboards live in the ops folder", meta: {} }, {});
    await service.store(auth, { text: "holiday calendar is shared in drive", meta: {} }, {});
    clock.set("2025-06-02T08:30:00Z");
    const first = await service.retrieve(auth, { query: "grafana dashboards", top_k: 5, min_score: 0 });
    expect(first.memories).toHaveLength(1);
    // The specification's fields in its order, then the documented extras.
    expect(Object.keys(first)).toEqual(["memories", "count"]);
    expect(Object.keys(first.memories[0]!)).toEqual([
      "id",
      "text",
      "score",
      "similarity",
      "importance",
      "meta",
      "expired",
      "created_at",
      "last_accessed_at",
      "access_count",
    ]);
    expect(first.memories[0]).toMatchObject({
      id: s.memory_id,
      access_count: 1,
      last_accessed_at: "2025-06-02T08:30:00Z",
      created_at: "2025-06-01T00:00:00Z",
    });
    clock.set("2025-06-03T09:00:00Z");
    const second = await service.retrieve(auth, { query: "grafana ops folder", top_k: 5, min_score: 0 });
    expect(second.memories[0]).toMatchObject({ access_count: 2, last_accessed_at: "2025-06-03T09:00:00Z" });
    const other = await service.retrieve(auth, { query: "holiday calendar", top_k: 5, min_score: 0 });
    expect(other.memories[0]!.access_count).toBe(1);
  });
});

describe("lexical evidence (issue 30)", () => {
  const words = (text: string) => wordsOf(foldText(text));

  it("a query word held whole or inflected is a word; found only inside a longer word it is a fragment", () => {
    expect(wordMatch("use", words("The user prefers concise answers"))).toBe("fragment");
    expect(wordMatch("product", words("The production cluster runs in eu-west-1"))).toBe("fragment");
    expect(wordMatch("sign", words("The design system is called Quartz"))).toBe("fragment");
    expect(wordMatch("painting", words("Caroline: I love these paintings"))).toBe("word");
    expect(wordMatch("paint", words("Melanie painted a sunset"))).toBe("word");
    expect(wordMatch("plan", words("We planned the offsite"))).toBe("word");
    expect(wordMatch("atlas", words("Atlas uses Postgres 16"))).toBe("word");
  });

  it("names match in any language: diacritics folded as the index folds them, unspaced scripts as the index found them", () => {
    expect(wordMatch("tomas", words("Their contact is Tomás Ibarra"))).toBe("word");
    expect(wordMatch("tomás", words("Their contact is Tomas Ibarra"))).toBe("word");
    expect(wordMatch("müller", words("Frau Müller leitet das Team"))).toBe("word");
    expect(wordMatch("東京", words("来月東京に行きます"))).toBe("word");
  });

  it("a fragment counts a tenth of a whole word, and alone does not carry a memory below the floor", () => {
    const match = { id: 1, score: 0, queryWeight: 0, total: 40, terms: { use: 3 } };
    const whole = lexicalEvidence(match, "Atlas: we use Postgres");
    const fragment = lexicalEvidence(match, "The user prefers concise answers");
    expect(fragment.score).toBeCloseTo(LEXICAL_EVIDENCE.fragment * whole.score, 9);
    expect(fragment.wordScore).toBe(0);
    expect(fragment.carriesWeight).toBe(false);
  });

  it("several whole words, or one rare one, carry a memory below the floor; one common word does not", () => {
    const text = "Dana's manager is Priya Natarajan, VP of Platform Engineering";
    const common = { id: 1, score: 0, queryWeight: 0, total: 1000, terms: { manager: 40 } };
    expect(lexicalEvidence(common, text).carriesWeight).toBe(false);
    expect(lexicalEvidence({ ...common, terms: { manager: 40, platform: 60 } }, text).carriesWeight).toBe(true);
    expect(lexicalEvidence({ ...common, terms: { natarajan: 2 } }, text).carriesWeight).toBe(true);
    expect(lexicalEvidence({ ...common, terms: { natarajan: 2 } }, "Natarajanski was here").carriesWeight).toBe(false);
  });

  it("a memory below the floor whose only link to the query is a word fragment is not returned", async () => {
    const { auth } = await workspaceOf(service);
    const fragment = await service.store(auth, { text: "the user prefers concise answers and bullet lists", meta: {} }, {});
    const right = await service.store(auth, { text: "atlas runs on postgres sixteen", meta: {} }, {});
    const got = await service.retrieve(auth, { query: "which database does atlas use", top_k: 5, min_score: 0 });
    expect(got.memories.map((m) => m.id)).toEqual([right.memory_id]);
    expect(got.memories.map((m) => m.id)).not.toContain(fragment.memory_id);
  });
});

describe("a query word held in another inflection (issue 30, third pass)", () => {
  it("inflections of a word share a stem; derivations and short words do not", () => {
    for (const [a, b] of [
      ["camped", "camping"],
      ["painting", "painted"],
      ["dance", "dancing"],
      ["planned", "planning"],
      ["adopt", "adopted"],
      ["books", "book"],
    ])
      expect(stemOf(a)).toBe(stemOf(b));
    expect(stemOf("production")).not.toBe(stemOf("product"));
    expect(stemOf("design")).not.toBe(stemOf("sign"));
    expect(stemOf("user")).not.toBe(stemOf("use"));
  });

  it("adds LEXICAL_EVIDENCE.inflected of the word's IDF, once per word, only for words the index did not find", () => {
    const idf = (n: number, total: number) => Math.log(1 + (total - n + 0.5) / (n + 0.5));
    const counts = new Map([["camping", 12]]);
    const text = "Melanie: We camped by the lake in June";
    expect(inflectedEvidence(["camping", "lake"], { lake: 30 }, text, counts, 400)).toBeCloseTo(
      LEXICAL_EVIDENCE.inflected * idf(12, 400),
      12,
    );
    // Found by the index already: counted there, not again.
    expect(inflectedEvidence(["camping"], { camping: 12 }, text, counts, 400)).toBe(0);
    // A word no match holds counts as held by one memory.
    expect(inflectedEvidence(["painting"], undefined, "I painted the lake", new Map(), 400)).toBeCloseTo(
      LEXICAL_EVIDENCE.inflected * idf(1, 400),
      12,
    );
    expect(inflectedEvidence(["product", "use"], undefined, "The production user", new Map(), 400)).toBe(0);
  });

  it("through the service: of two memories as close and sharing the same word, the one holding another word inflected ranks first", async () => {
    const { auth } = await workspaceOf(service);
    const other = await service.store(auth, { text: "boats near the lake", meta: {} }, {});
    const inflected = await service.store(auth, { text: "camped beside the lake", meta: {} }, {});
    const got = await service.retrieve(auth, { query: "camping trip lake", top_k: 5, min_score: 0 });
    expect(got.memories.map((m) => m.id)).toEqual([inflected.memory_id, other.memory_id]);
    expect(got.memories[0]!.similarity).toBeCloseTo(got.memories[1]!.similarity, 6);
    expect(got.memories[0]!.score).toBeGreaterThan(got.memories[1]!.score);
  });
});

describe("a memory that asks (issue 30, second pass)", () => {
  it("a memory whose sentences are questions loses FUSION.askedShare of its relevance, in proportion; one that tells, none", () => {
    expect(askingFactor("Caroline: How long have you been married?")).toBeCloseTo(1 - FUSION.askedShare, 12);
    expect(askingFactor("Wow, that looks great! What kind of yoga is it?")).toBeCloseTo(1 - FUSION.askedShare / 2, 12);
    expect(askingFactor("Melanie: 5 years already! Time flies.")).toBe(1);
    expect(askingFactor("Dana's manager is Priya Natarajan, VP of Platform Engineering.")).toBe(1);
    expect(askingFactor("会議はいつですか？")).toBeCloseTo(1 - FUSION.askedShare, 12);
    expect(askingFactor("…")).toBe(1);
  });

  it("of two memories as close to a question, the one that tells ranks above the one that asks it back", async () => {
    const { auth } = await workspaceOf(service);
    const asks = await service.store(auth, { text: "are the billing database backups kept long?", meta: {} }, {});
    const tells = await service.store(auth, { text: "the billing database backups are kept long, ninety days.", meta: {} }, {});
    const got = await service.retrieve(auth, { query: "how long are billing database backups kept", top_k: 5, min_score: 0 });
    expect(got.memories.map((m) => m.id)).toEqual([tells.memory_id, asks.memory_id]);
    // the question is the closer in words and meaning: the order is the asking factor's
    expect(got.memories[1]!.similarity).toBeGreaterThan(got.memories[0]!.similarity);
  });
});

describe("a question that asks when (issue 30, second pass)", () => {
  it("a question asking when lifts a memory that says when by FUSION.saysWhen; other questions and memories stay as they are", () => {
    expect(whenFactor("When did Melanie sign up for pottery?", "Melanie: I just signed up for a pottery class yesterday.")).toBe(
      FUSION.saysWhen,
    );
    expect(whenFactor("When is Dana's birthday?", "Dana's birthday is on 22 August.")).toBe(FUSION.saysWhen);
    expect(whenFactor("What date was the release?", "We shipped it in 2023.")).toBe(FUSION.saysWhen);
    expect(whenFactor("When did Melanie sign up for pottery?", "Melanie: Pottery is so relaxing.")).toBe(1);
    expect(whenFactor("What did Melanie paint?", "Melanie: I painted that lake sunrise last year.")).toBe(1);
    // "may" is more often the verb than the month
    expect(whenFactor("When can I deploy?", "You may deploy once the checks pass.")).toBe(1);
  });
});

describe("a question that asks how long, many or much (issue 30, third pass)", () => {
  it("lifts a memory that says a number or a duration by FUSION.saysHowMuch; a memory that only asks back, or other questions, stay", () => {
    expect(howMuchFactor("How long have Mel and her husband been married?", "Melanie: 5 years already! Time flies.")).toBe(
      FUSION.saysHowMuch,
    );
    expect(howMuchFactor("How many replicas does the cluster have?", "The production cluster has two read replicas.")).toBe(
      FUSION.saysHowMuch,
    );
    expect(howMuchFactor("How often are backups taken?", "Backups are taken every six hours.")).toBe(FUSION.saysHowMuch);
    expect(howMuchFactor("How long have Mel and her husband been married?", "Caroline: How long have you been married?")).toBe(1);
    // "How long ago" asks when (whenFactor); a memory without a number or a duration stays.
    expect(howMuchFactor("How many kids does Melanie have?", "Melanie: We love our kids.")).toBe(1);
    expect(howMuchFactor("How long ago did Dana move?", "Dana moved 3 years ago.")).toBe(1);
    expect(howMuchFactor("What does Dana eat?", "Dana eats fish twice a week.")).toBe(1);
  });
});

describe("a weak best cosine (issue 30, second pass)", () => {
  it("when the best cosine barely clears the floor, cosines a few hundredths apart differ little: the span is at least minDenseSpan", () => {
    const weak = { floor: 0.2, bestCosine: 0.26, bestLexical: 0, queryWeight: 0 };
    const dense = 1 - FUSION.lexicalShare;
    expect(fusedRelevance(0.26, 0, weak)).toBeCloseTo((dense * 0.06) / FUSION.minDenseSpan, 12);
    expect(fusedRelevance(0.26, 0, weak) - fusedRelevance(0.22, 0, weak)).toBeCloseTo((dense * 0.04) / FUSION.minDenseSpan, 12);
    // a clear best spans its own distance to the floor: it gets the whole dense share
    expect(fusedRelevance(0.6, 0, { ...weak, bestCosine: 0.6 })).toBeCloseTo(dense, 12);
  });
});

describe("the calibrated score (issue 30)", () => {
  it("confidence grows with the best evidence, is one half at the fitted center, and whole words add to it", () => {
    expect(confidence(0.2, 0.2 + CONFIDENCE.center, 0, 0)).toBeCloseTo(0.5, 9);
    expect(confidence(0.2, 0.25)).toBeLessThan(confidence(0.2, 0.35));
    expect(confidence(0.2, 0.3, 1)).toBeGreaterThan(confidence(0.2, 0.3, 0));
    expect(confidence(0.2, 0.9)).toBeGreaterThan(0.99);
  });

  it("a best match that stands out from the tenth candidate is surer than one among many as close", () => {
    expect(confidence(0.2, 0.4, 0, 0.2)).toBeGreaterThan(confidence(0.2, 0.4, 0, 0.02));
    // without a gap given, the best is taken to be alone above the floor
    expect(confidence(0.2, 0.4, 0)).toBeCloseTo(confidence(0.2, 0.4, 0, 0.2), 12);
  });

  it("a retrieve without min_score applies the default", async () => {
    const { auth } = await workspaceOf(service);
    await service.store(
      auth,
      { text: "the ci pipeline runs on github actions with eleven parallel jobs and nightly builds", meta: {} },
      {},
    );
    await service.store(auth, { text: "quarterly planning starts in october", meta: {} }, {});
    const weak = await service.retrieve(auth, { query: "jobs today", top_k: 5, min_score: 0 });
    expect(weak.count).toBe(1);
    expect(weak.memories[0]!.score).toBeLessThan(MIN_SCORE_DEFAULT);
    // What the HTTP layer hands the service when the body has no min_score (./validation.ts).
    const input = parseRetrieveRequest({ query: "jobs today", top_k: 5 });
    expect(input.min_score).toBe(MIN_SCORE_DEFAULT);
    expect((await service.retrieve(auth, input)).count).toBe(0);
  });
});
