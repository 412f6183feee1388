// Dedup through openService over a real SQLite file: a merge is made only when no fact, speaker or meta key is lost.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { META_MAX_BYTES } from "../../src/contract/limits.js";
import { openTestService, tempDir, testEmbedder, workspaceOf } from "./support.js";

const tmp = tempDir();
const GREETING = "hey long time no see, how have you been, what is new with the kids and the job";
afterAll(() => tmp.cleanup());

describe("dedup never loses a fact", () => {
  let service: Awaited<ReturnType<typeof openTestService>>;
  beforeAll(async () => {
    service = await openTestService(join(tmp.dir, "dedup.db"));
  });
  afterAll(() => service.close());

  async function textsOf(auth: Parameters<typeof service.retrieve>[0]) {
    const got = await service.retrieve(auth, { query: "hey long time no see thanks support rock", top_k: 10, min_score: 0 });
    return got.memories.map((m) => m.text).sort();
  }

  it("the same words said by two speakers stay two memories, each with its own text", async () => {
    const { auth } = await workspaceOf(service);
    // Bag-of-words cosine 0.93: only the speakers' names differ.
    const sam = await service.store(auth, { text: `Sam: ${GREETING}`, meta: {} }, {});
    const evan = await service.store(auth, { text: `Evan: ${GREETING}`, meta: {} }, {});
    expect(evan.dedup).toEqual({ action: "stored_new", existing_id: null });
    expect(evan.memory_id).not.toBe(sam.memory_id);
    expect(await textsOf(auth)).toEqual([`Evan: ${GREETING}`, `Sam: ${GREETING}`]);
  });

  it("the same speaker saying the same thing again merges into one memory", async () => {
    const { auth } = await workspaceOf(service);
    const first = await service.store(auth, { text: "Sam: hey long time no see", meta: { dia_id: "D1:1" } }, {});
    const again = await service.store(auth, { text: "Sam: hey, long time no see!", meta: { dia_id: "D9:1", session: 9 } }, {});
    expect(again.dedup).toEqual({ action: "merged", existing_id: first.memory_id });
    expect((await service.status(auth)).memory_count).toBe(1);
    // The longer wording survives with its own dia_id; the key only the other turn had is kept.
    const [memory] = (await service.retrieve(auth, { query: "long time no see", top_k: 5, min_score: 0 })).memories;
    expect(memory).toMatchObject({ text: "Sam: hey, long time no see!", meta: { dia_id: "D9:1", session: 9 } });
    const shorter = await service.store(auth, { text: "Sam: hey long time no see", meta: { dia_id: "D12:1", mood: "glad" } }, {});
    expect(shorter.dedup.action).toBe("merged");
    const [after] = (await service.retrieve(auth, { query: "long time no see", top_k: 5, min_score: 0 })).memories;
    expect(after).toMatchObject({ text: "Sam: hey, long time no see!", meta: { dia_id: "D9:1", session: 9, mood: "glad" } });
  });

  it("a richer text that drops a sentence of the stored one is stored apart, and both texts survive", async () => {
    const { auth } = await workspaceOf(service);
    // Bag-of-words cosine 0.913 (over the test embedder's 0.9), but "you rock" is said only by the shorter text.
    const short = "Jon: thanks thanks thanks support support support mean lot. You rock!";
    const long = "Jon: thanks thanks thanks support support support mean lot. Looking forward.";
    await service.store(auth, { text: short, meta: {} }, {});
    const second = await service.store(auth, { text: long, meta: {} }, {});
    expect(second.dedup.action).toBe("stored_new");
    expect(await textsOf(auth)).toEqual([long, short].sort());
  });

  it("a one-sentence restatement is checked with the cosine already measured, without embedding again", async () => {
    const embedder = testEmbedder("test-bow/1", 0.75);
    let embedded = 0;
    const counting = {
      ...embedder,
      embed: (texts: readonly string[], purpose: "document" | "query") => ((embedded += texts.length), embedder.embed(texts, purpose)),
    };
    const own = await openTestService(join(tmp.dir, "counting.db"), { embedder: counting });
    try {
      const { auth } = await workspaceOf(own);
      // Bag-of-words cosine 0.8; "changes" is not in the surviving text, so the sentence needs a measured match.
      await own.store(auth, { text: "the on call rotation changes every monday", meta: {} }, {});
      const again = await own.store(auth, { text: "the on call rotation switches every monday", meta: {} }, {});
      expect(again.dedup.action).toBe("merged");
      expect(embedded).toBe(2);
    } finally {
      await own.close();
    }
  });

  it("a day named on one side only merges into the text that names it, even when the other has more words", async () => {
    const { auth } = await workspaceOf(service);
    // The richer text by word count is the first; it does not name the day, so the second survives.
    const first = await service.store(auth, { text: "the on call rotation changes every week", meta: { a: 1 } }, {});
    const second = await service.store(auth, { text: "call rotation changes every week, mondays", meta: { b: 2 } }, {});
    expect(second.dedup).toEqual({ action: "merged", existing_id: first.memory_id });
    const got = await service.retrieve(auth, { query: "call rotation", top_k: 5, min_score: 0 });
    expect(got.memories).toHaveLength(1);
    expect(got.memories[0]).toMatchObject({ text: "call rotation changes every week, mondays", meta: { a: 1, b: 2 } });
  });

  it("the same numbers before and after one event stay two memories (a word of order differs)", async () => {
    // At 0.75 the two pass the bag-of-words cosine and the sentence check: only the word of order tells them apart.
    const own = await openTestService(join(tmp.dir, "order.db"), { embedder: testEmbedder("test-bow/1", 0.75) });
    try {
      const { auth } = await workspaceOf(own);
      await own.store(auth, { text: "support tickets were 40 a day before the launch", meta: {} }, {});
      const after = await own.store(auth, { text: "support tickets were 40 a day after the launch", meta: {} }, {});
      expect(after.dedup.action).toBe("stored_new");
      expect((await own.status(auth)).memory_count).toBe(2);
    } finally {
      await own.close();
    }
  });

  it("a merge whose meta would outgrow the limit is not made, so neither meta loses a key", async () => {
    const { auth } = await workspaceOf(service);
    const half = "x".repeat(Math.ceil(META_MAX_BYTES / 2));
    const first = await service.store(auth, { text: "the deploy target is eu west 1", meta: { older: half } }, {});
    const second = await service.store(auth, { text: "the deploy target is eu west 1", meta: { newer: half } }, {});
    expect(second.dedup.action).toBe("stored_new");
    const got = await service.retrieve(auth, { query: "deploy target", top_k: 5, min_score: 0 });
    const metaOf = (id: number) => got.memories.find((m) => m.id === id)!.meta;
    expect(metaOf(first.memory_id)).toMatchObject({ older: half });
    expect(metaOf(second.memory_id)).toMatchObject({ newer: half });
  });
});
