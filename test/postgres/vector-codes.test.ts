// Each vector's int8 codes are stored beside its floats (issue 27, migration 9 on both stores), so a vector index
// loads codes instead of quantizing every row. A store written before migration 9 (simulated here by removing the
// column and the migration's record) has every row's codes filled by the migration; nothing is dropped; and an index
// built from codes answers exactly as one built from floats.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { vectorCodes } from "../../src/service/retrieval/int8-kernel.js";
import { VectorIndexes, WorkspaceIndex, storeSource } from "../../src/service/retrieval/vector-index.js";
import { openPostgresStore } from "../../src/service/store/postgres/index.js";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import type { MemoryStore, NewMemory } from "../../src/service/store/types.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { ROOT } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const T0 = Date.UTC(2025, 0, 1);
const DIMS = 16;
const EMBEDDER = "emb/1";

let seed = 7;
const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
function unit(): Float32Array {
  const v = Float32Array.from({ length: DIMS }, random);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}
const memory = (workspaceId: number, i: number, embedder = EMBEDDER, vector = unit()): NewMemory => ({
  workspace_id: workspaceId,
  text: `fact ${i}`,
  meta: {},
  vector,
  embedder_id: embedder,
  importance: 5,
  temporal_type: "persistent",
  valid_until: null,
  categories: ["personal"],
  created_at: T0 + i,
});

interface Opened {
  store: MemoryStore;
  /** Makes the store look as written before migration 9: no codes column, migration 9 not recorded. */
  unmigrate(): Promise<void>;
  /** Makes the store look as written before migration 12: no vector snapshots. */
  unsnapshot(): Promise<void>;
  /** [id, float bytes, code bytes] of every stored vector. */
  rows(): Promise<[number, Buffer, Buffer | null][]>;
  reopen(): Promise<MemoryStore>;
}

const dir = mkdtempSync(join(tmpdir(), "brain-vector-codes-"));
let cluster: PgCluster | undefined;
const stores: { name: string; open: () => Promise<Opened> }[] = [
  {
    name: "SQLite",
    open: async () => {
      const file = join(dir, `${Math.random()}.db`);
      const sql = <T>(run: (db: Database.Database) => T): T => {
        const db = new Database(file);
        try {
          return run(db);
        } finally {
          db.close();
        }
      };
      return {
        store: openSqliteStore(file),
        unmigrate: async () =>
          void sql((db) =>
            db.exec(
              "DROP INDEX memories_vector_scan; ALTER TABLE memory_vectors DROP COLUMN codes; " +
                "DROP TABLE vector_snapshot_chunks; DROP TABLE vector_snapshots; PRAGMA user_version = 8;",
            ),
          ),
        unsnapshot: async () =>
          void sql((db) => db.exec("DROP TABLE vector_snapshot_chunks; DROP TABLE vector_snapshots; PRAGMA user_version = 11;")),
        rows: async () =>
          sql((db) => db.prepare("SELECT memory_id, vector, codes FROM memory_vectors ORDER BY memory_id").raw().all()) as [
            number,
            Buffer,
            Buffer | null,
          ][],
        reopen: async () => openSqliteStore(file),
      };
    },
  },
];
if (canStartPostgres()) {
  stores.push({
    name: "PostgreSQL",
    open: async () => {
      cluster ??= await startPostgres();
      const url = await cluster.createDatabase();
      const sql = async (text: string) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          return (await client.query({ text, rowMode: "array" })).rows as unknown[][];
        } finally {
          await client.end();
        }
      };
      return {
        store: await openPostgresStore(url),
        unmigrate: async () =>
          void (await sql("ALTER TABLE memories DROP COLUMN vector_codes; DELETE FROM brain_migrations WHERE version = 9")),
        unsnapshot: async () =>
          void (await sql(
            "DROP TABLE vector_snapshot_chunks; DROP TABLE vector_snapshots; DELETE FROM brain_migrations WHERE version = 12",
          )),
        rows: async () =>
          (await sql("SELECT id, vector, vector_codes FROM memories ORDER BY id")).map(
            (r) => [Number(r[0]), r[1], r[2]] as [number, Buffer, Buffer | null],
          ),
        reopen: () => openPostgresStore(url),
      };
    },
  });
}

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const floatsOf = (bytes: Buffer) => new Float32Array(new Uint8Array(bytes).buffer);

