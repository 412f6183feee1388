// The memory store over one SQLite file (better-sqlite3, WAL). Several processes may open the same file: every
// write transaction is `BEGIN IMMEDIATE`, which SQLite serializes across processes (busy_timeout makes the others
// wait instead of failing). Durability: WAL with synchronous=NORMAL, so an acknowledged write survives the process
// being killed (kill -9); only an OS crash or power loss may lose the last transactions.
import { createRequire } from "node:module";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { ServiceError, type RateDecision, type Workspace } from "../../types.js";
import {
  FORGOTTEN_EMBEDDER,
  type ApiKeyRecord,
  type HealthCounts,
  type IdempotencyRecord,
  type MemoryPatch,
  type MemoryRecord,
  type MemoryWithVector,
  type MemoryStore,
  type NewMemory,
  type NewKey,
  type ReadsBatch,
  type UsageKind,
  type VectorRecord,
  type VectorSnapshotHeader,
  type WorkspaceTx,
} from "../types.js";
import {
  LIST_WORKSPACES_SQL,
  MEMORY_COLUMNS,
  bytesToVector,
  healthCountsStatement,
  listMemoriesStatement,
  POSTINGS_PER_TERM,
  rankPostings,
  matchableTerms,
  vectorToBytes,
  workspaceToken,
} from "../shared-sql.js";
import { likePrefix, memoryFromColumns, toMemory, toWorkspace, type MemoryRow, type WorkspaceRow } from "../rows.js";
import { createTokenBuckets } from "../token-bucket.js";
import { vectorCodes } from "../../retrieval/int8-kernel.js";
import { SQLITE_WEBHOOKS_MIGRATION } from "../../webhooks/schema.js";
import { sqliteRunner } from "../../webhooks/sql.js";
import { createWebhookStore } from "../../webhooks/store.js";
import {
  readBrowse,
  readStats,
  readUsageBetween,
  readUsagePerDay,
  USAGE_BETWEEN_SQL,
  USAGE_PER_DAY_SQL,
  type Statement,
} from "../dashboard-sql.js";
import { guardStoreFile } from "./file-guard.js";
import { createCheckpointer, type Checkpointer } from "./checkpointer.js";
import { MEMORY_ID_ATTEMPTS, newMemoryId } from "../memory-ids.js";
import { newSnapshotGeneration } from "../vector-snapshots.js";

type Db = BetterSqlite3.Database;

/**
 * vectorsOf reads at most this many ids' vectors as one concatenated buffer (a retrieve asks ~60-100); longer lists (an
 * index load's rows without codes, the dashboard's duplicate pairs) row by row, so no read builds one huge value.
 */
const JOINED_VECTORS_MAX_IDS = 512;

/** How long a writer waits for another process's transaction before SQLite reports busy. */
const BUSY_TIMEOUT_MS = 15_000;
/** The longest pause between two tries for the write lock another process holds (runWrite). */
const MAX_LOCK_PAUSE_MS = 20;

/**
 * 0.1.0's text ids (`ws_…`, `key_…`, `mem_…`) become integers assigned in creation order (created_at, then the old
 * id), every reference remapped, and each stored idempotent answer rewritten to the current shape. The tables are
 * rebuilt (SQLite cannot change a primary key in place) with AUTOINCREMENT, so an id is never handed out twice.
 */
const INTEGER_IDS = `
  CREATE TEMP TABLE ws_map (old_id TEXT PRIMARY KEY, new_id INTEGER NOT NULL);
  INSERT INTO ws_map SELECT id, row_number() OVER (ORDER BY created_at, id) FROM workspaces;
  CREATE TEMP TABLE key_map (old_id TEXT PRIMARY KEY, new_id INTEGER NOT NULL);
  INSERT INTO key_map SELECT id, row_number() OVER (ORDER BY created_at, id) FROM api_keys;
  CREATE TEMP TABLE mem_map (old_id TEXT PRIMARY KEY, new_id INTEGER NOT NULL);
  INSERT INTO mem_map SELECT id, row_number() OVER (ORDER BY created_at, id) FROM memories;

  CREATE TABLE workspaces_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    plan TEXT NOT NULL,
    billing_cycle TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active','suspended','limit_reached','deleted')),
    created_at INTEGER NOT NULL
  );
  INSERT INTO workspaces_v2 (id, name, plan, billing_cycle, status, created_at)
    SELECT m.new_id, w.name, w.plan, w.billing_cycle, w.status, w.created_at FROM workspaces w JOIN ws_map m ON m.old_id = w.id;

  CREATE TABLE api_keys_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  INSERT INTO api_keys_v2 (id, workspace_id, key_hash, prefix, created_at, revoked_at)
    SELECT km.new_id, wm.new_id, k.key_hash, k.prefix, k.created_at, k.revoked_at
      FROM api_keys k JOIN key_map km ON km.old_id = k.id JOIN ws_map wm ON wm.old_id = k.workspace_id;

  CREATE TABLE memories_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
    text TEXT NOT NULL,
    meta TEXT NOT NULL,
    embedder_id TEXT NOT NULL,
    importance INTEGER NOT NULL,
    temporal_type TEXT NOT NULL CHECK (temporal_type IN ('persistent','time_bound')),
    valid_until INTEGER,
    categories TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    last_accessed_at INTEGER,
    access_count INTEGER NOT NULL DEFAULT 0,
    rev INTEGER NOT NULL
  );
  INSERT INTO memories_v2 (id, workspace_id, text, meta, embedder_id, importance, temporal_type, valid_until, categories,
                           created_at, updated_at, last_accessed_at, access_count, rev)
    SELECT mm.new_id, wm.new_id, m.text, m.meta, m.embedder_id, m.importance, m.temporal_type, m.valid_until, m.categories,
           m.created_at, m.updated_at, m.last_accessed_at, m.access_count, m.rev
      FROM memories m JOIN mem_map mm ON mm.old_id = m.id JOIN ws_map wm ON wm.old_id = m.workspace_id;

  -- Vectors (4 KiB each) live apart, so updating a memory's access statistics never rewrites its vector.
  CREATE TABLE memory_vectors_v2 (
    memory_id INTEGER PRIMARY KEY REFERENCES memories(id),
    vector BLOB NOT NULL
  );
  INSERT INTO memory_vectors_v2 (memory_id, vector)
    SELECT mm.new_id, v.vector FROM memory_vectors v JOIN mem_map mm ON mm.old_id = v.memory_id;

  CREATE TABLE idempotency_v2 (
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, key)
  );
  -- The first answer, as a replay now gives it: integer ids, workspace_id, the specification's field order.
  INSERT INTO idempotency_v2 (workspace_id, key, request_hash, response, created_at)
    SELECT wm.new_id, i.key, i.request_hash,
           json_object(
             'status', json_extract(i.response, '$.status'),
             'memory_id', mm.new_id,
             'workspace_id', wm.new_id,
             'dedup', json_object(
               'action', json_extract(i.response, '$.dedup.action'),
               'existing_id', CASE WHEN json_extract(i.response, '$.dedup.existing_id') IS NULL THEN NULL ELSE em.new_id END),
             'importance', json_extract(i.response, '$.importance'),
             'categories', json(json_extract(i.response, '$.categories')),
             'temporal', json(json_extract(i.response, '$.temporal'))),
           i.created_at
      FROM idempotency i
      JOIN ws_map wm ON wm.old_id = i.workspace_id
      LEFT JOIN mem_map mm ON mm.old_id = json_extract(i.response, '$.memory_id')
      LEFT JOIN mem_map em ON em.old_id = json_extract(i.response, '$.dedup.existing_id');

  CREATE TABLE usage_events_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
    kind TEXT NOT NULL CHECK (kind IN ('write','read')),
    memory_id INTEGER,
    created_at INTEGER NOT NULL
  );
  INSERT INTO usage_events_v2 (id, workspace_id, kind, memory_id, created_at)
    SELECT u.id, wm.new_id, u.kind, mm.new_id, u.created_at
      FROM usage_events u JOIN ws_map wm ON wm.old_id = u.workspace_id LEFT JOIN mem_map mm ON mm.old_id = u.memory_id;

  DROP TABLE usage_events;
  DROP TABLE idempotency;
  DROP TABLE memory_vectors;
  DROP TABLE memories;
  DROP TABLE api_keys;
  DROP TABLE workspaces;
  ALTER TABLE workspaces_v2 RENAME TO workspaces;
  ALTER TABLE api_keys_v2 RENAME TO api_keys;
  ALTER TABLE memories_v2 RENAME TO memories;
  ALTER TABLE memory_vectors_v2 RENAME TO memory_vectors;
  ALTER TABLE idempotency_v2 RENAME TO idempotency;
  ALTER TABLE usage_events_v2 RENAME TO usage_events;
  CREATE INDEX api_keys_workspace ON api_keys(workspace_id);
  CREATE UNIQUE INDEX memories_workspace_rev ON memories(workspace_id, rev);
  CREATE INDEX memories_embedder ON memories(embedder_id);
  CREATE INDEX usage_events_workspace ON usage_events(workspace_id, kind, created_at);
  DROP TABLE ws_map;
  DROP TABLE key_map;
  DROP TABLE mem_map;
`;

