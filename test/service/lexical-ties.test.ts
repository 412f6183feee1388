// Memories that hold the same query words score the same in the lexical channel, and a chat's speaker name is in every
// turn: the channel's depth (50) then cuts through hundreds of equal scores. Memory ids are random, so a cut by id kept
// a different subset each time the same memories were written, and the same questions got different answers (scores,
// order) from one workspace to the next. Ties now go newest first (shared-sql.ts rankPostings): two workspaces given
// the same memories in the same order answer the same. Through the real `serve` (SQLite here; PostgreSQL under
// test/postgres/vitest.service.config.ts).
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { call, startService, type ServiceHandle, type WorkspaceKey } from "../support/service.js";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const THINGS = [
  "garden",
  "bicycle",
  "piano",
  "kitchen",
  "passport",
  "laptop",
  "violin",
  "tent",
  "aquarium",
  "balcony",
  "camera",
  "canoe",
  "chessboard",
  "compost heap",
  "drone",
  "easel",
  "fireplace",
  "greenhouse",
  "hammock",
  "kayak",
  "lantern",
  "microscope",
  "motorbike",
  "notebook",
  "oven",
  "pottery wheel",
  "projector",
  "quilt",
  "rowing machine",
  "sailboat",
  "skateboard",
  "sourdough starter",
  "telescope",
  "treehouse",
  "typewriter",
  "ukulele",
  "vinyl collection",
  "wardrobe",
  "workbench",
  "yoga mat",
];
const DOINGS = ["fixed the", "painted the", "sold the"];
/** 120 turns of one speaker, each its own fact (a thing, a deed and a number of its own: nothing merges). */
const TURNS = DOINGS.flatMap((doing, d) => THINGS.map((thing, t) => `Sam: I ${doing} ${thing} on day ${d * 40 + t + 1} of the year.`));
const QUESTIONS = [
  "What did Sam say about the garden?",
  "Did Sam mention anything about music?",
  "What did Sam sell?",
  "What happened with the boat, Sam?",
  "What did Sam do on day 7?",
  "Which things did Sam paint?",
];

let service: ServiceHandle;
let first: WorkspaceKey;
let second: WorkspaceKey;

async function storeAll(key: WorkspaceKey): Promise<string[]> {
  const actions: string[] = [];
  for (const text of TURNS) {
    const res = await call(service.baseURL, "POST", "/v1/memory/store", { key: key.apiKey, json: { text } });
    expect(res.status).toBe(200);
    actions.push(res.json.dedup.action);
  }
  return actions;
}

/** A question's answer without the ids (random per memory) and without the timestamps: text, score, similarity. */
async function answer(key: WorkspaceKey, query: string): Promise<{ text: string; score: number; similarity: number }[]> {
  const res = await call(service.baseURL, "POST", "/v1/memory/retrieve", {
    key: key.apiKey,
    json: { query, top_k: 10, min_score: 0 },
  });
  expect(res.status).toBe(200);
  return res.json.memories.map((m: { text: string; score: number; similarity: number }) => ({
    text: m.text,
    score: m.score,
    similarity: m.similarity,
  }));
}

beforeAll(async () => {
  service = await startService();
  first = await service.newWorkspace("ties-first");
  second = await service.newWorkspace("ties-second");
  for (const key of [first, second]) expect(new Set(await storeAll(key))).toEqual(new Set(["stored_new"]));
});
afterAll(async () => {
  await service?.stop();
});

it("two workspaces given the same memories in the same order answer the same questions alike", async () => {
  for (const query of QUESTIONS) {
    const a = await answer(first, query);
    expect(a.length).toBe(10);
    // Asked of the second workspace right after the first: both have now been asked the same questions in turn.
    const b = await answer(second, query);
    expect(
      b.map((m) => m.text),
      query,
    ).toEqual(a.map((m) => m.text));
    // The same scores but for recency, which counts the milliseconds since each write (a millionth at most here).
    b.forEach((m, i) => {
      expect(Math.abs(m.score - a[i]!.score), `${query}: ${m.text}`).toBeLessThan(1e-5);
      expect(m.similarity).toBe(a[i]!.similarity);
    });
  }
});
