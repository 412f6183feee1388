// The PostgreSQL schema as an ordered list of migrations. Applied on every start under an advisory lock, so several
// processes starting together migrate once; each version is recorded in `brain_migrations` and never re-run.
// Append new migrations; never edit an applied one.
import type { PoolClient } from "pg";
import { POSTGRES_WEBHOOKS_MIGRATION } from "../../webhooks/schema.js";
import { vectorCodes } from "../../retrieval/int8-kernel.js";
import { bytesToVector } from "../shared-sql.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Work after `sql` that SQL alone cannot do, in the same transaction. */
  after?: (client: PoolClient) => Promise<void>;
}

/** Rows per statement while migration 9 fills the codes of the vectors already stored. */
const CODES_BACKFILL_ROWS = 2_000;

/** Migration 9's backfill: each stored vector's codes, computed by the function every write uses, a page at a time. */
async function backfillVectorCodes(client: PoolClient): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await client.query<{ id: string; vector: Buffer }>(
      "SELECT id, vector FROM memories WHERE id > $1 AND vector_codes IS NULL ORDER BY id LIMIT $2",
      [after, CODES_BACKFILL_ROWS],
    );
    if (rows.length === 0) return;
    await client.query(
      "UPDATE memories m SET vector_codes = u.codes FROM unnest($1::bigint[], $2::bytea[]) AS u(id, codes) WHERE m.id = u.id",
      // A damaged vector (not whole float32s) gets no codes: it stays readable as floats, and the upgrade goes through.
      [rows.map((r) => r.id), rows.map((r) => (r.vector.byteLength % 4 === 0 ? vectorCodes(bytesToVector(r.vector)) : null))],
    );
    after = Number(rows[rows.length - 1]!.id);
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      CREATE TABLE workspaces (
        id            text PRIMARY KEY,
        name          text NOT NULL,
        plan          text NOT NULL,
        billing_cycle text NOT NULL,
        status        text NOT NULL,
        created_at    bigint NOT NULL
      );
      CREATE TABLE api_keys (
        id           text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        key_hash     text NOT NULL UNIQUE,
        prefix       text NOT NULL,
        created_at   bigint NOT NULL,
        revoked_at   bigint
      );
      CREATE INDEX api_keys_workspace ON api_keys (workspace_id);
      CREATE TABLE memories (
        id               text PRIMARY KEY,
        workspace_id     text NOT NULL REFERENCES workspaces(id),
        text             text NOT NULL,
        meta             text NOT NULL,
        vector           bytea NOT NULL,
        embedder_id      text NOT NULL,
        importance       integer NOT NULL,
        temporal_type    text NOT NULL,
        valid_until      bigint,
        categories       text NOT NULL,
        created_at       bigint NOT NULL,
        updated_at       bigint NOT NULL,
        last_accessed_at bigint,
        access_count     integer NOT NULL DEFAULT 0,
        rev              bigint NOT NULL
      );
      CREATE UNIQUE INDEX memories_workspace_rev ON memories (workspace_id, rev);
      CREATE INDEX memories_embedder ON memories (embedder_id);
      CREATE TABLE idempotency_keys (
        workspace_id text NOT NULL,
        key          text NOT NULL,
        request_hash text NOT NULL,
        response     text NOT NULL,
        created_at   bigint NOT NULL,
        PRIMARY KEY (workspace_id, key)
      );
      CREATE INDEX idempotency_keys_age ON idempotency_keys (workspace_id, created_at);
      CREATE TABLE usage_events (
        id           bigserial PRIMARY KEY,
        workspace_id text NOT NULL,
        kind         text NOT NULL,
        memory_id    text,
        created_at   bigint NOT NULL
      );
      CREATE INDEX usage_events_workspace ON usage_events (workspace_id, kind);
      -- Unlogged: no WAL, so no fsync per request; after a database crash the buckets simply start full.
      CREATE UNLOGGED TABLE rate_buckets (
        key_id     text PRIMARY KEY,
        tokens     double precision NOT NULL,
        updated_ms bigint NOT NULL,
        allowed    boolean NOT NULL
      );
      CREATE TABLE store_probe (
        id integer PRIMARY KEY,
        at bigint NOT NULL
      );
    `,
  },
  {
    // 0.1.0's text ids (`ws_…`, `key_…`, `mem_…`) become integers assigned in creation order (created_at, then the
    // old id), every reference remapped, each stored idempotent answer rewritten to the current shape. Identity
    // columns (ALWAYS: nothing but the database picks an id) continue above the largest id, so none is reused.
    version: 2,
    name: "integer ids",
    sql: `
      CREATE TEMP TABLE ws_map ON COMMIT DROP AS
        SELECT id AS old_id, row_number() OVER (ORDER BY created_at, id) AS new_id FROM workspaces;
      ALTER TABLE ws_map ADD PRIMARY KEY (old_id);
      CREATE TEMP TABLE key_map ON COMMIT DROP AS
        SELECT id AS old_id, row_number() OVER (ORDER BY created_at, id) AS new_id FROM api_keys;
      ALTER TABLE key_map ADD PRIMARY KEY (old_id);
      CREATE TEMP TABLE mem_map ON COMMIT DROP AS
        SELECT id AS old_id, row_number() OVER (ORDER BY created_at, id) AS new_id FROM memories;
      ALTER TABLE mem_map ADD PRIMARY KEY (old_id);

      -- Lookups usable in ALTER ... USING (which takes no subquery); pg_temp: gone with the session.
      CREATE FUNCTION pg_temp.ws_id(v text) RETURNS bigint LANGUAGE sql STABLE AS 'SELECT new_id FROM ws_map WHERE old_id = v';
      CREATE FUNCTION pg_temp.key_id(v text) RETURNS bigint LANGUAGE sql STABLE AS 'SELECT new_id FROM key_map WHERE old_id = v';
      CREATE FUNCTION pg_temp.mem_id(v text) RETURNS bigint LANGUAGE sql STABLE AS 'SELECT new_id FROM mem_map WHERE old_id = v';

      -- The first answer, as a replay now gives it: integer ids, workspace_id, the specification's field order.
      UPDATE idempotency_keys SET response = json_build_object(
          'status', response::json->'status',
          'memory_id', pg_temp.mem_id(response::json->>'memory_id'),
          'workspace_id', pg_temp.ws_id(workspace_id),
          'dedup', json_build_object(
            'action', response::json->'dedup'->'action',
            'existing_id', pg_temp.mem_id(response::json->'dedup'->>'existing_id')),
          'importance', response::json->'importance',
          'categories', response::json->'categories',
          'temporal', response::json->'temporal')::text;

      ALTER TABLE api_keys DROP CONSTRAINT api_keys_workspace_id_fkey;
      ALTER TABLE memories DROP CONSTRAINT memories_workspace_id_fkey;

      ALTER TABLE workspaces ALTER COLUMN id TYPE bigint USING pg_temp.ws_id(id);
      ALTER TABLE api_keys ALTER COLUMN id TYPE bigint USING pg_temp.key_id(id),
                           ALTER COLUMN workspace_id TYPE bigint USING pg_temp.ws_id(workspace_id);
      ALTER TABLE memories ALTER COLUMN id TYPE bigint USING pg_temp.mem_id(id),
                           ALTER COLUMN workspace_id TYPE bigint USING pg_temp.ws_id(workspace_id);
      ALTER TABLE idempotency_keys ALTER COLUMN workspace_id TYPE bigint USING pg_temp.ws_id(workspace_id);
      ALTER TABLE usage_events ALTER COLUMN workspace_id TYPE bigint USING pg_temp.ws_id(workspace_id),
                               ALTER COLUMN memory_id TYPE bigint USING pg_temp.mem_id(memory_id);
      DELETE FROM rate_buckets WHERE key_id NOT IN (SELECT old_id FROM key_map);
      ALTER TABLE rate_buckets ALTER COLUMN key_id TYPE bigint USING pg_temp.key_id(key_id);

      ALTER TABLE api_keys ADD CONSTRAINT api_keys_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
      ALTER TABLE memories ADD CONSTRAINT memories_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);

      ALTER TABLE workspaces ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
      ALTER TABLE api_keys ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
      ALTER TABLE memories ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
      SELECT setval(pg_get_serial_sequence('workspaces', 'id'), coalesce(max(id), 0) + 1, false) FROM workspaces;
      SELECT setval(pg_get_serial_sequence('api_keys', 'id'), coalesce(max(id), 0) + 1, false) FROM api_keys;
      SELECT setval(pg_get_serial_sequence('memories', 'id'), coalesce(max(id), 0) + 1, false) FROM memories;
      -- The session goes back to the pool: leave nothing of the migration in it.
      DROP FUNCTION pg_temp.ws_id(text), pg_temp.key_id(text), pg_temp.mem_id(text);
    `,
  },
  { version: 3, name: "webhooks", sql: POSTGRES_WEBHOOKS_MIGRATION },
  {
    // A forgotten memory leaves only its id and the rev of its forgetting (never its text): every process's vector
    // cache applies it like any other change, and revs stay strictly increasing after the newest memory is forgotten.
    version: 4,
    name: "forgetting and key use",
    sql: `
      CREATE TABLE memory_tombstones (
        workspace_id bigint NOT NULL REFERENCES workspaces(id),
        rev          bigint NOT NULL,
        memory_id    bigint NOT NULL,
        deleted_at   bigint NOT NULL,
        PRIMARY KEY (workspace_id, rev)
      );
      ALTER TABLE api_keys ADD COLUMN last_used_at bigint;
    `,
  },
  {
    // The store's own lexical index (issue 18): a tsvector of each text under the `simple` configuration (lower case,
    // no stemming, no stop words: names and numbers stay as written), generated by the database in the writing
    // statement itself, so nothing can drift, under a GIN index (ranked in ../shared-sql.ts).
    version: 5,
    name: "lexical index",
    sql: `
      ALTER TABLE memories ADD COLUMN lexemes tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED;
      CREATE INDEX memories_lexemes ON memories USING gin (lexemes);
    `,
  },
  {
    // Every write goes straight into the lexical index. With GIN's fast update, new entries wait in a pending list
    // that every search scans, and the write that fills it (4 MB) merges it: 125 ms for one store at 10,000 memories,
    // against 0.17 ms more per write without it (docs/decisions.md, "PostgreSQL's retrieve tail").
    version: 6,
    name: "lexical index without a pending list",
    sql: `
      ALTER INDEX memories_lexemes SET (fastupdate = off);
      SELECT gin_clean_pending_list('memories_lexemes'::regclass);
    `,
  },
  {
    // Each workspace's number of memories, kept by the database in the statement that inserts or deletes them, so a
    // lexical search reads N (BM25's IDF) from one row instead of counting the workspace: 2.5 ms at 10,000 memories,
    // ten times that at 100,000 (docs/decisions.md, "PostgreSQL's retrieve tail"). Memories never change workspace.
    version: 7,
    name: "memory counts per workspace",
    sql: `
      CREATE TABLE workspace_memory_counts (
        workspace_id bigint PRIMARY KEY REFERENCES workspaces(id),
        memories     bigint NOT NULL
      );
      CREATE FUNCTION brain_count_memories() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO workspace_memory_counts AS c (workspace_id, memories)
            SELECT workspace_id, count(*) FROM new_rows GROUP BY workspace_id
            ON CONFLICT (workspace_id) DO UPDATE SET memories = c.memories + EXCLUDED.memories;
        ELSE
          UPDATE workspace_memory_counts c SET memories = c.memories - gone.n
            FROM (SELECT workspace_id, count(*) AS n FROM old_rows GROUP BY workspace_id) gone
           WHERE c.workspace_id = gone.workspace_id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER memories_counted_in AFTER INSERT ON memories
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION brain_count_memories();
      CREATE TRIGGER memories_counted_out AFTER DELETE ON memories
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION brain_count_memories();
      -- After the triggers: creating them waited for every write in flight and holds off new ones until commit.
      INSERT INTO workspace_memory_counts (workspace_id, memories)
        SELECT workspace_id, count(*) FROM memories GROUP BY workspace_id;
    `,
  },
  {
    version: 8,
    name: "forgotten memory ids",
    // A forgotten memory's id is never drawn again (../memory-ids.ts): looked up among the tombstones on insert.
    sql: "CREATE INDEX memory_tombstones_memory ON memory_tombstones (memory_id);",
  },
  {
    // Each vector's int8 codes beside it (issue 27): an index loads them instead of quantizing every float row. The
    // rows already stored are filled in the migration's transaction (by the writes' own function, in TypeScript: the
    // float32 bytes cannot be read in SQL); a row still without codes is read as floats and quantized, as before.
    version: 9,
    name: "vector codes",
    sql: "ALTER TABLE memories ADD COLUMN vector_codes bytea;",
    after: backfillVectorCodes,
  },
  {
    // ANALYZE copies sampled values into pg_statistic (histograms, most common values), where a forgotten text would
    // outlive its row: no statement filters on a memory's text or meta, so no statistics are kept of them (issue 28).
    version: 11,
    name: "no statistics of memory texts",
    sql: "ALTER TABLE memories ALTER COLUMN text SET STATISTICS 0, ALTER COLUMN meta SET STATISTICS 0;",
  },
  {
    // Each workspace's vector index in chunks of many rows (issue 27), so a load after a restart is a few bulk reads
    // (../../retrieval/vector-snapshot.ts); empty until a process has loaded an index, which then stores one. A chunk
    // belongs to a generation, and the workspace's row names the generation that is complete.
    version: 12,
    name: "vector snapshots",
    sql: `
      CREATE TABLE vector_snapshots (
        workspace_id bigint PRIMARY KEY REFERENCES workspaces(id),
        embedder_id  text NOT NULL,
        dimensions   integer NOT NULL,
        up_to_rev    bigint NOT NULL,
        rows         integer NOT NULL,
        generation   bigint NOT NULL,
        chunks       integer NOT NULL
      );
      CREATE TABLE vector_snapshot_chunks (
        workspace_id bigint NOT NULL REFERENCES workspaces(id),
        generation   bigint NOT NULL,
        chunk        integer NOT NULL,
        data         bytea NOT NULL,
        PRIMARY KEY (workspace_id, generation, chunk)
      );
    `,
  },
  {
    // Room on each page for the read bookkeeping's updates (access_count, last_accessed_at): an update that fits on its
    // row's page is HOT, writing no index entry; one that does not inserts into every index, the lexical GIN index
    // with every word of the text. Packed pages (fillfactor 100) made half the flush's updates non-HOT: 1.2-1.6 ms of
    // PostgreSQL CPU per flush of 10 rows at 10,000 memories, against 0.5-0.6 ms at 80 (test/bench/README.md, "p99
    // tails and the PostgreSQL fleet"). Pages written from now on keep the room; existing ones gain it as updated rows
    // move off them (no rewrite here: the table stays readable and writable throughout).
    version: 13,
    name: "room for HOT updates",
    sql: "ALTER TABLE memories SET (fillfactor = 80);",
  },
  {
    // The lexical index folds case and diacritics as SQLite's does (remove_diacritics), so "jose" finds "José" and, in
    // a database of the C locale (whose lower() and `simple` configuration lower-case ASCII only), "ørsted" finds
    // "Ørsted". One function folds the texts here and the query's words in the lexical statement. Lower-casing goes
    // through ICU's root collation where the server has it; normalize() needs a UTF8 database (and PostgreSQL 13), so
    // another keeps lower() alone. The column is generated again: the table and its indexes are rewritten once (2.7 s
    // at 40,884 memories), under the migration's lock.
    version: 14,
    name: "lexical index folds case and diacritics",
    sql: `
      DO $migration$
      DECLARE
        folded text := 'lower(t)';
      BEGIN
        IF current_setting('server_encoding') = 'UTF8' AND current_setting('server_version_num')::int >= 130000 THEN
          IF EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
            folded := 'lower(t COLLATE "und-x-icu")';
          END IF;
          folded := format('regexp_replace(normalize(%s, NFKD), %L, %L, %L)', folded, '[\\u0300-\\u036f]', '', 'g');
        END IF;
        EXECUTE format('CREATE FUNCTION brain_lexical_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS %L',
                       'SELECT ' || folded);
      END
      $migration$;
      ALTER TABLE memories DROP COLUMN lexemes;
      ALTER TABLE memories ADD COLUMN lexemes tsvector GENERATED ALWAYS AS (to_tsvector('simple', brain_lexical_fold(text))) STORED;
      CREATE INDEX memories_lexemes ON memories USING gin (lexemes) WITH (fastupdate = off);
    `,
  },
];

/** One transaction-scoped advisory lock serializes migrating across processes. */
const MIGRATION_LOCK = "brain-mcp:migrate";

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function migrate(client: PoolClient): Promise<number[]> {
  const applied: number[] = [];
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS brain_migrations (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number }>("SELECT version FROM brain_migrations");
    const done = new Set(rows.map((r) => Number(r.version)));
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query(m.sql);
      await m.after?.(client);
      await client.query("INSERT INTO brain_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      applied.push(m.version);
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
  return applied;
}