/**
 * The store's own full-text index of memory texts (FTS5), kept in step by triggers, so a stored, merged, re-embedded
 * or forgotten memory is searchable (or gone) in the same transaction. Contentless with contentless_delete: the text
 * lives once, in `memories`; the index keeps only its tokens, and `workspace` (the token `w<id>`) files each memory
 * under its workspace. unicode61 with diacritics folded: words, names and numbers of any script match as written, no
 * stemming. Ranked in ./shared-sql.ts (lexicalSearchStatement). Replaced by migration 7 (TRIGRAM_LEXICAL_INDEX).
 */
const LEXICAL_INDEX = `
  CREATE VIRTUAL TABLE memory_text USING fts5(
    text, workspace, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
  );
  INSERT INTO memory_text (rowid, text, workspace) SELECT id, text, 'w' || workspace_id FROM memories;
  CREATE TRIGGER memory_text_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_text (rowid, text, workspace) VALUES (new.id, new.text, 'w' || new.workspace_id);
  END;
  CREATE TRIGGER memory_text_update AFTER UPDATE OF text ON memories BEGIN
    DELETE FROM memory_text WHERE rowid = old.id;
    INSERT INTO memory_text (rowid, text, workspace) VALUES (new.id, new.text, 'w' || new.workspace_id);
  END;
  CREATE TRIGGER memory_text_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memory_text WHERE rowid = old.id;
  END;
`;

/**
 * The lexical index rebuilt with the `trigram` tokenizer (issue 18's open goal): a query word matches wherever its
 * letters appear, so "painting" finds "paintings", "Caroline" finds "Caroline's" and "2022" finds "2022-05-01",
 * in any language and with no stemmer (FTS5 folds case; diacritics folded too). Words under three characters cannot
 * be matched (./shared-sql.ts drops them). The workspace token gains a closing `w` (`w12w`): a trigram table matches
 * substrings, and `w1` would match inside `w12`. Rebuilt from `memories`, which hold every text.
 */
const TRIGRAM_LEXICAL_INDEX = `
  DROP TRIGGER memory_text_insert;
  DROP TRIGGER memory_text_update;
  DROP TRIGGER memory_text_delete;
  DROP TABLE memory_text;
  CREATE VIRTUAL TABLE memory_text USING fts5(
    text, workspace, content = '', contentless_delete = 1, tokenize = 'trigram remove_diacritics 1'
  );
  INSERT INTO memory_text (rowid, text, workspace) SELECT id, text, 'w' || workspace_id || 'w' FROM memories;
  CREATE TRIGGER memory_text_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_text (rowid, text, workspace) VALUES (new.id, new.text, 'w' || new.workspace_id || 'w');
  END;
  CREATE TRIGGER memory_text_update AFTER UPDATE OF text ON memories BEGIN
    DELETE FROM memory_text WHERE rowid = old.id;
    INSERT INTO memory_text (rowid, text, workspace) VALUES (new.id, new.text, 'w' || new.workspace_id || 'w');
  END;
  CREATE TRIGGER memory_text_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memory_text WHERE rowid = old.id;
  END;
`;

/**
 * The lexical index rebuilt so that forgetting erases (issue 28): plain contentless (no contentless_delete, which only
 * hides a deleted row behind a tombstone and keeps its trigrams in the index pages until a merge) with FTS5's
 * 'secure-delete' option, and the triggers pass the old row to FTS5's 'delete' command, so a forgotten or rewritten
 * text's entries are removed from the index pages at once (with PRAGMA secure_delete, their bytes zeroed). The values
 * given to 'delete' are exactly those inserted (the text and the workspace token, which never changes).
 */
const ERASING_LEXICAL_INDEX = `
  DROP TRIGGER memory_text_insert;
  DROP TRIGGER memory_text_update;
  DROP TRIGGER memory_text_delete;
  DROP TABLE memory_text;
  CREATE VIRTUAL TABLE memory_text USING fts5(text, workspace, content = '', tokenize = 'trigram remove_diacritics 1');
  INSERT INTO memory_text (memory_text, rank) VALUES ('secure-delete', 1);
  INSERT INTO memory_text (rowid, text, workspace) SELECT id, text, 'w' || workspace_id || 'w' FROM memories;
  CREATE TRIGGER memory_text_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_text (rowid, text, workspace) VALUES (new.id, new.text, 'w' || new.workspace_id || 'w');
  END;
  CREATE TRIGGER memory_text_update AFTER UPDATE OF text, workspace_id ON memories BEGIN
    INSERT INTO memory_text (memory_text, rowid, text, workspace) VALUES ('delete', old.id, old.text, 'w' || old.workspace_id || 'w');
    INSERT INTO memory_text (rowid, text, workspace) VALUES (new.id, new.text, 'w' || new.workspace_id || 'w');
  END;
  CREATE TRIGGER memory_text_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memory_text (memory_text, rowid, text, workspace) VALUES ('delete', old.id, old.text, 'w' || old.workspace_id || 'w');
  END;
`;

/**
 * A forgotten memory leaves only its id and the rev of its forgetting (never its text): readers apply it like any
 * other change, and revs stay strictly increasing after the highest-rev memory is forgotten. usage_events is rebuilt
 * because SQLite cannot widen a CHECK constraint in place.
 */
const FORGETTING_AND_KEY_USE = `
  CREATE TABLE memory_tombstones (
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
    rev INTEGER NOT NULL,
    memory_id INTEGER NOT NULL,
    deleted_at INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, rev)
  ) WITHOUT ROWID;
  ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
  CREATE TABLE usage_events_v3 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
    kind TEXT NOT NULL CHECK (kind IN ('write','read','delete')),
    memory_id INTEGER,
    created_at INTEGER NOT NULL
  );
  INSERT INTO usage_events_v3 (id, workspace_id, kind, memory_id, created_at)
    SELECT id, workspace_id, kind, memory_id, created_at FROM usage_events;
  DROP TABLE usage_events;
  ALTER TABLE usage_events_v3 RENAME TO usage_events;
  CREATE INDEX usage_events_workspace ON usage_events(workspace_id, kind, created_at);
`;

/**
 * Schema versions, applied in order; `PRAGMA user_version` records how many ran. Append new versions; never edit
 * an applied one (a fresh file runs them all, so it ends exactly like a migrated one).
 */
