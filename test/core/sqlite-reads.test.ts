// SQLite's retrieve reads (sqlrecall): the candidates' float rows as one concatenated read and their records as arrays
// give what the row-by-row reads gave: the same ids, revs, models, floats and records, damaged rows included.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDriver, openSqliteStore } from "../../src/service/store/sqlite/index.js";
import type { MemoryStore, NewMemory } from "../../src/service/store/types.js";

const T0 = Date.UTC(2025, 0, 1);
const dir = mkdtempSync(join(tmpdir(), "brain-sqlite-reads-"));
const path = join(dir, "brain.db");
let store: MemoryStore;
let ws: number;
const ids: number[] = [];

function memory(i: number): NewMemory {
  return {
    workspace_id: ws,
    text: `memory ${i}: the release checklist of team ${i}`,
    meta: { n: i, tags: ["a", "b"] },
    vector: new Float32Array([i, -i / 3, 0.5, 1e-7 * i]),
    embedder_id: i % 7 === 0 ? "other-model" : "emb",
    importance: 1 + (i % 10),
    temporal_type: i % 5 === 0 ? "time_bound" : "persistent",
    valid_until: i % 5 === 0 ? T0 + i * 1000 : null,
    categories: i % 2 === 0 ? ["work"] : [],
    created_at: T0 + i,
  };
}

beforeAll(async () => {
  store = openSqliteStore(path);
  ws = (await store.insertWorkspace({ name: "reads", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
  await store.writeInWorkspace(ws, async (tx) => {
    for (let i = 0; i < 700; i++) ids.push((await tx.insertMemory(memory(i))).id);
  });
  await store.touchMemories(ws, ids.slice(0, 3), T0 + 5_000);
  // Damaged rows, as an old or broken file may hold them: a vector of 3 bytes (not whole floats) and one of 6.
  const db = new (loadDriver())(path);
  db.prepare("UPDATE memory_vectors SET vector = ? WHERE memory_id = ?").run(Buffer.from([1, 2, 3]), ids[10]);
  db.prepare("UPDATE memory_vectors SET vector = ? WHERE memory_id = ?").run(
    Buffer.from(new Float32Array([1.5, 2]).buffer).subarray(0, 6),
    ids[11],
  );
  db.close();
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const floatsOf = (rows: { id: number; rev: number; embedder_id: string; vector: Float32Array }[]) =>
  new Map(rows.map((r) => [r.id, [r.rev, r.embedder_id, [...r.vector]]]));

describe("SQLite's retrieve reads", () => {
  it("read a few float rows in one read as the long row-by-row read gives them, damaged rows included", async () => {
    // 600 ids take the row-by-row read (over JOINED_VECTORS_MAX_IDS), 64 of them the one concatenated read.
    const all = floatsOf(await store.vectorsOf(ws, [...ids.slice(0, 600), 999_999]));
    expect(all.size).toBe(600);
    const asked = [ids[12]!, ids[10]!, ids[11]!, ...ids.slice(100, 160), ids[7]!, 999_999];
    const few = await store.vectorsOf(ws, asked);
    expect(few).toHaveLength(asked.length - 1);
    for (const row of few) expect([row.id, ...all.get(row.id)!]).toEqual([row.id, row.rev, row.embedder_id, [...row.vector]]);
    const byId = new Map(few.map((r) => [r.id, r]));
    expect(byId.get(ids[10]!)!.vector).toHaveLength(0);
    expect([...byId.get(ids[11]!)!.vector]).toEqual([1.5]);
    expect([...byId.get(ids[12]!)!.vector]).toEqual([...new Float32Array([12, -4, 0.5, 1.2e-6])]);
    expect(byId.get(ids[7]!)!.embedder_id).toBe("other-model");
    expect(await store.vectorsOf(ws, [999_999])).toEqual([]);
  });

  it("read the candidates' records field for field as the store's other reads give them", async () => {
    const listed = new Map((await store.listMemories(ws)).map((m) => [m.id, m]));
    const asked = [ids[0]!, ids[5]!, ids[10]!, ...ids.slice(200, 260), 999_999];
    const records = await store.getMemories(ws, asked);
    expect(records).toHaveLength(asked.length - 1);
    for (const r of records) {
      expect(r).toStrictEqual(listed.get(r.id));
      expect(Object.keys(r)).toEqual(Object.keys(listed.get(r.id)!));
    }
    expect(records.find((r) => r.id === ids[0])).toMatchObject({ access_count: 1, last_accessed_at: T0 + 5_000, meta: { n: 0 } });
    expect(records.find((r) => r.id === ids[5])).toMatchObject({ temporal_type: "time_bound", valid_until: T0 + 5_000 });
    expect(await store.getMemories(ws + 1, asked)).toEqual([]);
  });
});
