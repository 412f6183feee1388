// The memory store over one SQLite file (better-sqlite3, WAL). Several processes may open the same file: every
// write transaction is `BEGIN IMMEDIATE`, which SQLite serializes across processes (busy_timeout makes the others
// wait instead of failing). Durability: WAL with synchronous=NORMAL, so an acknowledged write survives the process
// being killed (kill -9); only an OS crash or power loss may lose the last transactions.
import { createRequire } from "node:module";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { ServiceError, type RateDecision, type Workspace } from "../types.js";
import type {
  HealthCounts,
  IdempotencyRecord,
  MemoryPatch,
  MemoryRecord,
  MemoryStore,
  NewMemory,
  NewKey,
  ReadsBatch,
  UsageKind,
  VectorRecord,
  WorkspaceTx,
} from "./types.js";
import { likePrefix, toMemory, toWorkspace, type MemoryRow, type WorkspaceRow } from "./rows.js";
import { createTokenBuckets } from "./token-bucket.js";
import { readBrowse, readStats, type Statement } from "./dashboard-sql.js";

type Db = BetterSqlite3.Database;

/** How long a writer waits for another process's transaction before SQLite reports busy. */
const BUSY_TIMEOUT_MS = 15_000;

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
];

const MEMORY_COLUMNS =
  "id, workspace_id, text, meta, embedder_id, importance, temporal_type, valid_until, categories, created_at, " +
  "updated_at, last_accessed_at, access_count, rev";

/** A time-bound memory past its end, for health (`@nowMs`). */
const EXPIRED = "temporal_type = 'time_bound' AND valid_until IS NOT NULL AND valid_until < @nowMs";

export function vectorToBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  // A view when the bytes are 4-byte aligned (the driver gives each value its own buffer); a copy otherwise.
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}



/** The integer id SQLite assigned to the row just inserted. */
function rowId(result: BetterSqlite3.RunResult): number {
  return Number(result.lastInsertRowid);
}

/** Another process held the write lock for longer than busy_timeout: a retryable 503, not a crash. */
function asBusyError(err: unknown): unknown {
  return (err as { code?: string }).code?.startsWith("SQLITE_BUSY")
    ? new ServiceError("store_unavailable", "The memory store is busy; retry in a moment.")
    : err;
}

export function loadDriver(): typeof BetterSqlite3 {
  const require = createRequire(import.meta.url);
  try {
    return require("better-sqlite3");
  } catch {
    throw new Error("The SQLite store needs the optional dependency better-sqlite3: run `npm install better-sqlite3`.");
  }
}