const MIGRATIONS: string[] = [
  // 1: the 0.1.0 schema (text ids).
  `
  CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL,
    billing_cycle TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active','suspended','limit_reached','deleted')),
    created_at INTEGER NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_workspace ON api_keys(workspace_id);
  CREATE TABLE memories (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    text TEXT NOT NULL,
    meta TEXT NOT NULL,
    embedder_id TEXT NOT NULL,
    importance INTEGER NOT NULL,
    temporal_type TEXT NOT NULL CHECK (temporal_type IN ('persistent','time_bound')),
    valid_until INTEGER,
    categories TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    last_accessed_at INTEGER,
    access_count INTEGER NOT NULL DEFAULT 0,
    rev INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX memories_workspace_rev ON memories(workspace_id, rev);
  CREATE TABLE memory_vectors (
    memory_id TEXT PRIMARY KEY REFERENCES memories(id),
    vector BLOB NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX memories_embedder ON memories(embedder_id);
  CREATE TABLE idempotency (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, key)
  );
  CREATE TABLE usage_events (
    id INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    kind TEXT NOT NULL CHECK (kind IN ('write','read')),
    memory_id TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX usage_events_workspace ON usage_events(workspace_id, kind, created_at);
  CREATE TABLE probe (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL);
  `,
  // 2: integer ids assigned by the store.
  INTEGER_IDS,
  // 3: webhook endpoints, the event outbox, deliveries, and the triggers that write lifecycle events.
  SQLITE_WEBHOOKS_MIGRATION,
  // 4: forgetting (a tombstone per forgotten memory, so every process's vector cache drops it; "delete" usage events)
  // and keys' last use.
  FORGETTING_AND_KEY_USE,
  // 5: expiring idempotency keys by age without scanning all of the workspace's keys on every store (as PostgreSQL's).
  "CREATE INDEX idempotency_age ON idempotency(workspace_id, created_at);",
  // 6: the lexical index (issue 18).
  LEXICAL_INDEX,
  // 7: the lexical index with the trigram tokenizer, rebuilt from the memories (issue 18's retrieval-quality goals).
  TRIGRAM_LEXICAL_INDEX,
  // 8: a forgotten memory's id is never drawn again (../memory-ids.ts): looked up among the tombstones on insert.
  "CREATE INDEX memory_tombstones_memory ON memory_tombstones(memory_id);",
  // 9: each vector's int8 codes beside it (issue 27), so an index loads them instead of quantizing every float row;
  // existing rows are filled here by the same function the writes use (registered in migrate()). The index covers
  // the memories' side of an index load: ids are random, so reading each row would cost a random page (35 % less
  // CPU for a load of 100,000, test/bench/README.md).
  `ALTER TABLE memory_vectors ADD COLUMN codes BLOB;
   UPDATE memory_vectors SET codes = brain_vector_codes(vector);
   CREATE INDEX memories_vector_scan ON memories(workspace_id, rev, id, embedder_id);`,
  // 10: no change (a number reserved while issues 27, 28 and 30 were built side by side, not needed in the end).
  "SELECT 10;",
  // 11: the lexical index that erases a forgotten text from its pages (issue 28).
  ERASING_LEXICAL_INDEX,
  // 12: each workspace's vector index in chunks of many rows (issue 27), so a load after a restart is a few bulk reads
  // (../../retrieval/vector-snapshot.ts); empty until a process has loaded an index, which then stores one. A chunk
  // belongs to a generation, and the workspace's row names the generation that is complete.
  `CREATE TABLE vector_snapshots (
     workspace_id INTEGER PRIMARY KEY REFERENCES workspaces(id),
     embedder_id TEXT NOT NULL,
     dimensions INTEGER NOT NULL,
     up_to_rev INTEGER NOT NULL,
     rows INTEGER NOT NULL,
     generation INTEGER NOT NULL,
     chunks INTEGER NOT NULL
   );
   CREATE TABLE vector_snapshot_chunks (
     workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
     generation INTEGER NOT NULL,
     chunk INTEGER NOT NULL,
     data BLOB NOT NULL,
     PRIMARY KEY (workspace_id, generation, chunk)
   );`,
];

/** The migration from which a forgotten text is erased from the file (ERASING_LEXICAL_INDEX, secure_delete). */
const ERASING_VERSION = MIGRATIONS.indexOf(ERASING_LEXICAL_INDEX) + 1;

/** The schema version a current store is at (PRAGMA user_version after migrating). */
export const SQLITE_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * A workspace's vectors (@ws) with rev > @since, and its tombstones as rows without a vector (./types.ts); rows of
 * @codes_for's embedder that have codes come with their codes instead of their floats (a quarter of the bytes).
 */
const VECTORS_AND_TOMBSTONES =
  "SELECT m.id, m.rev, m.embedder_id, " +
  "CASE WHEN v.codes IS NULL OR m.embedder_id <> @codes_for THEN v.vector END, " +
  "CASE WHEN m.embedder_id = @codes_for THEN v.codes END " +
  "FROM memories m JOIN memory_vectors v ON v.memory_id = m.id " +
  "WHERE m.workspace_id = @ws AND m.rev > @since " +
  `UNION ALL SELECT memory_id, rev, '${FORGOTTEN_EMBEDDER}', NULL, NULL FROM memory_tombstones WHERE workspace_id = @ws AND rev > @since`;

/**
 * VECTORS_AND_TOMBSTONES without the vectors, from the covering index memories_vector_scan alone; the embedder is
 * NULL where it is @codes_for (no string made per row).
 */
const REVS_AND_TOMBSTONES =
  "SELECT id, rev, nullif(embedder_id, @codes_for) FROM memories WHERE workspace_id = @ws AND rev > @since " +
  `UNION ALL SELECT memory_id, rev, '${FORGOTTEN_EMBEDDER}' FROM memory_tombstones WHERE workspace_id = @ws AND rev > @since`;

/** The (empty) floats of a row read as codes or a tombstone: one shared, never written. */
const NO_FLOATS = new Float32Array(0);

/** The integer id SQLite assigned to the row just inserted. */
function rowId(result: BetterSqlite3.RunResult): number {
  return Number(result.lastInsertRowid);
}

/** SQLite could not take a lock another connection holds (SQLITE_BUSY and its extended codes). */
function isBusy(err: unknown): boolean {
  return (err as { code?: string }).code?.startsWith("SQLITE_BUSY") === true;
}

/** Another process held the write lock for longer than busy_timeout: a retryable 503, not a crash. */
function asBusyError(err: unknown): unknown {
  return isBusy(err) ? new ServiceError("store_unavailable", "The memory store is busy; retry in a moment.") : err;
}

export function loadDriver(): typeof BetterSqlite3 {
  const require = createRequire(import.meta.url);
  try {
    return require("better-sqlite3");
  } catch {
    throw new Error("The SQLite store needs the optional dependency better-sqlite3: run `npm install better-sqlite3`.");
  }
}

/** Where loadDriver found better-sqlite3 (the checkpointer's thread loads the same). */
function driverPath(): string {
  return createRequire(import.meta.url).resolve("better-sqlite3");
}

/** Brings the file to the current schema; returns the versions applied. */
export function migrate(db: Db): number[] {
  // Migration 9 fills the codes of the vectors already stored with the function every write uses.
  db.function("brain_vector_codes", { deterministic: true }, (vector: unknown) =>
    // A damaged vector (not whole float32s) gets no codes: it stays readable as floats, and the upgrade goes through.
    vector instanceof Uint8Array && vector.byteLength % 4 === 0 ? vectorCodes(bytesToVector(vector, { own: true })) : null,
  );
  // Rebuilding tables needs foreign keys off (it is a no-op inside a transaction); they are checked before commit.
  db.pragma("foreign_keys = OFF");
  // IMMEDIATE: two processes opening an old or fresh file at once must not both run the migrations.
  const applied = db
    .transaction(() => {
      const version = db.pragma("user_version", { simple: true }) as number;
      const done: number[] = [];
      for (let v = version; v < MIGRATIONS.length; v++) {
        db.exec(MIGRATIONS[v]!);
        done.push(v + 1);
      }
      if (done.length > 0) {
        const broken = db.pragma("foreign_key_check") as unknown[];
        if (broken.length > 0) throw new Error(`migrating the SQLite store left ${broken.length} dangling references; nothing was changed`);
        db.pragma(`user_version = ${MIGRATIONS.length}`);
      }
      return done;
    })
    .immediate();
  db.pragma("foreign_keys = ON");
  return applied;
}

