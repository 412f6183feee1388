// A retrieve reads the lexical channel's records and float rows while the model embeds the query (sqlrecall): a
// bookkeeping write landing in that window neither loses nor doubles the counts its answer shows.
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { batchReadBookkeeping } from "../../src/service/bookkeeping.js";
import type { Embedder } from "../../src/service/models/types.js";
import { retrieveMemories } from "../../src/service/retrieval/retrieve.js";
import { VectorIndexes } from "../../src/service/retrieval/vector-index.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import type { MemoryStore } from "../../src/service/store/types.js";
import type { ServiceLog } from "../../src/service/types.js";
import { tempDir } from "./support.js";

const T0 = Date.UTC(2025, 0, 1);
const log: ServiceLog = { debug() {}, info() {}, warn() {}, error() {} };
const tmp = tempDir();
let store: MemoryStore;
beforeAll(() => {
  store = openSqliteStore(join(tmp.dir, "overlap.db"));
});
afterAll(async () => {
  await store.close();
  tmp.cleanup();
});

it("counts written while the model embeds show once in the answer, as in the store afterwards", async () => {
  const { id: ws } = await store.insertWorkspace({ name: "o", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 });
  const [grandma, other] = await store.writeInWorkspace(ws, async (tx) =>
    Promise.all(
      (
        [
          ["grandma lives in sweden", [1, 0, 0]],
          ["the pottery class is on friday", [0, 1, 0]],
        ] as const
      ).map(
        async ([text, v]) =>
          (
            await tx.insertMemory({
              workspace_id: ws,
              text,
              meta: {},
              vector: Float32Array.from(v),
              embedder_id: "test-emb",
              importance: 5,
              temporal_type: "persistent",
              valid_until: null,
              categories: [],
              created_at: T0,
            })
          ).id,
      ),
    ),
  );
  let release: () => void = () => {};
  let hold = false;
  const embedder = {
    id: "test-emb",
    dimensions: 3,
    dedupThreshold: 0.9,
    load: async () => {},
    embed: async (texts: string[]) => {
      if (hold) await new Promise<void>((resolve) => (release = resolve));
      return texts.map(() => Float32Array.of(1, 0, 0));
    },
  } as unknown as Embedder;
  const reads = batchReadBookkeeping(store, log, 60_000);
  const deps = { store, reads, indexes: new VectorIndexes(3, "test-emb", 1 << 20), embedder, now: () => new Date(T0 + 10_000) };
  const input = { query: "where does grandma live in sweden", top_k: 5, min_score: 0 };

  const first = await retrieveMemories(deps, ws, input);
  expect(first.memories.map((m) => [m.id, m.access_count])).toEqual([[grandma, 1]]);
  hold = true;
  const second = retrieveMemories(deps, ws, input);
  // the lexical channel (and its rows) is read a turn after the query goes to the model; then the waiting count is written
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await reads.flush();
  expect((await store.getMemories(ws, [grandma!]))[0]!.access_count).toBe(1);
  release();
  expect((await second).memories.map((m) => [m.id, m.access_count])).toEqual([[grandma, 2]]);
  await reads.close();
  expect((await store.getMemories(ws, [grandma!, other!])).map((m) => [m.id, m.access_count]).sort()).toEqual(
    [
      [grandma, 2],
      [other, 0],
    ].sort(),
  );
});
