// PostgreSQL's lexical index folds case and diacritics as SQLite's does (migration 14). A store written before it
// (simulated by putting the column back as migration 5 made it and removing the record) keeps every memory, and its
// words are found without their marks once it opens; a database that is not UTF8 migrates too, folding case only.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openPostgresStore } from "../../src/service/store/postgres/index.js";
import type { MemoryStore } from "../../src/service/store/types.js";
import { newMemory } from "../support/new-memory.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const TEXTS = [
  "José fixed the boiler on Tuesday.",
  "Zoë's flight to Kraków lands at 18:40.",
  "The ÉCOLE board meets in the Salle Müller.",
  "Plain ASCII text about the harbour lantern.",
];

async function sql(url: string, text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Every column of every memory but the generated lexemes, in id order. */
const memoryRows = (url: string) =>
  sql(
    url,
    `SELECT id, workspace_id, text, meta, vector, vector_codes, embedder_id, importance, temporal_type, valid_until,
            categories, created_at, updated_at, last_accessed_at, access_count, rev
       FROM memories ORDER BY id`,
  );

/** The store as migration 13 left it: the lexemes of the raw text, no fold function, no record of migration 14. */
const UNMIGRATE = `
  ALTER TABLE memories DROP COLUMN lexemes;
  ALTER TABLE memories ADD COLUMN lexemes tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED;
  CREATE INDEX memories_lexemes ON memories USING gin (lexemes) WITH (fastupdate = off);
  DROP FUNCTION brain_lexical_fold(text);
  DELETE FROM brain_migrations WHERE version = 14;`;

describe.skipIf(!canStartPostgres())("PostgreSQL's lexical index folds case and diacritics (migration 14)", () => {
  let cluster: PgCluster;

  beforeAll(async () => {
    cluster = await startPostgres();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  async function filled(url: string): Promise<{ store: MemoryStore; ws: number; ids: number[] }> {
    const store = await openPostgresStore(url);
    const ws = (await store.insertWorkspace({ name: "fold", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 })).id;
    const ids: number[] = [];
    await store.writeInWorkspace(ws, async (tx) => {
      for (const [i, text] of TEXTS.entries()) ids.push((await tx.insertMemory(newMemory(ws, text, i + 1))).id);
    });
    return { store, ws, ids };
  }

  const found = async (store: MemoryStore, ws: number, word: string) => (await store.searchText(ws, [word], 10)).map((m) => m.id);

  it("migrates a store written before it: every memory kept as it was, its words then found without their marks", async () => {
    const url = await cluster.createDatabase();
    const written = await filled(url);
    const { ws, ids } = written;
    await written.store.close();
    await sql(url, UNMIGRATE);
    const before = await memoryRows(url);
    expect(before).toHaveLength(TEXTS.length);
    // What the index held before: the marks and capitals as written, so "jose" and "ecole" found nothing.
    expect(await sql(url, "SELECT count(*)::int AS n FROM memories WHERE lexemes @@ to_tsquery('simple', 'jose:*')")).toEqual([{ n: 0 }]);

    const store = await openPostgresStore(url);
    try {
      expect(await memoryRows(url)).toEqual(before);
      expect(await sql(url, "SELECT name FROM brain_migrations WHERE version = 14")).toEqual([
        { name: "lexical index folds case and diacritics" },
      ]);
      expect(await found(store, ws, "jose")).toEqual([ids[0]]);
      expect(await found(store, ws, "zoe")).toEqual([ids[1]]);
      expect(await found(store, ws, "krakow")).toEqual([ids[1]]);
      expect(await found(store, ws, "école")).toEqual([ids[2]]);
      expect(await found(store, ws, "muller")).toEqual([ids[2]]);
      expect(await found(store, ws, "harbour")).toEqual([ids[3]]);
      // The index is whole again: GIN, no pending list (migration 6's setting kept).
      expect(await sql(url, "SELECT reloptions FROM pg_class WHERE relname = 'memories_lexemes'")).toEqual([
        { reloptions: ["fastupdate=off"] },
      ]);
      // A new memory is folded by the same generated column.
      let added = 0;
      await store.writeInWorkspace(ws, async (tx) => {
        added = (await tx.insertMemory(newMemory(ws, "Señora Núñez called about the Café Größe order.", 9))).id;
      });
      expect(await found(store, ws, "nunez")).toEqual([added]);
      expect(await found(store, ws, "cafe")).toEqual([added]);
    } finally {
      await store.close();
    }
  });

  it("migrates a database that is not UTF8 too, folding case only", async () => {
    const admin = await cluster.createDatabase();
    const name = `latin_${Date.now()}`;
    await sql(admin, `CREATE DATABASE ${name} ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
    const url = admin.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
    const store = await openPostgresStore(url);
    try {
      const ws = (await store.insertWorkspace({ name: "ascii", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 }))
        .id;
      let id = 0;
      await store.writeInWorkspace(ws, async (tx) => {
        id = (await tx.insertMemory(newMemory(ws, "The HARBOUR Lantern is lit at dusk.", 1))).id;
      });
      expect(await found(store, ws, "harbour")).toEqual([id]);
      expect(await found(store, ws, "lantern")).toEqual([id]);
      expect(await sql(url, "SELECT prosrc FROM pg_proc WHERE proname = 'brain_lexical_fold'")).toEqual([{ prosrc: "SELECT lower(t)" }]);
    } finally {
      await store.close();
    }
  });
});
