// A retrieve asks the model before it runs SQLite's lexical search, so the two run side by side: the model's batcher
// (models/batching.ts) posts a query to its worker from a setImmediate, and SQLite's search is synchronous on the
// service's thread. Queued the other way round, the search ran first and the model's time came after it (a retrieve's
// p50 grew by 3-4 ms at 10,000 memories; test/bench/README.md, "Issue 27 on this session's merged build").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { directReads } from "../../src/service/bookkeeping.js";
import type { Embedder } from "../../src/service/models/types.js";
import { rankCandidates } from "../../src/service/retrieval/retrieve.js";
import { VectorIndexes } from "../../src/service/retrieval/vector-index.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import type { MemoryStore } from "../../src/service/store/types.js";
import { newMemory } from "../support/new-memory.js";

const dir = mkdtempSync(join(tmpdir(), "brain-retrieve-order-"));
let store: MemoryStore;
let ws: number;

beforeAll(async () => {
  store = openSqliteStore(join(dir, "brain.db"));
  ws = (await store.insertWorkspace({ name: "order", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 })).id;
  await store.writeInWorkspace(ws, async (tx) => {
    for (const text of ["The billing service runs on Fridays.", "Priya owns the staging cluster."]) {
      await tx.insertMemory(newMemory(ws, text));
    }
  });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it("posts the query to the model before SQLite's lexical search runs", async () => {
  const events: string[] = [];
  // As the batcher does: the call returns at once and the post to the worker happens in a setImmediate.
  const embedder: Embedder = {
    id: "emb-a",
    dimensions: 3,
    dedupThreshold: 0.9,
    load: async () => {},
    embed: (texts) =>
      new Promise((resolve) =>
        setImmediate(() => {
          events.push("model posted");
          resolve(texts.map(() => new Float32Array([1, 0, 0])));
        }),
      ),
  };
  const searchText = store.searchText.bind(store);
  const observed: MemoryStore = Object.assign(Object.create(store) as MemoryStore, {
    searchText: (...args: Parameters<MemoryStore["searchText"]>) => {
      events.push("lexical search");
      return searchText(...args);
    },
  });
  const ranked = await rankCandidates(
    { store: observed, reads: directReads(store), indexes: new VectorIndexes(3, "emb-a"), embedder },
    ws,
    "Who owns the staging cluster?",
    Date.UTC(2025, 0, 2),
  );
  expect(events).toEqual(["model posted", "lexical search"]);
  expect(ranked).not.toBeNull();
});