/** Brings the file to the current schema; returns the versions applied. */
export function migrate(db: Db): number[] {
  // Rebuilding tables needs foreign keys off (it is a no-op inside a transaction); they are checked before commit.
  db.pragma("foreign_keys = OFF");
  // IMMEDIATE: two processes opening an old or fresh file at once must not both run the migrations.
  const applied = db.transaction(() => {
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
  }).immediate();
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
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Retrieve reads scattered rows: keep pages in memory rather than one system call per page.
  db.pragma("cache_size = -65536");
  db.pragma("mmap_size = 268435456");
  try {
    migrate(db); // leaves foreign_keys on
  } catch (err) {
    db.close();
    throw asBusyError(err);
  }

  const q = {
    insertWorkspace: db.prepare(
      "INSERT INTO workspaces (name, plan, billing_cycle, status, created_at) VALUES (@name, @plan, @billing_cycle, @status, @created_at)",
    ),
    getWorkspace: db.prepare("SELECT * FROM workspaces WHERE id = ?"),
    setWorkspaceStatus: db.prepare("UPDATE workspaces SET status = ? WHERE id = ?"),
    countWorkspaces: db.prepare("SELECT count(*) AS n FROM workspaces"),
    listWorkspaces: db.prepare(
      "SELECT w.*, (SELECT count(*) FROM memories m WHERE m.workspace_id = w.id) AS memories, " +
        "(SELECT count(*) FROM api_keys k WHERE k.workspace_id = w.id AND k.revoked_at IS NULL) AS live_keys " +
        "FROM workspaces w ORDER BY w.created_at, w.id",
    ),
    insertKey: db.prepare(
      "INSERT INTO api_keys (workspace_id, key_hash, prefix, created_at) VALUES (@workspace_id, @key_hash, @prefix, @created_at)",
    ),
    findKey: db.prepare(
      "SELECT k.id AS key_id, k.prefix AS key_prefix, k.key_hash AS key_hash, w.* FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id " +
        "WHERE k.key_hash = ? AND k.revoked_at IS NULL",
    ),
    revokeKey: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    vectorsSince: db.prepare(
      "SELECT m.id, m.rev, m.embedder_id, v.vector FROM memories m JOIN memory_vectors v ON v.memory_id = m.id " +
        "WHERE m.workspace_id = ? AND m.rev > ? ORDER BY m.rev",
    ).raw(), // rows as arrays: building the index reads every vector of a workspace
    vectorsSincePage: db.prepare(
      "SELECT m.id, m.rev, m.embedder_id, v.vector FROM memories m JOIN memory_vectors v ON v.memory_id = m.id " +
        "WHERE m.workspace_id = ? AND m.rev > ? ORDER BY m.rev LIMIT ?",
    ).raw(),
    recentWorkspaces: db.prepare("SELECT workspace_id FROM memories GROUP BY workspace_id ORDER BY max(updated_at) DESC LIMIT ?").pluck(),
    insertVector: db.prepare("INSERT INTO memory_vectors (memory_id, vector) VALUES (?, ?)"),
    updateVector: db.prepare("UPDATE memory_vectors SET vector = ? WHERE memory_id = ?"),
    getMemory: db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = ? AND +workspace_id = ?`),
    listMemories: db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE workspace_id = ? ORDER BY rev`),
    countMemories: db.prepare("SELECT count(*) AS n FROM memories WHERE workspace_id = ?"),
    // length() counts characters (code points) of TEXT, as PostgreSQL's char_length() does.
    healthCounts: db.prepare(
      `SELECT count(*) AS total,
              count(*) FILTER (WHERE ${EXPIRED}) AS expired,
              count(*) FILTER (WHERE NOT (${EXPIRED}) AND coalesce(last_accessed_at, created_at) < @untouchedBeforeMs) AS untouched,
              count(*) FILTER (WHERE length(text) > @overlongChars) AS overlong,
              count(*) FILTER (WHERE access_count = 0 AND created_at < @neverRetrievedBeforeMs) AS neverRetrieved,
              count(*) FILTER (WHERE embedder_id <> @embedderId) AS otherModel
         FROM memories WHERE workspace_id = @workspaceId`,
    ),
    maxRev: db.prepare("SELECT coalesce(max(rev), 0) AS rev FROM memories WHERE workspace_id = ?"),
    insertMemory: db.prepare(
      "INSERT INTO memories (workspace_id, text, meta, embedder_id, importance, temporal_type, valid_until, " +
        "categories, created_at, updated_at, last_accessed_at, access_count, rev) VALUES (@workspace_id, @text, " +
        "@meta, @embedder_id, @importance, @temporal_type, @valid_until, @categories, @created_at, @created_at, " +
        "NULL, 0, @rev)",
    ),
    notEmbeddedBy: db.prepare(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE embedder_id <> ? AND embedder_id LIKE ? ESCAPE '\\' ORDER BY workspace_id, rev LIMIT ?`,
    ),
    notEmbeddedByIn: db.prepare(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE embedder_id <> ? AND embedder_id LIKE ? ESCAPE '\\' AND workspace_id = ? ` +
        "ORDER BY rev LIMIT ?",
    ),
    getIdempotency: db.prepare(
      "SELECT * FROM idempotency WHERE workspace_id = ? AND key = ? AND created_at >= ?",
    ),
    putIdempotency: db.prepare(
      "INSERT OR REPLACE INTO idempotency (workspace_id, key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?)",
    ),
    expireIdempotency: db.prepare("DELETE FROM idempotency WHERE workspace_id = ? AND created_at < ?"),
    recordUsage: db.prepare("INSERT INTO usage_events (workspace_id, kind, memory_id, created_at) VALUES (?, ?, ?, ?)"),
    usageCounts: db.prepare("SELECT kind, count(*) AS n FROM usage_events WHERE workspace_id = ? GROUP BY kind"),
    probe: db.prepare("INSERT INTO probe (id, at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET at = excluded.at"),
    readProbe: db.prepare("SELECT at FROM probe WHERE id = 1"),
    // Id lists travel as one JSON array parameter, so each statement is prepared once. `+workspace_id` keeps the
    // planner on the primary key (the (workspace_id, rev) index would scan the whole workspace).
    getMemories: db.prepare(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE +workspace_id = ? AND id IN (SELECT value FROM json_each(?))`,
    ),
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

  // The dashboard's statements vary with its filters; they are few and a person waits on each, so prepared per call.
  const readAll = async ({ sql, params }: Statement) => db.prepare(sql).all(...params) as Record<string, unknown>[];

  const buckets = createTokenBuckets();
  // One connection per process: a write transaction must not interleave with another on it.
  let writeQueue: Promise<unknown> = Promise.resolve();
  let closed = false;

  function readVectors(workspaceId: number, sinceRev: number, limit?: number): VectorRecord[] {
    const found = limit === undefined ? q.vectorsSince.all(workspaceId, sinceRev) : q.vectorsSincePage.all(workspaceId, sinceRev, limit);
    const rows = found as [id: number, rev: number, embedder_id: string, vector: Buffer][];
    return rows.map(([id, rev, embedder_id, vector]) => ({ id, rev, embedder_id, vector: bytesToVector(vector) }));
  }

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
      vectorsSince: async (sinceRev) => readVectors(workspaceId, sinceRev),
      getMemory: async (id) => getMemory(workspaceId, id),
      async insertMemory(m: NewMemory) {
        if (m.workspace_id !== workspaceId) throw new Error("insertMemory: workspace mismatch");
        const rev = (q.maxRev.get(workspaceId) as { rev: number }).rev + 1;
        const { vector, ...row } = m;
        const id = rowId(q.insertMemory.run({ ...row, meta: JSON.stringify(m.meta), categories: JSON.stringify(m.categories), rev }));
        q.insertVector.run(id, vectorToBytes(vector));
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
        const rev = (q.maxRev.get(workspaceId) as { rev: number }).rev + 1;
        values.rev = rev;
        sets.push("updated_at = @updated_at", "rev = @rev");
        // Only known columns reach here (MemoryPatch's keys), so the dynamic SET list is safe.
        const result = db
          .prepare(`UPDATE memories SET ${sets.join(", ")} WHERE id = @id AND +workspace_id = @workspace_id`)
          .run(values);
        if (!result.changes) return null;
        if (vector) q.updateVector.run(vectorToBytes(vector), id);
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

  async function runWrite<T>(workspaceId: number, fn: (tx: WorkspaceTx) => Promise<T>): Promise<T> {
    if (closed) throw new ServiceError("store_unavailable", "The store is closed.");
    try {
      db.exec("BEGIN IMMEDIATE");
    } catch (err) {
      throw asBusyError(err);
    }
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
    async revokeKey(keyId, nowMs) {
      return q.revokeKey.run(nowMs, keyId).changes > 0;
    },

    vectorsSince: async (workspaceId, sinceRev, limit) => readVectors(workspaceId, sinceRev, limit),
    recentWorkspaces: async (limit) => q.recentWorkspaces.all(limit) as number[],
    async getMemories(workspaceId, ids) {
      if (ids.length === 0) return [];
      return (q.getMemories.all(workspaceId, JSON.stringify(ids)) as MemoryRow[]).map(toMemory);
    },
    async listMemories(workspaceId) {
      return (q.listMemories.all(workspaceId) as MemoryRow[]).map(toMemory);
    },
    async countMemories(workspaceId) {
      return (q.countMemories.get(workspaceId) as { n: number }).n;
    },
    async healthCounts(workspaceId, query) {
      return q.healthCounts.get({ workspaceId, ...query }) as HealthCounts;
    },
    browseMemories: (workspaceId, filter, page) =>
      readBrowse("sqlite", workspaceId, filter, page, readAll, (row) => toMemory(row as unknown as MemoryRow)),
    memoryStats: (workspaceId) => readStats("sqlite", workspaceId, readAll),
    async touchMemories(workspaceId, ids, nowMs) {
      if (ids.length === 0) return;
      await serialize(async () => {
        q.touchMemories.run(nowMs, workspaceId, JSON.stringify(ids));
      });
    },
    async recordRead(workspaceId, ids, nowMs) {
      await serialize(async () => recordRead(workspaceId, ids, nowMs));
    },
    async recordReads(batches) {
      await serialize(async () => recordReads(batches));
    },
    async memoriesNotEmbeddedBy(embedderId, limit, workspaceId, fromPrefix = "") {
      const like = likePrefix(fromPrefix);
      const rows = (
        workspaceId ? q.notEmbeddedByIn.all(embedderId, like, workspaceId, limit) : q.notEmbeddedBy.all(embedderId, like, limit)
      ) as MemoryRow[];
      return rows.map(toMemory);
    },

    writeInWorkspace(workspaceId, fn) {
      return serialize(() => runWrite(workspaceId, fn));
    },

    getIdempotency: async (workspaceId, key, notBeforeMs) => getIdempotency(workspaceId, key, notBeforeMs),

    async recordUsage(workspaceId, kind: UsageKind, memoryId, nowMs) {
      await serialize(async () => {
        q.recordUsage.run(workspaceId, kind, memoryId, nowMs);
      });
    },
    async usageCounts(workspaceId) {
      const counts = { write: 0, read: 0 };
      for (const row of q.usageCounts.all(workspaceId) as { kind: UsageKind; n: number }[]) counts[row.kind] = row.n;
      return counts;
    },

    async takeRateToken(keyId, rps, burst, nowMs): Promise<RateDecision> {
      return buckets.take(keyId, rps, burst, nowMs);
    },

    async ping() {
      try {
        await serialize(async () => {
          q.probe.run(Date.now());
        });
        return q.readProbe.get() !== undefined;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      await writeQueue.catch(() => undefined);
      closed = true;
      db.close();
    },
  };

  /** Runs one write at a time on this connection (other processes are serialized by SQLite itself). */
  function serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = writeQueue.then(fn, fn);
    writeQueue = run.catch(() => undefined);
    return run;
  }

  return store;
}
