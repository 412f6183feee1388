// A forgotten memory's id is never given to another memory, on either store: the id generator is made to offer the
// forgotten id again, and the store must pass it over (and give up, with an error and nothing written, when it is
// offered nothing else).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { MemoryStore, NewMemory } from "../../src/service/store/types.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";

/** The ids the generator offers next, in order; empty: its own random draw. */
const offered: number[] = [];
vi.mock("../../src/service/store/memory-ids.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/service/store/memory-ids.js")>();
  return { ...real, newMemoryId: () => offered.shift() ?? real.newMemoryId() };
});

const { openSqliteStore } = await import("../../src/service/store/sqlite/index.js");
const { openPostgresStore } = await import("../../src/service/store/postgres/index.js");

const T0 = Date.UTC(2025, 0, 1);
const memory = (workspaceId: number, text: string): NewMemory => ({
  workspace_id: workspaceId,
  text,
  meta: {},
  vector: new Float32Array([1, 0, 0]),
  embedder_id: "emb",
  importance: 5,
  temporal_type: "persistent",
  valid_until: null,
  categories: ["personal"],
  created_at: T0,
});

const dir = mkdtempSync(join(tmpdir(), "brain-forgotten-ids-"));
let cluster: PgCluster | undefined;
const stores: { name: string; open: () => Promise<MemoryStore> }[] = [
  { name: "SQLite", open: async () => openSqliteStore(join(dir, `${Math.random()}.db`)) },
];
if (canStartPostgres()) {
  stores.push({
    name: "PostgreSQL",
    open: async () => {
      cluster ??= await startPostgres();
      return openPostgresStore(await cluster.createDatabase());
    },
  });
}

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(stores)("forgotten ids on $name", ({ open }) => {
  it("a forgotten id offered again is passed over; offered nothing else, the insert fails and writes nothing", async () => {
    const store = await open();
    try {
      const ws = (await store.insertWorkspace({ name: "w", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
      const gone = 2 ** 32 + 7;
      const next = 2 ** 32 + 8;
      offered.push(gone);
      expect((await store.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "the wrong fact")))).id).toBe(gone);
      expect(await store.deleteMemories(ws, [gone])).toEqual([gone]);

      offered.push(gone, next);
      const fresh = await store.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "the right fact")));
      expect(fresh.id).toBe(next);
      expect(await store.getMemories(ws, [gone])).toEqual([]);

      offered.push(gone, gone, gone, gone, gone);
      await expect(store.writeInWorkspace(ws, (tx) => tx.insertMemory(memory(ws, "never written")))).rejects.toThrow(/no free memory id/);
      expect(offered).toEqual([]);
      expect((await store.listMemories(ws)).map((m) => m.text)).toEqual(["the right fact"]);
    } finally {
      offered.length = 0;
      await store.close();
    }
  });
});