describe.each(stores)("vector codes on $name", ({ open }) => {
  it("writes store codes with each vector; an old store's rows get theirs from migration 9; an index reads them", async () => {
    const opened = await open();
    let store = opened.store;
    try {
      const ws = (await store.insertWorkspace({ name: "w", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
      await store.writeInWorkspace(ws, async (tx) => {
        for (let i = 0; i < 40; i++) await tx.insertMemory(memory(ws, i));
        // Another model's vector (longer): stored with codes, but always read as floats by this model's index.
        await tx.insertMemory(
          memory(
            ws,
            40,
            "other/2",
            Float32Array.from({ length: 24 }, (_, d) => (d === 0 ? 1 : 0)),
          ),
        );
      });
      for (const [, vector, codes] of await opened.rows()) expect(codes).toEqual(vectorCodes(floatsOf(vector)));

      // As written before migration 9: no codes. Reopening migrates, and the migration fills every row's codes.
      await store.close();
      await opened.unmigrate();
      store = await opened.reopen();
      const rows = await opened.rows();
      expect(rows).toHaveLength(41);
      for (const [, vector, codes] of rows) expect(codes).toEqual(vectorCodes(floatsOf(vector)));

      // An update rewrites the codes with the vector.
      const changed = unit();
      // A memory of this model: ids are random, so the lowest may be the other model's (then the check below failed).
      const first = rows.find(([, vector]) => vector.byteLength === DIMS * 4)![0];
      await store.writeInWorkspace(ws, (tx) => tx.updateMemory(first, { vector: changed }, T0 + 100));
      expect((await opened.rows()).find((r) => r[0] === first)![2]).toEqual(vectorCodes(changed));

      // Asked for this model's codes: its rows come as codes, the other model's as floats; unasked, all as floats.
      const asCodes = await store.vectorsSince(ws, 0, undefined, EMBEDDER);
      expect(asCodes.filter((r) => r.codes).length).toBe(40);
      expect(asCodes.find((r) => r.embedder_id === "other/2")!.vector.length).toBe(24);
      expect((await store.vectorsSince(ws, 0)).every((r) => !r.codes && r.vector.length > 0)).toBe(true);

      // An index loaded from codes holds what one loaded from floats holds: the same answers, exactly.
      const fromCodes = new WorkspaceIndex(DIMS, EMBEDDER);
      fromCodes.apply(await storeSource(store, ws).vectorsSince(0, undefined, EMBEDDER));
      const fromFloats = new WorkspaceIndex(DIMS, EMBEDDER);
      fromFloats.apply(await store.vectorsSince(ws, 0));
      const floats = (ids: readonly number[]) => store.vectorsOf(ws, ids);
      for (let q = 0; q < 10; q++) {
        const query = unit();
        const a = await fromCodes.search(query, -1, 5, floats);
        expect(a).toHaveLength(5);
        expect(a).toEqual(await fromFloats.search(query, -1, 5, floats));
      }
      expect(fromCodes.size).toBe(40);
      expect(fromCodes.bytes).toBe(fromFloats.bytes);
    } finally {
      await store.close();
    }
  });

  it("a store from before migration 12 gains snapshots; one stored by a process loads in the next; a forget drops it", async () => {
    const opened = await open();
    let store = opened.store;
    try {
      const ws = (await store.insertWorkspace({ name: "s", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
      await store.writeInWorkspace(ws, async (tx) => {
        for (let i = 0; i < 60; i++) await tx.insertMemory(memory(ws, i));
      });
      await store.close();
      await opened.unsnapshot();
      store = await opened.reopen();
      // The first load reads row by row and stores a snapshot (here after 20 rows).
      const first = new VectorIndexes(DIMS, EMBEDDER, undefined, 20);
      expect(await store.readVectorSnapshot(ws, EMBEDDER)).toBeNull();
      expect((await first.refreshShared(ws, storeSource(store, ws))).size).toBe(60);
      await first.settled();
      expect(await store.readVectorSnapshot(ws, EMBEDDER)).toMatchObject({ rows: 60, chunks: 1, dimensions: DIMS });
      await store.writeInWorkspace(ws, async (tx) => {
        for (let i = 60; i < 65; i++) await tx.insertMemory(memory(ws, i));
      });
      await store.close();
      store = await opened.reopen();
      // The next process: the snapshot, then the 5 rows after it; the same answers as a load row by row.
      const loaded = await new VectorIndexes(DIMS, EMBEDDER).refreshShared(ws, storeSource(store, ws));
      expect(loaded.rowsSinceSnapshot).toBe(5);
      const rowByRow = new WorkspaceIndex(DIMS, EMBEDDER);
      rowByRow.apply(await store.vectorsSince(ws, 0));
      const floats = (ids: readonly number[]) => store.vectorsOf(ws, ids);
      for (let q = 0; q < 10; q++) {
        const query = unit();
        expect(await loaded.search(query, -1, 5, floats)).toEqual(await rowByRow.search(query, -1, 5, floats));
      }
      // A forget drops the snapshot (its chunks may hold the codes), and one made before the forget is refused.
      const header = { embedderId: EMBEDDER, dimensions: DIMS, upToRev: loaded.maxRev, rows: loaded.size };
      const [gone] = (await store.vectorsSince(ws, 0)).map((r) => r.id);
      expect(await store.deleteMemories(ws, [gone!])).toEqual([gone]);
      expect(await store.readVectorSnapshot(ws, EMBEDDER)).toBeNull();
      expect(await store.writeVectorSnapshot(ws, header, loaded.snapshotChunks())).toBe(false);
      expect(await store.readVectorSnapshot(ws, EMBEDDER)).toBeNull();
    } finally {
      await store.close();
    }
  });

  it("a snapshot's chunks come back byte for byte (every byte value), aligned; a replaced one's chunks are gone", async () => {
    const { store } = await open();
    try {
      const ws = (await store.insertWorkspace({ name: "b", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 })).id;
      // Bytes that are not UTF-8 (lone continuation bytes, 0xC0/0xFF), NULs, and a chunk larger than a socket read.
      const chunks = [
        Uint8Array.from({ length: 256 }, (_, i) => i),
        Uint8Array.from({ length: 300_001 }, (_, i) => (i * 7919 + (i >> 8)) & 255),
        new Uint8Array([0x80, 0xbf, 0xc0, 0xff, 0, 0xe2, 0x82]),
        // More chunks than PostgreSQL reads in one round trip.
        ...Array.from({ length: 5 }, (_, k) => new Uint8Array([k, 0xff - k, 0xc3])),
      ];
      const header = { embedderId: EMBEDDER, dimensions: DIMS, upToRev: 0, rows: chunks.length };
      expect(await store.writeVectorSnapshot(ws, header, chunks)).toBe(true);
      const stored = (await store.readVectorSnapshot(ws, EMBEDDER))!;
      expect(stored).toMatchObject({ chunks: 8, rows: 8 });
      for (let c = 0; c < chunks.length; c++) {
        const read = (await stored.readChunk(c))!;
        expect(read.byteOffset % 8).toBe(0);
        expect(Buffer.from(read.buffer, read.byteOffset, read.byteLength).equals(Buffer.from(chunks[c]!))).toBe(true);
      }
      expect(await stored.readChunk(8)).toBeNull();
      // Another process stores a newer snapshot meanwhile: the older one's chunks are deleted, so a load reads rows.
      expect(await store.writeVectorSnapshot(ws, header, [chunks[2]!])).toBe(true);
      expect(await stored.readChunk(0)).toBeNull();
      expect(new Uint8Array((await (await store.readVectorSnapshot(ws, EMBEDDER))!.readChunk(0))!)).toEqual(chunks[2]);
    } finally {
      await store.close();
    }
  });
});

it("a store file written by 0.3.0 keeps every memory and gains every vector's codes when opened", async () => {
  const file = join(dir, "store-0.3.0.db");
  copyFileSync(join(ROOT, "test", "fixtures", "store-0.3.0", "store.db"), file);
  const store = openSqliteStore(file);
  await store.close();
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT v.vector, v.codes FROM memory_vectors v JOIN memories m ON m.id = v.memory_id").raw().all() as [
      Buffer,
      Buffer,
    ][];
    expect(rows).toHaveLength(6);
    for (const [vector, codes] of rows) expect(codes).toEqual(vectorCodes(floatsOf(vector)));
  } finally {
    db.close();
  }
});