/** Opens (creating when absent) the SQLite store at `path`. */
export function openSqliteStore(path: string): MemoryStore {
  const Database = loadDriver();
  if (path !== ":memory:") {
    // Memories and key hashes are private: a new store is 0600 in a 0700 folder (SQLite gives -wal and -shm the
    // store's mode). "a" creates without truncating, so processes racing to create it are fine.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, "a", 0o600));
  }
  const db: Db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  const file = guardStoreFile(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // A forgotten memory's text must not stay in the file: freed cells and pages are zeroed (measured: test/bench/README.md).
  db.pragma("secure_delete = ON");
  // Retrieve reads scattered rows: keep pages in memory rather than one system call per page.
  // Retrieve reads a few scattered rows (candidates' records and float vectors) and lexical postings: a 32 MB page
  // cache holds them. No mmap: loading an index reads every vector once, and mapped pages would stay resident.
  db.pragma("cache_size = -32768");
  try {
    const applied = migrate(db); // leaves foreign_keys on
    // A store from before migration 11 may hold texts forgotten then in its free pages: rewritten once, without them.
    if (applied.includes(ERASING_VERSION) && applied[0]! > 1 && path !== ":memory:") {
      db.exec("VACUUM");
      db.pragma("wal_checkpoint(TRUNCATE)"); // VACUUM's pages are in the WAL until checkpointed
    }
  } catch (err) {
    db.close();
    throw asBusyError(err);
  }
  // After the first, checkpoints run in a thread of their own (./checkpointer.ts); this connection's own one, inside a
  // commit, then only when the WAL reaches the bound it sets.
  const checkpointer: Checkpointer | null =
    path === ":memory:" ? null : createCheckpointer(path, driverPath(), (frames) => db.pragma(`wal_autocheckpoint = ${frames}`));

  const q = {
    insertWorkspace: db.prepare(
      "INSERT INTO workspaces (name, plan, billing_cycle, status, created_at) VALUES (@name, @plan, @billing_cycle, @status, @created_at)",
    ),
    getWorkspace: db.prepare("SELECT * FROM workspaces WHERE id = ?"),
    setWorkspaceStatus: db.prepare("UPDATE workspaces SET status = ? WHERE id = ?"),
    countWorkspaces: db.prepare("SELECT count(*) AS n FROM workspaces"),
    listWorkspaces: db.prepare(LIST_WORKSPACES_SQL),
    insertKey: db.prepare(
      "INSERT INTO api_keys (workspace_id, key_hash, prefix, created_at) VALUES (@workspace_id, @key_hash, @prefix, @created_at)",
    ),
    findKey: db.prepare(
      "SELECT k.id AS key_id, k.prefix AS key_prefix, k.key_hash AS key_hash, w.* FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id " +
        "WHERE k.key_hash = ? AND k.revoked_at IS NULL",
    ),
    revokeKey: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    getKey: db.prepare("SELECT workspace_id, revoked_at FROM api_keys WHERE id = ?"),
    postings: db.prepare("SELECT rowid FROM memory_text WHERE memory_text MATCH ? LIMIT ?").pluck(),
    workspaceSize: db.prepare("SELECT count(*) FROM memories WHERE workspace_id = ?").pluck(),
    // Whether any memory belongs to another workspace: two seeks in memories_workspace_rev (~12 µs)
    otherWorkspaceHasMemories: db
      .prepare("SELECT EXISTS (SELECT 1 FROM memories WHERE workspace_id < ?) OR EXISTS (SELECT 1 FROM memories WHERE workspace_id > ?)")
      .pluck(),
    vectorsSince: db.prepare(`${VECTORS_AND_TOMBSTONES} ORDER BY rev`).raw(), // rows as arrays: an index build reads every vector
    vectorsSincePage: db.prepare(`${VECTORS_AND_TOMBSTONES} ORDER BY rev LIMIT @limit`).raw(),
    // An index load reads the revs from the covering index, then a page's codes in one row: three aggregates over
    // memory_vectors read in its own order (SQLite sorts the IN list), so each page of the file comes once instead of
    // one random page per row, and one Buffer per page instead of one per row (test/bench/README.md, indexload).
    revsSince: db.prepare(`${REVS_AND_TOMBSTONES} ORDER BY rev`).raw(),
    revsSincePage: db.prepare(`${REVS_AND_TOMBSTONES} ORDER BY rev LIMIT @limit`).raw(),
    codesUpTo: db
      .prepare(
        "SELECT group_concat(memory_id), group_concat(length(codes)), CAST(group_concat(codes, '') AS BLOB) " +
          "FROM memory_vectors WHERE codes IS NOT NULL AND memory_id IN " +
          "(SELECT id FROM memories WHERE workspace_id = @ws AND rev > @since AND rev <= @upto AND embedder_id = @codes_for)",
      )
      .raw(),
    // Each workspace's newest write is its highest rev: one probe of (workspace_id, rev) per workspace, where a
    // max(updated_at) over every memory read the whole table at each start (130-150 ms CPU at 100,000, blocking).
    recentWorkspaces: db
      .prepare(
        "SELECT id FROM (SELECT id, (SELECT updated_at FROM memories WHERE workspace_id = w.id ORDER BY rev DESC LIMIT 1) AS at " +
          "FROM workspaces w) WHERE at IS NOT NULL ORDER BY at DESC LIMIT ?",
      )
      .pluck(),
    insertVector: db.prepare("INSERT INTO memory_vectors (memory_id, vector, codes) VALUES (?, ?, ?)"),
    updateVector: db.prepare("UPDATE memory_vectors SET vector = ?, codes = ? WHERE memory_id = ?"),
    getMemory: db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = ? AND +workspace_id = ?`),
    listMemories: db.prepare(listMemoriesStatement("sqlite", 0).sql),
    // Float rows for re-scoring the vector screen's few candidates (the cache keeps only int8 codes).
    vectorsOf: db
      .prepare(
        "SELECT m.id, m.rev, m.embedder_id, v.vector FROM memories m JOIN memory_vectors v ON v.memory_id = m.id " +
          "WHERE +m.workspace_id = ? AND m.id IN (SELECT value FROM json_each(?))",
      )
      .raw(),
    countMemories: db.prepare("SELECT count(*) AS n FROM memories WHERE workspace_id = ?"),
    // Forgotten memories' revs count too: a rev is never handed out twice, even after the newest memory is forgotten.
    maxRev: db.prepare(
      "SELECT max(coalesce((SELECT max(rev) FROM memories WHERE workspace_id = @ws), 0), " +
        "coalesce((SELECT max(rev) FROM memory_tombstones WHERE workspace_id = @ws), 0)) AS rev",
    ),
    deleteVector: db.prepare("DELETE FROM memory_vectors WHERE memory_id = ?"),
    getSnapshot: db.prepare(
      "SELECT embedder_id, dimensions, up_to_rev, rows, generation, chunks FROM vector_snapshots WHERE workspace_id = ?",
    ),
    getSnapshotChunk: db.prepare("SELECT data FROM vector_snapshot_chunks WHERE workspace_id = ? AND generation = ? AND chunk = ?").pluck(),
    insertSnapshotChunk: db.prepare("INSERT INTO vector_snapshot_chunks (workspace_id, generation, chunk, data) VALUES (?, ?, ?, ?)"),
    putSnapshot: db.prepare(
      "INSERT OR REPLACE INTO vector_snapshots (workspace_id, embedder_id, dimensions, up_to_rev, rows, generation, chunks) " +
        "VALUES (@workspace_id, @embedder_id, @dimensions, @up_to_rev, @rows, @generation, @chunks)",
    ),
    dropOtherSnapshotChunks: db.prepare("DELETE FROM vector_snapshot_chunks WHERE workspace_id = ? AND generation <> ?"),
    otherSnapshotChunks: db
      .prepare("SELECT generation, chunk FROM vector_snapshot_chunks WHERE workspace_id = ? AND generation <> ?")
      .raw(),
    dropSnapshotChunk: db.prepare("DELETE FROM vector_snapshot_chunks WHERE workspace_id = ? AND generation = ? AND chunk = ?"),
    dropSnapshotChunks: db.prepare("DELETE FROM vector_snapshot_chunks WHERE workspace_id = ?"),
    dropSnapshot: db.prepare("DELETE FROM vector_snapshots WHERE workspace_id = ?"),
    countSnapshotChunks: db.prepare("SELECT count(*) FROM vector_snapshot_chunks WHERE workspace_id = ? AND generation = ?").pluck(),
    forgottenAfter: db.prepare("SELECT 1 FROM memory_tombstones WHERE workspace_id = ? AND rev > ? LIMIT 1").pluck(),
    deleteMemory: db.prepare("DELETE FROM memories WHERE id = ? AND +workspace_id = ?"),
    forgottenId: db.prepare("SELECT 1 FROM memory_tombstones WHERE memory_id = ?").pluck(),
    insertTombstone: db.prepare("INSERT INTO memory_tombstones (workspace_id, rev, memory_id, deleted_at) VALUES (?, ?, ?, ?)"),
    forgetIdempotency: db.prepare(
      "DELETE FROM idempotency WHERE workspace_id = ? AND json_extract(response, '$.memory_id') IN (SELECT value FROM json_each(?))",
    ),
    listKeys: db.prepare(
      "SELECT id, prefix, created_at, last_used_at, revoked_at FROM api_keys WHERE workspace_id = ? ORDER BY created_at, id",
    ),
    markKeyUsed: db.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ? AND coalesce(last_used_at, 0) < ?"),
    usagePerDay: db.prepare(USAGE_PER_DAY_SQL.replace("$1", "?")),
    usageBetween: db.prepare(USAGE_BETWEEN_SQL.replace(/\$\d/g, "?")),
    insertMemory: db.prepare(
      "INSERT INTO memories (id, workspace_id, text, meta, embedder_id, importance, temporal_type, valid_until, " +
        "categories, created_at, updated_at, last_accessed_at, access_count, rev) VALUES (@id, @workspace_id, @text, " +
        "@meta, @embedder_id, @importance, @temporal_type, @valid_until, @categories, @created_at, @created_at, " +
        "NULL, 0, @rev)",
    ),
    // The ids come from the covering index memories_vector_scan, then their rows: asked at every start (warmUp), the
    // same filter over whole rows read every memory when none matched (100-140 ms CPU at 100,000, test/bench/README.md).
    notEmbeddedBy: db.prepare(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE id IN (SELECT id FROM memories WHERE embedder_id <> ? AND embedder_id LIKE ? ` +
        "ESCAPE '\\' ORDER BY workspace_id, rev LIMIT ?) ORDER BY workspace_id, rev",
    ),
    notEmbeddedByIn: db.prepare(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE id IN (SELECT id FROM memories WHERE embedder_id <> ? AND embedder_id LIKE ? ` +
        "ESCAPE '\\' AND workspace_id = ? ORDER BY rev LIMIT ?) ORDER BY rev",
    ),
    getIdempotency: db.prepare("SELECT * FROM idempotency WHERE workspace_id = ? AND key = ? AND created_at >= ?"),
    putIdempotency: db.prepare(
      "INSERT OR REPLACE INTO idempotency (workspace_id, key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?)",
    ),
    expireIdempotency: db.prepare("DELETE FROM idempotency WHERE workspace_id = ? AND created_at < ?"),
    recordUsage: db.prepare("INSERT INTO usage_events (workspace_id, kind, memory_id, created_at) VALUES (?, ?, ?, ?)"),
    usageCounts: db.prepare(
      "SELECT kind, count(*) AS n FROM usage_events WHERE workspace_id = ? AND kind IN ('write', 'read') GROUP BY kind",
    ),
    probe: db.prepare("INSERT INTO probe (id, at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET at = excluded.at"),
    readProbe: db.prepare("SELECT at FROM probe WHERE id = 1"),
    // Id lists travel as one JSON array parameter, so each statement is prepared once. `+workspace_id` keeps the
    // planner on the primary key (the (workspace_id, rev) index would scan the whole workspace).
    // Rows as arrays (MEMORY_COLUMNS' order): a retrieve reads tens of candidates' records, and the driver builds an
    // array per row in about half the time of an object with named properties (test/bench/README.md, sqlrecall).
    memoryRowsOf: db
      .prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE +workspace_id = ? AND id IN (SELECT value FROM json_each(?))`)
      .raw(),
    // Float rows of a few memories as one row: the ids, revs, models and byte lengths as JSON arrays and the vectors
    // concatenated in the same order (every aggregate of one group sees its rows in one order), so the driver copies one
    // buffer instead of one per row (test/bench/README.md, sqlrecall).
    vectorsOfJoined: db
      .prepare(
        "SELECT json_group_array(m.id), json_group_array(m.rev), json_group_array(m.embedder_id), " +
          "json_group_array(coalesce(length(v.vector), 0)), CAST(group_concat(v.vector, '') AS BLOB) " +
          "FROM memories m JOIN memory_vectors v ON v.memory_id = m.id " +
          "WHERE +m.workspace_id = ? AND m.id IN (SELECT value FROM json_each(?))",
      )
      .raw(),
    touchMemories: db.prepare(
      "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? " +
        "WHERE +workspace_id = ? AND id IN (SELECT value FROM json_each(?))",
    ),
  };

  const touchCounted = db.prepare(
    "UPDATE memories SET access_count = access_count + ?, last_accessed_at = max(coalesce(last_accessed_at, 0), ?) " +
      "WHERE id = ? AND +workspace_id = ?",
  );
  const recordReads = db.transaction((batches: readonly ReadsBatch[]) => {
    for (const { workspaceId, touched, readsAtMs } of batches) {
      for (const t of touched) touchCounted.run(t.count, t.lastAtMs, t.id, workspaceId);
      for (const at of readsAtMs) q.recordUsage.run(workspaceId, "read", null, at);
    }
  });

  const recordRead = db.transaction((workspaceId: number, ids: readonly number[], nowMs: number) => {
    if (ids.length > 0) q.touchMemories.run(nowMs, workspaceId, JSON.stringify(ids));
    q.recordUsage.run(workspaceId, "read", null, nowMs);
  });

  const forget = db.transaction((workspaceId: number, ids: readonly number[], nowMs: number) => {
    const deleted: number[] = [];
    for (const id of new Set(ids)) {
      if (!getMemory(workspaceId, id)) continue;
      // The rev is taken before the row goes: the forgotten memory may hold the workspace's highest rev.
      const rev = (q.maxRev.get({ ws: workspaceId }) as { rev: number }).rev + 1;
      q.deleteVector.run(id);
      q.deleteMemory.run(id, workspaceId);
      q.insertTombstone.run(workspaceId, rev, id, nowMs);
      q.recordUsage.run(workspaceId, "delete", id, nowMs);
      deleted.push(id);
    }
    if (deleted.length > 0) {
      q.forgetIdempotency.run(workspaceId, JSON.stringify(deleted));
      // The snapshot may hold their codes: gone with them (the next load stores a new one).
      q.dropSnapshot.run(workspaceId);
      q.dropSnapshotChunks.run(workspaceId);
    }
    return deleted;
  });

  /**
   * Makes a fully written generation the workspace's snapshot, unless a forget since upToRev may be in its chunks or
   * dropped some of them.
   */
  const publishSnapshot = db.transaction((workspaceId: number, generation: number, chunks: number, header: VectorSnapshotHeader) => {
    const complete = q.countSnapshotChunks.get(workspaceId, generation) === chunks;
    if (!complete || q.forgottenAfter.get(workspaceId, header.upToRev)) {
      q.dropOtherSnapshotChunks.run(workspaceId, (q.getSnapshot.get(workspaceId) as { generation: number } | undefined)?.generation ?? 0);
      return false;
    }
    q.putSnapshot.run({
      workspace_id: workspaceId,
      embedder_id: header.embedderId,
      dimensions: header.dimensions,
      up_to_rev: header.upToRev,
      rows: header.rows,
      generation,
      chunks,
    });
    return true;
  });

  // The dashboard's statements vary with its filters; they are few and a person waits on each, so prepared per call.
  const readAll = async ({ sql, params }: Statement) => db.prepare(sql).all(...params) as Record<string, unknown>[];

  const buckets = createTokenBuckets();
  // One connection per process: a write transaction must not interleave with another on it.
  let writeQueue: Promise<unknown> = Promise.resolve();
  let closed = false;

  /**
   * readVectors with codes: the revs, then the codes of those of codesFor, joined here by id; the few rows without
   * codes (another model, a damaged vector) are read as floats. One read transaction: one snapshot for the three reads.
   */
  const readCodes = db.transaction((workspaceId: number, sinceRev: number, limit: number | undefined, codesFor: string) => {
    const params = { ws: workspaceId, since: sinceRev, codes_for: codesFor };
    const revs = (limit === undefined ? q.revsSince.all(params) : q.revsSincePage.all({ ...params, limit })) as [
      id: number,
      rev: number,
      embedder_id: string | null,
    ][];
    if (revs.length === 0) return [];
    const [ids, lengths, blob] = q.codesUpTo.get({ ...params, upto: revs[revs.length - 1]![1] }) as [
      string | null,
      string | null,
      Buffer | null,
    ];
    const codes = new Map<number, Buffer>();
    if (ids !== null && lengths !== null && blob !== null) {
      const sizes = lengths.split(",");
      let at = 0;
      ids.split(",").forEach((id, i) => {
        const size = Number(sizes[i]);
        codes.set(Number(id), blob.subarray(at, at + size));
        at += size;
      });
    }
    const floatIds: number[] = [];
    for (const [id, , embedder_id] of revs) if (embedder_id !== FORGOTTEN_EMBEDDER && !codes.has(id)) floatIds.push(id);
    const floats = new Map<number, Float32Array>();
    for (const r of vectorsOf(workspaceId, floatIds)) floats.set(r.id, r.vector);
    const records: VectorRecord[] = [];
    for (const [id, rev, embedder] of revs) {
      const embedder_id = embedder ?? codesFor;
      const stored = codes.get(id);
      if (embedder_id === FORGOTTEN_EMBEDDER) records.push({ id, rev, embedder_id, vector: NO_FLOATS });
      else if (stored) records.push({ id, rev, embedder_id, vector: NO_FLOATS, codes: stored });
      else {
        // A memory without a vector row is left out, as the floats' join leaves it out.
        const vector = floats.get(id);
        if (vector) records.push({ id, rev, embedder_id, vector });
      }
    }
    return records;
  });

  function readVectors(workspaceId: number, sinceRev: number, limit?: number, codesFor = FORGOTTEN_EMBEDDER): VectorRecord[] {
    if (codesFor !== FORGOTTEN_EMBEDDER) return readCodes(workspaceId, sinceRev, limit, codesFor);
    // No embedder is called FORGOTTEN_EMBEDDER (""), so without codesFor every row comes as floats.
    const found =
      limit === undefined
        ? q.vectorsSince.all({ ws: workspaceId, since: sinceRev, codes_for: codesFor })
        : q.vectorsSincePage.all({ ws: workspaceId, since: sinceRev, limit, codes_for: codesFor });
    const rows = found as [id: number, rev: number, embedder_id: string, vector: Buffer | null, codes: Buffer | null][];
    return rows.map(([id, rev, embedder_id, vector, codes]) => {
      const record: VectorRecord = {
        id,
        rev,
        embedder_id,
        vector: vector === null ? new Float32Array(0) : bytesToVector(vector, { own: true }),
      };
      if (vector === null && codes !== null) record.codes = codes;
      return record;
    });
  }

  function vectorsOf(workspaceId: number, ids: readonly number[]): VectorRecord[] {
    if (ids.length === 0) return [];
    if (ids.length <= JOINED_VECTORS_MAX_IDS) return joinedVectorsOf(workspaceId, ids);
    const rows = q.vectorsOf.all(workspaceId, JSON.stringify(ids)) as [id: number, rev: number, embedder_id: string, vector: Buffer][];
    return rows.map(([id, rev, embedder_id, vector]) => ({ id, rev, embedder_id, vector: bytesToVector(vector, { own: true }) }));
  }

  /** vectorsOf in one row (a retrieve's re-score): each vector a view into the one buffer read. */
  function joinedVectorsOf(workspaceId: number, ids: readonly number[]): VectorRecord[] {
    const [idsJson, revsJson, embeddersJson, lengthsJson, blob] = q.vectorsOfJoined.get(workspaceId, JSON.stringify(ids)) as [
      string,
      string,
      string,
      string,
      Buffer | null,
    ];
    const found = JSON.parse(idsJson) as number[];
    if (found.length === 0 || blob === null) return [];
    const revs = JSON.parse(revsJson) as number[];
    const embedders = JSON.parse(embeddersJson) as string[];
    const lengths = JSON.parse(lengthsJson) as number[];
    const records: VectorRecord[] = new Array(found.length);
    let at = 0;
    for (let i = 0; i < found.length; i++) {
      const size = lengths[i]!;
      records[i] = { id: found[i]!, rev: revs[i]!, embedder_id: embedders[i]!, vector: floatsAt(blob, at, size) };
      at += size;
    }
    return records;
  }

  /**
   * Each word's postings and the workspace's size, in one read transaction: one snapshot (and one set of file locks)
   * for the five or so statements instead of one each. One MATCH per word, each stopping at the cap (one query over all
   * words would read every posting). When no other workspace holds a memory in this snapshot, every indexed text is this
   * workspace's (the index holds exactly the memories' texts), so the MATCH leaves out the workspace token: the same
   * rows, in the same order, without intersecting each word's postings with the workspace's, one per memory (~45 % of
   * a MATCH's CPU at 10,000 memories; test/bench/README.md, "One workspace's memories, no workspace filter").
   */
  const readPostings = db.transaction((workspaceId: number, terms: readonly string[]) => {
    const scope = q.otherWorkspaceHasMemories.get(workspaceId, workspaceId) ? `workspace : ${workspaceToken(workspaceId)} AND ` : "";
    return {
      postings: terms.map((term) => ({
        term,
        ids: q.postings.all(`${scope}text : "${term}"`, POSTINGS_PER_TERM) as number[],
      })),
      total: q.workspaceSize.get(workspaceId) as number,
    };
  });

  /** `size` bytes of `blob` from `at` as floats (whole floats only, as a row's own buffer gives): a view when aligned. */
  function floatsAt(blob: Buffer, at: number, size: number): Float32Array {
    const count = Math.floor(size / 4);
    const offset = blob.byteOffset + at;
    if (offset % 4 === 0) return new Float32Array(blob.buffer, offset, count);
    return new Float32Array(blob.buffer.slice(offset, offset + 4 * count));
  }

  /** The records of `ids` (unknown ids skipped), read as arrays in MEMORY_COLUMNS' order. */
  function memoriesOf(workspaceId: number, ids: readonly number[]): MemoryRecord[] {
    if (ids.length === 0) return [];
    return (q.memoryRowsOf.all(workspaceId, JSON.stringify(ids)) as unknown[][]).map(memoryFromColumns);
  }

  /** The float rows and the records of `ids`: SQLite has no round trip to save, so its two reads, one after the other. */
  function memoriesWithVectors(workspaceId: number, ids: readonly number[]): MemoryWithVector[] {
    if (ids.length === 0) return [];
    const records = new Map(memoriesOf(workspaceId, ids).map((r) => [r.id, r]));
    return vectorsOf(workspaceId, ids).flatMap((vector) => {
      const record = records.get(vector.id);
      return record ? [{ record, vector }] : [];
    });
  }

  const readAllNow = ({ sql, params }: Statement) => db.prepare(sql).all(...params) as Record<string, unknown>[];

  function getMemory(workspaceId: number, id: number): MemoryRecord | null {
    const row = q.getMemory.get(id, workspaceId) as MemoryRow | undefined;
    return row ? toMemory(row) : null;
  }

  function getIdempotency(workspaceId: number, key: string, notBeforeMs: number): IdempotencyRecord | null {
    const row = q.getIdempotency.get(workspaceId, key, notBeforeMs) as
      | { workspace_id: number; key: string; request_hash: string; response: string; created_at: number }
      | undefined;
    return row ? { ...row, response: JSON.parse(row.response) } : null;
  }

  function txFor(workspaceId: number): WorkspaceTx {
    return {
      workspaceId,
      vectorsSince: async (sinceRev, limit, codesFor) => readVectors(workspaceId, sinceRev, limit, codesFor),
      vectorsOf: async (ids) => vectorsOf(workspaceId, ids),
      memoriesWithVectors: async (ids) => memoriesWithVectors(workspaceId, ids),
      getMemory: async (id) => getMemory(workspaceId, id),
      async insertMemory(m: NewMemory) {
        if (m.workspace_id !== workspaceId) throw new Error("insertMemory: workspace mismatch");
        const rev = (q.maxRev.get({ ws: workspaceId }) as { rev: number }).rev + 1;
        const { vector, ...row } = m;
        const values = { ...row, meta: JSON.stringify(m.meta), categories: JSON.stringify(m.categories), rev };
        let id = 0;
        for (let attempt = 1; id === 0; attempt++) {
          const candidate = newMemoryId();
          if (q.forgottenId.get(candidate)) {
            if (attempt === MEMORY_ID_ATTEMPTS) throw new Error("no free memory id after several attempts");
            continue;
          }
          try {
            q.insertMemory.run({ ...values, id: candidate });
            id = candidate;
          } catch (err) {
            // the id is taken: draw another (SQLite undoes only the failed statement)
            if ((err as { code?: string }).code !== "SQLITE_CONSTRAINT_PRIMARYKEY" || attempt === MEMORY_ID_ATTEMPTS) throw err;
          }
        }
        q.insertVector.run(id, vectorToBytes(vector), vectorCodes(vector));
        return getMemory(workspaceId, id)!;
      },
      async updateMemory(id: number, patch: MemoryPatch, nowMs: number) {
        const sets: string[] = [];
        const values: Record<string, unknown> = { id, workspace_id: workspaceId, updated_at: nowMs };
        const { vector, ...fields } = patch;
        for (const [field, value] of Object.entries(fields)) {
          if (value === undefined) continue;
          sets.push(`${field} = @${field}`);
          values[field] = field === "meta" || field === "categories" ? JSON.stringify(value) : value;
        }
        const rev = (q.maxRev.get({ ws: workspaceId }) as { rev: number }).rev + 1;
        values.rev = rev;
        sets.push("updated_at = @updated_at", "rev = @rev");
        // Only known columns reach here (MemoryPatch's keys), so the dynamic SET list is safe.
        const result = db.prepare(`UPDATE memories SET ${sets.join(", ")} WHERE id = @id AND +workspace_id = @workspace_id`).run(values);
        if (!result.changes) return null;
        if (vector) q.updateVector.run(vectorToBytes(vector), vectorCodes(vector), id);
        return getMemory(workspaceId, id);
      },
      getIdempotency: async (key, notBeforeMs) => getIdempotency(workspaceId, key, notBeforeMs),
      async putIdempotency(record, expireBeforeMs) {
        q.expireIdempotency.run(workspaceId, expireBeforeMs);
        q.putIdempotency.run(workspaceId, record.key, record.request_hash, JSON.stringify(record.response), record.created_at);
      },
      async recordUsage(kind, memoryId, nowMs) {
        q.recordUsage.run(workspaceId, kind, memoryId, nowMs);
      },
    };
  }

  /**
   * One write (a statement, a `db.transaction`, or `BEGIN IMMEDIATE`), its wait for the write lock another process
   * holds done between turns of the event loop rather than in SQLite's busy handler: that handler sleeps on this
   * thread, so while another process held the lock every request of this one waited too. Tried with busy_timeout 0
   * and paused 1-20 ms between tries, up to the same BUSY_TIMEOUT_MS, then the retryable store_unavailable as before.
   * A write that failed busy changed nothing (a statement or a transaction that could not take the lock rolls back),
   * so trying it again is safe.
   */
  async function whenFree<T>(write: () => T): Promise<T> {
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    for (let pauseMs = 1; ; pauseMs = Math.min(2 * pauseMs, MAX_LOCK_PAUSE_MS)) {
      const tried = tryOnce(write, Date.now() >= deadline);
      if (tried.done) return tried.value;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      if (closed) throw new ServiceError("store_unavailable", "The store is closed.");
    }
  }

  /**
   * One try of a write with busy_timeout 0: its value, or not done when another process holds the write lock (the
   * retryable store_unavailable instead when `last`). busy_timeout is set back at once, so reads and checkpoints on
   * this connection keep SQLite's own wait.
   */
  function tryOnce<T>(write: () => T, last: boolean): { done: true; value: T } | { done: false } {
    db.pragma("busy_timeout = 0");
    try {
      return { done: true, value: write() };
    } catch (err) {
      if (!isBusy(err) || last) throw asBusyError(err);
      return { done: false };
    } finally {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  const beginImmediate = () => whenFree(() => db.exec("BEGIN IMMEDIATE"));

  async function runWrite<T>(workspaceId: number, fn: (tx: WorkspaceTx) => Promise<T>): Promise<T> {
    if (closed) throw new ServiceError("store_unavailable", "The store is closed.");
    await beginImmediate();
    try {
      const result = await fn(txFor(workspaceId));
      db.exec("COMMIT");
      return result;
    } catch (err) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw err;
    }
  }

  const store: MemoryStore = {
    dialect: "sqlite",

    async insertWorkspace(w) {
      return toWorkspace({ ...w, id: rowId(q.insertWorkspace.run(w)) });
    },
    async getWorkspace(id) {
      const row = q.getWorkspace.get(id) as WorkspaceRow | undefined;
      return row ? toWorkspace(row) : null;
    },
    async setWorkspaceStatus(id, status) {
      q.setWorkspaceStatus.run(status, id);
      return store.getWorkspace(id);
    },
    async countWorkspaces() {
      return (q.countWorkspaces.get() as { n: number }).n;
    },
    async listWorkspaces() {
      const rows = q.listWorkspaces.all() as (WorkspaceRow & { memories: number; live_keys: number })[];
      return rows.map((r) => ({ workspace: toWorkspace(r), memories: r.memories, liveKeys: r.live_keys }));
    },
    async insertFirstWorkspace(w, key) {
      // IMMEDIATE takes the file's write lock before the count, so two processes cannot both see none.
      const insertIfNone = db.transaction(() => {
        if ((q.countWorkspaces.get() as { n: number }).n > 0) return null;
        const id = rowId(q.insertWorkspace.run(w));
        const keyId = rowId(q.insertKey.run({ ...key, workspace_id: id }));
        return { workspace: toWorkspace({ ...w, id }), keyId };
      });
      return serialize(async () => {
        try {
          return insertIfNone.immediate();
        } catch (err) {
          throw asBusyError(err);
        }
      });
    },

    async insertKey(key: NewKey) {
      return rowId(q.insertKey.run(key));
    },
    async findKeyByHash(keyHash) {
      const row = q.findKey.get(keyHash) as (WorkspaceRow & { key_id: number; key_prefix: string; key_hash: string }) | undefined;
      if (!row) return null;
      const { key_id, key_prefix, key_hash, ...ws } = row;
      return { keyId: key_id, prefix: key_prefix, keyHash: key_hash, workspace: toWorkspace(ws) };
    },
    async findKeyTakingToken(keyHash, rps, burst, nowMs) {
      const found = await store.findKeyByHash(keyHash);
      return found && { ...found, rate: buckets.take(found.keyId, rps, burst, nowMs) };
    },
    async revokeKey(keyId, nowMs) {
      return q.revokeKey.run(nowMs, keyId).changes > 0;
    },
    async getKey(keyId) {
      const row = q.getKey.get(keyId) as { workspace_id: number; revoked_at: number | null } | undefined;
      return row ? { workspaceId: row.workspace_id, revokedAt: row.revoked_at } : null;
    },
    async listKeys(workspaceId) {
      return q.listKeys.all(workspaceId) as ApiKeyRecord[];
    },
    async markKeyUsed(keyId, nowMs, notBeforeMs) {
      await serialize(() => whenFree(() => q.markKeyUsed.run(nowMs, keyId, notBeforeMs)));
    },

    vectorsSince: async (workspaceId, sinceRev, limit, codesFor) => readVectors(workspaceId, sinceRev, limit, codesFor),
    vectorsOf: async (workspaceId, ids) => vectorsOf(workspaceId, ids),
    memoriesWithVectors: async (workspaceId, ids) => memoriesWithVectors(workspaceId, ids),
    async readVectorSnapshot(workspaceId, embedderId) {
      const row = q.getSnapshot.get(workspaceId) as
        | { embedder_id: string; dimensions: number; up_to_rev: number; rows: number; generation: number; chunks: number }
        | undefined;
      if (!row || row.embedder_id !== embedderId) return null;
      return {
        embedderId,
        dimensions: row.dimensions,
        upToRev: row.up_to_rev,
        rows: row.rows,
        chunks: row.chunks,
        readChunk: async (chunk) => (q.getSnapshotChunk.get(workspaceId, row.generation, chunk) as Buffer | undefined) ?? null,
      };
    },
    async writeVectorSnapshot(workspaceId, header, chunks) {
      const generation = newSnapshotGeneration();
      let written = 0;
      for (const chunk of chunks) {
        await serialize(async () => {
          if (closed) throw new ServiceError("store_unavailable", "The store is closed.");
          await whenFree(() => q.insertSnapshotChunk.run(workspaceId, generation, written, chunk));
        });
        written++;
        // Other requests run between chunks (each ~1.7 MB).
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const published = await serialize(async () => {
        if (closed) throw new ServiceError("store_unavailable", "The store is closed.");
        try {
          const published = await whenFree(() => publishSnapshot.immediate(workspaceId, generation, written, header));
          // Codes of a memory forgotten meanwhile were in the chunks just deleted: out of the WAL too, as a forget does.
          if (!published) db.pragma("wal_checkpoint(TRUNCATE)");
          return published;
        } catch (err) {
          throw asBusyError(err);
        }
      });
      // The older generation goes a chunk per transaction: erasing (secure_delete) 38 MB at once held every write
      // ~140 ms at 100,000. A load that meets a chunk gone reads rows instead.
      if (published) {
        const older = (await serialize(async () => q.otherSnapshotChunks.all(workspaceId, generation))) as [number, number][];
        for (const [olderGeneration, chunk] of older) {
          await serialize(async () => {
            if (!closed) await whenFree(() => q.dropSnapshotChunk.run(workspaceId, olderGeneration, chunk));
          });
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
      return published;
    },
    async searchText(workspaceId, terms, limit, revOf) {
      const matchable = matchableTerms(terms);
      if (matchable.length === 0 || limit <= 0) return [];
      const { postings, total } = readPostings(workspaceId, matchable);
      return rankPostings(postings, total, limit, revOf);
    },
    recentWorkspaces: async (limit) => q.recentWorkspaces.all(limit) as number[],
    async getMemories(workspaceId, ids) {
      return memoriesOf(workspaceId, ids);
    },
    async listMemories(workspaceId) {
      return (q.listMemories.all(workspaceId) as MemoryRow[]).map(toMemory);
    },
    async countMemories(workspaceId) {
      return (q.countMemories.get(workspaceId) as { n: number }).n;
    },
    async healthCounts(workspaceId, query) {
      return readAllNow(healthCountsStatement("sqlite", workspaceId, query))[0] as unknown as HealthCounts;
    },
    browseMemories: (workspaceId, filter, page) =>
      readBrowse("sqlite", workspaceId, filter, page, readAll, (row) => toMemory(row as unknown as MemoryRow)),
    memoryStats: (workspaceId) => readStats("sqlite", workspaceId, readAll),
    async touchMemories(workspaceId, ids, nowMs) {
      if (ids.length === 0) return;
      await serialize(() => whenFree(() => q.touchMemories.run(nowMs, workspaceId, JSON.stringify(ids))));
    },
    async recordRead(workspaceId, ids, nowMs) {
      await serialize(() => whenFree(() => recordRead(workspaceId, ids, nowMs)));
    },
    async recordReads(batches, { waitForLock = true } = {}) {
      return serialize(async () => {
        if (waitForLock) {
          await whenFree(() => recordReads(batches));
          return true;
        }
        // busy_timeout's wait is a sleep on this thread: with another process's transaction open, it would hold every
        // request for up to BUSY_TIMEOUT_MS. Not waiting, a busy file writes nothing (the transaction rolls back).
        return tryOnce(() => recordReads(batches), false).done;
      });
    },
    async memoriesNotEmbeddedBy(embedderId, limit, workspaceId, fromPrefix = "") {
      const like = likePrefix(fromPrefix);
      const rows = (
        workspaceId ? q.notEmbeddedByIn.all(embedderId, like, workspaceId, limit) : q.notEmbeddedBy.all(embedderId, like, limit)
      ) as MemoryRow[];
      return rows.map(toMemory);
    },

    deleteMemories(workspaceId, ids) {
      return serialize(async () => {
        if (closed) throw new ServiceError("store_unavailable", "The store is closed.");
        try {
          const deleted = await whenFree(() => forget.immediate(workspaceId, ids, Date.now()));
          // The WAL still holds the pages as they were before the forget (the text): copied into the file, whose
          // freed bytes secure_delete has zeroed, and truncated. Waits (busy_timeout) for readers of older snapshots.
          if (deleted.length > 0) db.pragma("wal_checkpoint(TRUNCATE)");
          return deleted;
        } catch (err) {
          throw asBusyError(err);
        }
      });
    },

    compact() {
      return serialize(async () => {
        const started = Date.now();
        try {
          db.exec("VACUUM");
          const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
          return { ms: Date.now() - started, checkpoint: result?.busy === 0, statistics: true };
        } catch (err) {
          throw asBusyError(err);
        }
      });
    },

    writeInWorkspace(workspaceId, fn) {
      return serialize(() => runWrite(workspaceId, fn));
    },

    getIdempotency: async (workspaceId, key, notBeforeMs) => getIdempotency(workspaceId, key, notBeforeMs),

    async recordUsage(workspaceId, kind: UsageKind, memoryId, nowMs) {
      await serialize(() => whenFree(() => q.recordUsage.run(workspaceId, kind, memoryId, nowMs)));
    },
    async usageCounts(workspaceId) {
      const counts = { write: 0, read: 0 };
      for (const row of q.usageCounts.all(workspaceId) as { kind: UsageKind; n: number }[]) counts[row.kind] = row.n;
      return counts;
    },
    usagePerDay: async (workspaceId) => readUsagePerDay(q.usagePerDay.all(workspaceId) as Record<string, unknown>[]),
    usageBetween: async (workspaceId, fromMs, toMs) =>
      readUsageBetween(q.usageBetween.all(workspaceId, fromMs, toMs) as Record<string, unknown>[]),

    async takeRateToken(keyId, rps, burst, nowMs): Promise<RateDecision> {
      return buckets.take(keyId, rps, burst, nowMs);
    },

    webhooks: createWebhookStore(sqliteRunner(db, serialize, whenFree)),

    async ping() {
      if (!file.attached()) return false;
      try {
        await serialize(() => whenFree(() => q.probe.run(Date.now())));
        return q.readProbe.get() !== undefined;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      await writeQueue.catch(() => undefined);
      closed = true;
      // The thread's connection first: this one, the last, then checkpoints and removes the WAL as before.
      await checkpointer?.close();
      db.close();
    },
  };

  /** Runs one write at a time on this connection (other processes are serialized by SQLite itself). */
  function serialize<T>(fn: () => Promise<T>): Promise<T> {
    const write = async () => {
      file.requireAttached(); // a write to a deleted file would be acknowledged and lost
      try {
        return await fn();
      } finally {
        checkpointer?.afterWrite();
      }
    };
    const run = writeQueue.then(write, write);
    writeQueue = run.catch(() => undefined);
    return run;
  }

  return store;
}
