// The memory store on PostgreSQL: what lets any number of service processes share one database.
// Same behaviour as the SQLite store (./types.ts states the rules); what differs is how they hold across processes:
// writes to a workspace serialize on a transaction-scoped advisory lock keyed by the workspace, and idempotency
// records and rate-limit buckets live in the database. `pg` is an optional dependency, loaded on open.
import type { Pool, PoolClient, PoolConfig, QueryResult, QueryResultRow } from "pg";
import type { WorkspaceStatus } from "../../../contract/wire.js";
import type { RateDecision, ServiceLog, Workspace } from "../../types.js";
import {
  FORGOTTEN_EMBEDDER,
  type ApiKeyRecord,
  type HealthCounts,
  type HealthCountsQuery,
  type IdempotencyRecord,
  type MemoryPatch,
  type MemoryRecord,
  type MemoryStore,
  type MemoryWithVector,
  type NewMemory,
  type NewWorkspace,
  type NewKey,
  type ReadsBatch,
  type UsageKind,
  type LexicalMatch,
  type RevOf,
  type StoredVectorSnapshot,
  type VectorRecord,
  type VectorSnapshotHeader,
  type WorkspaceSummary,
  type WorkspaceTx,
  type UsageDay,
  type WriteReadAhead,
} from "../types.js";
import { likePrefix, toMemory, toWorkspace, type MemoryRow, type WorkspaceRow } from "../rows.js";
import { migrate } from "./schema.js";
import { boundedPoolConfig, withoutBounds } from "./pool.js";
import { MEMORY_ID_ATTEMPTS, newMemoryId } from "../memory-ids.js";
import { newSnapshotGeneration } from "../vector-snapshots.js";
import { CopyOutBytes } from "./copy-out.js";
import { redactingLog } from "./redacting-log.js";
import { asStoreError, isStoreUnavailable } from "./unavailable.js";
import {
  readBrowse,
  readStats,
  readUsageBetween,
  readUsagePerDay,
  USAGE_BETWEEN_SQL,
  USAGE_PER_DAY_SQL,
  type Statement,
} from "../dashboard-sql.js";
import type { MemoryFilter, MemoryStats } from "../types.js";
import { postgresRunner } from "../../webhooks/sql.js";
import {
  LIST_WORKSPACES_SQL,
  MEMORY_COLUMNS,
  Params,
  bytesToVector,
  healthCountsStatement,
  listMemoriesStatement,
  POSTINGS_PER_TERM,
  rankPostings,
  matchableTerms,
  vectorToBytes,
} from "../shared-sql.js";
import { createWebhookStore } from "../../webhooks/store.js";
import { vectorCodes } from "../../retrieval/int8-kernel.js";
import { plannerStatistics, type PlannerStatistics } from "./planner-statistics.js";

export interface PostgresStoreOptions {
  /** Connections per process (default 10, or `?pool_max=N` in the URL). */
  poolSize?: number;
  /** How long to wait for a connection before answering store_unavailable (ms, default 5,000). */
  connectTimeoutMs?: number;
  /** Where the store says that the database went away and came back (the password never reaches it). */
  log?: ServiceLog;
  /** Name the request path's fixed statements so each connection prepares them once (default: BRAIN_PG_PREPARED_STATEMENTS, on). */
  preparedStatements?: boolean;
}

/** Opens the pool, applies pending migrations and returns the store. Throws a clear error when `pg` is absent. */
export async function openPostgresStore(databaseUrl: string, opts: PostgresStoreOptions = {}): Promise<PostgresStore> {
  let pg: typeof import("pg");
  try {
    pg = (await import("pg")).default as unknown as typeof import("pg");
  } catch (err) {
    // The cause keeps ERR_MODULE_NOT_FOUND, which the CLI turns into "run: npm install pg".
    throw new Error("PostgreSQL support needs the optional package pg; run: npm install pg", { cause: err });
  }
  namedStatements = opts.preparedStatements ?? preparedStatementsFrom();
  const int8 = 20;
  const config: PoolConfig = {
    connectionString: databaseUrl,
    max: opts.poolSize ?? poolSizeFromUrl(databaseUrl) ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: "brain-mcp",
    // Every bigint here is an id, a millisecond timestamp, a rev or a count: all well inside 2^53.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === int8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text")) as never,
    },
  };
  const pool = new pg.Pool(boundedPoolConfig(config));
  const log = opts.log && redactingLog(opts.log, databaseUrl);
  // An idle connection cut by a database restart must not crash the process; the pool replaces it.
  pool.on("error", (err) => log?.warn("postgres connection lost", failure(err)));
  const store = new PostgresStore(pool, log);
  try {
    await store.migrate();
  } catch (err) {
    await pool.end().catch(() => {});
    throw asStoreError(err);
  }
  return store;
}

/** What a log line says about a driver failure: its code and message, never SQL or parameters. */
function failure(err: unknown): Record<string, unknown> {
  return { code: (err as { code?: unknown }).code, error: err instanceof Error ? err.message : String(err) };
}

function poolSizeFromUrl(databaseUrl: string): number | undefined {
  try {
    const v = new URL(databaseUrl).searchParams.get("pool_max");
    const n = v ? Number(v) : NaN;
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens a transaction holding the workspace's write lock, in one round trip (both statements in one message, so the
 * id is written into it: an integer, checked). Each workspace's writes serialize on this lock; a 64-bit hash of a
 * namespaced id keeps it apart from others'. The lock is its own statement: the next one reads a snapshot taken after
 * it was granted, so it sees every write committed before.
 */
function beginLocked(workspaceId: number): string {
  if (!Number.isSafeInteger(workspaceId)) throw new Error("a workspace id is an integer");
  return `BEGIN; SELECT pg_advisory_xact_lock(hashtextextended('brain-mcp:ws:${workspaceId}', 0))`;
}
/**
 * `s` as an SQL string literal, or undefined unless it is printable ASCII (an Idempotency-Key, an embedder id): for
 * the reads sent in the locking message, which, holding two statements, cannot take parameters. Escaped as pg's
 * escapeLiteral does (quotes doubled; with a backslash, an E'' string with backslashes doubled), so the literal reads
 * the same whatever standard_conforming_strings says.
 */
export function asciiLiteral(s: string): string | undefined {
  if (!/^[\x20-\x7e]*$/.test(s)) return undefined;
  const quoted = s.replace(/'/g, "''");
  return s.includes("\\") ? `E'${quoted.replace(/\\/g, "\\\\")}'` : `'${quoted}'`;
}
/** Hands out a statement's values: placeholders (Params) or literals (Literals). */
interface Values {
  add(value: unknown): string;
}
/**
 * Values as SQL literals instead of placeholders, for a message that holds more than one statement (the waiting writes
 * and COMMIT): null, safe integers and printable ASCII strings (asciiLiteral); `inlined` turns false at any other value,
 * and the statement then goes with placeholders instead.
 */
class Literals implements Values {
  inlined = true;
  add(value: unknown): string {
    if (value === null) return "NULL";
    if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
    const literal = typeof value === "string" ? asciiLiteral(value) : undefined;
    if (literal === undefined) this.inlined = false;
    return literal ?? "NULL";
  }
}
/** Bookkeeping, not a memory: no wait for the WAL flush (the server writes it within 3 × wal_writer_delay). */
const BEGIN_BOOKKEEPING = "BEGIN; SET LOCAL synchronous_commit = off";
/** How long `admin memory compact` waits for the memories table's lock before giving up (ms). */
const COMPACT_LOCK_WAIT_MS = 5_000;
/**
 * A vector snapshot's chunks read per round trip (about 1.7 MB each at 384 dimensions): fewer statements, while the
 * chunks held at once stay a few megabytes.
 */
const SNAPSHOT_CHUNKS_PER_READ = 5;
/** Serializes "create the first workspace when there is none" across processes. */
const FIRST_WORKSPACE_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended('brain-mcp:first-workspace', 0))";

/**
 * A statement the server parses and plans once per connection, then only binds and executes (pg prepares it on a
 * connection's first use of the name): for the request path's fixed statements, whose parse and plan cost the server
 * more than their execution (the key's statement: ~0.45 ms of backend CPU unprepared, ~0.1 ms prepared). Each call
 * passes a new object (pg sets the values on it). Fixed texts only, and no `*`: a prepared statement's result columns
 * cannot change under it.
 */
interface Prepared {
  name?: string;
  text: string;
}
/**
 * Off with BRAIN_PG_PREPARED_STATEMENTS=off (or 0, false, no) for a transaction-mode pooler that cannot keep a
 * connection's prepared statements (PgBouncer before 1.21, or without max_prepared_statements): the same texts then
 * run unnamed. Process-wide, like the environment it is read from when a store opens.
 */
let namedStatements = true;
export function preparedStatementsFrom(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = (env.BRAIN_PG_PREPARED_STATEMENTS ?? "").trim().toLowerCase();
  return !["0", "off", "false", "no"].includes(raw);
}
const prepared = (name: string, text: string) => (): Prepared => (namedStatements ? { name: `brain-mcp:${name}`, text } : { text });

/**
 * A key's rate bucket, upserted: refill by elapsed time (capped at burst), then take a token if one is there; the row
 * lock makes concurrent requests from every process draw from the same bucket. `row` gives the new bucket's
 * (key_id, tokens, updated_ms, allowed); the other arguments are the placeholders of rps, burst and now (ms).
 */
const RATE_UPSERT = (row: string, rps: string, burst: string, now: string) => {
  const refilled = `LEAST(${burst}::float8, b.tokens + GREATEST(0, ${now}::bigint - b.updated_ms) * ${rps}::float8 / 1000.0)`;
  return `INSERT INTO rate_buckets AS b (key_id, tokens, updated_ms, allowed)
       ${row}
       ON CONFLICT (key_id) DO UPDATE SET
         tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
         updated_ms = GREATEST(b.updated_ms, ${now}::bigint),
         allowed = ${refilled} >= 1`;
};

const KEY_TAKING_TOKEN = prepared(
  "key-taking-token",
  `WITH k AS (
     SELECT k.id AS key_id, k.prefix, k.key_hash, w.id, w.name, w.plan, w.billing_cycle, w.status, w.created_at
       FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL
   ), t AS (
     ${RATE_UPSERT("SELECT key_id, $3::float8 - 1, $4::bigint, $3::float8 >= 1 FROM k", "$2", "$3", "$4")}
     RETURNING b.key_id, b.tokens, b.allowed
   )
   SELECT k.*, t.tokens AS rate_tokens, t.allowed AS rate_allowed FROM k JOIN t ON t.key_id = k.key_id`,
);
const TAKE_RATE_TOKEN = prepared(
  "take-rate-token",
  `${RATE_UPSERT("VALUES ($1, $3::float8 - 1, $4::bigint, $3::float8 >= 1)", "$2", "$3", "$4")} RETURNING tokens, allowed`,
);

function rateDecision(tokens: number, allowed: boolean, rps: number): RateDecision {
  if (allowed) return { allowed: true, retryAfterSeconds: 0 };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / rps)) };
}

interface Queryable {
  query<R extends QueryResultRow>(sql: string | Prepared, params?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/**
 * The rows of a workspace above a rev, in rev order: rows of `codesFor`'s embedder that have codes come with their
 * codes instead of their floats (a quarter of the bytes), the others with their floats; forgotten memories as
 * tombstones (a row without a vector, ./types.ts). The arguments are placeholders or literals.
 */
const vectorsSinceSql = (workspace: string, since: string, codesFor: string, page = "") =>
  `SELECT id, rev, embedder_id,
          CASE WHEN vector_codes IS NULL OR embedder_id <> ${codesFor} THEN vector END AS vector,
          CASE WHEN embedder_id = ${codesFor} THEN vector_codes END AS codes
     FROM memories WHERE workspace_id = ${workspace} AND rev > ${since}
   UNION ALL
   SELECT memory_id, rev, '${FORGOTTEN_EMBEDDER}', NULL::bytea, NULL::bytea FROM memory_tombstones WHERE workspace_id = ${workspace} AND rev > ${since}
   ORDER BY rev${page}`;
/**
 * Prepared, as the request path asks it on every retrieve (the index refresh): a range of the (workspace_id, rev)
 * index whatever the parameters.
 */
const VECTORS_SINCE = prepared("vectors-since", vectorsSinceSql("$1", "$2", "$3"));
const VECTORS_SINCE_PAGE = prepared("vectors-since-page", vectorsSinceSql("$1", "$2", "$3", " LIMIT $4"));

type VectorSinceRow = { id: number; rev: number; embedder_id: string; vector: Buffer | null; codes: Buffer | null };

function toVectorRecords(rows: readonly VectorSinceRow[]): VectorRecord[] {
  return rows.map((r) => {
    const record: VectorRecord = {
      id: r.id,
      rev: r.rev,
      embedder_id: r.embedder_id,
      vector: r.vector === null ? new Float32Array(0) : bytesToVector(r.vector),
    };
    if (r.vector === null && r.codes !== null) record.codes = r.codes;
    return record;
  });
}

/** The statements shared by the locked transaction and the unlocked reads (vectorsSinceSql; without `codesFor` every row has its floats). */
async function vectorsSince(
  db: Queryable,
  workspaceId: number,
  sinceRev: number,
  limit?: number,
  codesFor = FORGOTTEN_EMBEDDER,
): Promise<VectorRecord[]> {
  const { rows } = await db.query<VectorSinceRow>(
    limit === undefined ? VECTORS_SINCE() : VECTORS_SINCE_PAGE(),
    limit === undefined ? [workspaceId, sinceRev, codesFor] : [workspaceId, sinceRev, codesFor, limit],
  );
  return toVectorRecords(rows);
}

const VECTORS_OF = prepared(
  "vectors-of",
  "SELECT id, rev, embedder_id, vector FROM memories WHERE workspace_id = $1 AND id = ANY($2::bigint[])",
);
const MEMORIES_WITH_VECTORS = prepared(
  "memories-with-vectors",
  `SELECT ${MEMORY_COLUMNS}, vector FROM memories WHERE workspace_id = $1 AND id = ANY($2::bigint[])`,
);

async function vectorsOf(db: Queryable, workspaceId: number, ids: readonly number[]): Promise<VectorRecord[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: number; rev: number; embedder_id: string; vector: Buffer }>(VECTORS_OF(), [workspaceId, [...ids]]);
  return rows.map((r) => ({ id: r.id, rev: r.rev, embedder_id: r.embedder_id, vector: bytesToVector(r.vector) }));
}

/** The float rows of `ids` with their records, in one statement (./types.ts memoriesWithVectors). */
async function memoriesWithVectors(db: Queryable, workspaceId: number, ids: readonly number[]): Promise<MemoryWithVector[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<MemoryRow & { vector: Buffer }>(MEMORIES_WITH_VECTORS(), [workspaceId, [...ids]]);
  return rows.map((r) => ({
    record: toMemory(r),
    vector: { id: r.id, rev: r.rev, embedder_id: r.embedder_id, vector: bytesToVector(r.vector) },
  }));
}

async function run<R extends QueryResultRow>(db: Queryable, { sql, params }: Statement): Promise<R[]> {
  return (await db.query<R>(sql, params)).rows;
}

const GET_IDEMPOTENCY = prepared(
  "get-idempotency",
  "SELECT request_hash, response, created_at FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND created_at >= $3",
);

type IdempotencyRow = { request_hash: string; response: string; created_at: number };

async function getIdempotency(db: Queryable, workspaceId: number, key: string, notBeforeMs: number): Promise<IdempotencyRecord | null> {
  const { rows } = await db.query<IdempotencyRow>(GET_IDEMPOTENCY(), [workspaceId, key, notBeforeMs]);
  return idempotencyRecord(workspaceId, key, rows[0]);
}

function idempotencyRecord(workspaceId: number, key: string, row: IdempotencyRow | undefined): IdempotencyRecord | null {
  return row
    ? { workspace_id: workspaceId, key, request_hash: row.request_hash, response: JSON.parse(row.response), created_at: row.created_at }
    : null;
}

async function insertWorkspace(db: Queryable, w: NewWorkspace): Promise<Workspace> {
  const { rows } = await db.query<WorkspaceRow>(
    "INSERT INTO workspaces (name, plan, billing_cycle, status, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *",
    [w.name, w.plan, w.billing_cycle, w.status, w.created_at],
  );
  return toWorkspace(rows[0]!);
}

async function insertKey(db: Queryable, key: NewKey): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    "INSERT INTO api_keys (workspace_id, key_hash, prefix, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
    [key.workspace_id, key.key_hash, key.prefix, key.created_at],
  );
  return rows[0]!.id;
}

async function recordUsage(db: Queryable, workspaceId: number, kind: UsageKind, memoryId: number | null, nowMs: number) {
  const p = new Params("postgres");
  const { sql, params } = p.statement(usageInsert(p, workspaceId, kind, memoryId, nowMs));
  await db.query(sql, params);
}

const usageInsert = (p: Values, workspaceId: number, kind: UsageKind, memoryId: number | null, nowMs: number) =>
  `INSERT INTO usage_events (workspace_id, kind, memory_id, created_at) VALUES (${p.add(workspaceId)}, ${p.add(kind)}, ${p.add(memoryId)}, ${p.add(nowMs)})`;

/**
 * The workspace's next rev, computed in the writing statement; `workspaceParam` is the placeholder holding the
 * workspace id. Under the workspace lock, max + 1 is strictly increasing and committed in order (./types.ts).
 */
const nextRev = (workspaceParam: string) =>
  `(SELECT GREATEST((SELECT COALESCE(MAX(rev), 0) FROM memories WHERE workspace_id = ${workspaceParam}), ` +
  `(SELECT COALESCE(MAX(rev), 0) FROM memory_tombstones WHERE workspace_id = ${workspaceParam})) + 1)`;

const INSERT_MEMORY = prepared(
  "insert-memory",
  `INSERT INTO memories (id, workspace_id, text, meta, vector, embedder_id, importance, temporal_type, valid_until,
                               categories, created_at, updated_at, last_accessed_at, access_count, rev, vector_codes)
         OVERRIDING SYSTEM VALUE
         SELECT $11::bigint, $1::bigint, $2::text, $3::text, $4::bytea, $5::text, $6::integer, $7::text, $8::bigint,
                $9::text, $10::bigint, $10::bigint, NULL, 0, ${nextRev("$1::bigint")}, $12::bytea
          WHERE NOT EXISTS (SELECT 1 FROM memory_tombstones WHERE memory_id = $11::bigint)
         ON CONFLICT (id) DO NOTHING
         RETURNING ${MEMORY_COLUMNS}`,
);

const RECORD_READS = prepared(
  "record-reads",
  `WITH t AS (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::bigint[]) AS t(workspace_id, id, n, at)),
            locked AS (SELECT m.id FROM memories m JOIN t USING (id, workspace_id) ORDER BY m.id FOR UPDATE OF m),
            touched AS (
              UPDATE memories m SET access_count = m.access_count + t.n,
                                    last_accessed_at = GREATEST(COALESCE(m.last_accessed_at, 0), t.at)
                FROM t WHERE m.id = t.id AND m.workspace_id = t.workspace_id AND m.id IN (SELECT id FROM locked)),
            usage AS (
              INSERT INTO usage_events (workspace_id, kind, memory_id, created_at)
              SELECT w, 'read', NULL, at FROM unnest($5::bigint[], $6::bigint[]) AS r(w, at))
       SELECT set_config('synchronous_commit', 'off', true)`,
);

/**
 * The lexical statement stays unprepared: a generic plan, made for no workspace in particular, could take the
 * workspace's btree over the words' GIN index, the slow path of "PostgreSQL: the retrieve tail" (test/bench/README.md).
 */
const searchTextSql = (
  order: string,
) => `SELECT u.t AS term, array_to_string(ARRAY(SELECT id FROM memories WHERE workspace_id = $2 AND lexemes @@
                 to_tsquery('simple', quote_literal(brain_lexical_fold(u.t)) || ':*')
               LIMIT ${POSTINGS_PER_TERM}), ',') AS ids,
              coalesce((SELECT memories FROM workspace_memory_counts WHERE workspace_id = $2), 0) AS total${order}
         FROM unnest($1::text[]) WITH ORDINALITY AS u(t, k)`;
const SEARCH_TEXT_SQL = `${searchTextSql("")} ORDER BY u.k`;
/**
 * The lexical statement and the index's rows since a rev (vectorsSinceSql, at most $5) in one: the words' rows first
 * (`part` 0, in the words' order), then the vectors' (`part` 1, in rev order), each with the other's columns null.
 */
const SEARCH_TEXT_WITH_VECTORS_SQL = `SELECT 0 AS part, l.*, NULL::bigint AS id, NULL::bigint AS rev, NULL::text AS embedder_id,
         NULL::bytea AS vector, NULL::bytea AS codes
    FROM (${searchTextSql(", u.k")}) AS l
  UNION ALL
  SELECT 1, NULL, NULL, NULL, NULL, v.* FROM (${vectorsSinceSql("$2", "$3", "$4", " LIMIT $5")}) AS v
  ORDER BY part, k, rev`;

type PostingsRow = { term: string; ids: string; total: number };

/** A lexical statement's rows ranked as SQLite's are (rankPostings). */
function rankedPostings(rows: readonly PostingsRow[], limit: number, revOf?: RevOf): LexicalMatch[] {
  return rankPostings(
    rows.map((r) => ({ term: r.term, ids: r.ids === "" ? [] : r.ids.split(",").map(Number) })),
    Number(rows[0]?.total ?? 0),
    limit,
    revOf,
  );
}

/** A write that answers nothing: its data-modifying statements, their values from the shared `p`. */
type PendingWrite = (p: Values) => string[];

/** Writes that answer nothing as one statement: each a part of its WITH. */
const asOneStatement = (parts: readonly string[]) =>
  parts.length === 1 ? parts[0]! : `WITH ${parts.map((part, i) => `w${i} AS (${part})`).join(", ")} SELECT 1`;

class PostgresWorkspaceTx implements WorkspaceTx {
  /**
   * Writes that answer nothing (the usage event, the idempotency record) wait here and go to the database as one
   * statement, before the next statement of the transaction or before its COMMIT: a store's last writes cost one
   * round trip, and every statement still sees the writes made before it.
   */
  private pending: PendingWrite[] = [];
  /** An idempotency record is among the waiting writes. */
  private recordPending = false;
  /**
   * What the locking message read (PostgresStore.writeInWorkspace), each answered once to the call it matches and
   * forgotten at the transaction's first write: until then it is what that call would read (the lock is held).
   */
  ahead: {
    /** The key's record whatever its age (the call's `notBeforeMs` filters it), or none. */
    idempotency?: { key: string; row: IdempotencyRow | undefined };
    vectors?: { sinceRev: number; codesFor: string; rows: VectorRecord[] };
  } = {};

  constructor(
    readonly workspaceId: number,
    private readonly client: PoolClient,
  ) {}

  /** Sends the waiting writes (as one statement, each a part of its WITH); the transaction's end calls this too. */
  async writePending(): Promise<void> {
    if (this.pending.length === 0) return;
    const p = new Params("postgres");
    const parts = this.pending.flatMap((write) => write(p));
    this.pending = [];
    this.recordPending = false;
    await this.client.query(asOneStatement(parts), p.values);
  }

  /**
   * The message that ends the transaction: the waiting writes and COMMIT in one round trip, their values as literals
   * (a message of two statements takes no parameters; a store's usage event and idempotency record hold ids, times,
   * the key and the response's JSON, all printable ASCII); when a value cannot be a literal, the writes go first as
   * their own statement, as before. A failing write ends the message before its COMMIT, so nothing commits.
   */
  async commitMessage(): Promise<string> {
    if (this.pending.length > 0) {
      const literals = new Literals();
      const parts = this.pending.flatMap((write) => write(literals));
      if (literals.inlined) {
        this.pending = [];
        this.recordPending = false;
        return `${asOneStatement(parts)}; COMMIT`;
      }
      await this.writePending();
    }
    return "COMMIT";
  }

  /** The transaction's connection, once the waiting writes are in. */
  private async db(): Promise<PoolClient> {
    await this.writePending();
    return this.client;
  }

  async vectorsSince(sinceRev: number, limit?: number, codesFor?: string): Promise<VectorRecord[]> {
    const ahead = this.ahead.vectors;
    if (ahead && limit === undefined && codesFor === ahead.codesFor && sinceRev >= ahead.sinceRev) {
      this.ahead.vectors = undefined;
      return ahead.rows.filter((r) => r.rev > sinceRev);
    }
    return vectorsSince(await this.db(), this.workspaceId, sinceRev, limit, codesFor);
  }

  async vectorsOf(ids: readonly number[]): Promise<VectorRecord[]> {
    return vectorsOf(await this.db(), this.workspaceId, ids);
  }

  async memoriesWithVectors(ids: readonly number[]): Promise<MemoryWithVector[]> {
    return memoriesWithVectors(await this.db(), this.workspaceId, ids);
  }

  async getMemory(id: number): Promise<MemoryRecord | null> {
    const { rows } = await (await this.db()).query<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE workspace_id = $1 AND id = $2`,
      [this.workspaceId, id],
    );
    return rows[0] ? toMemory(rows[0]) : null;
  }

  async insertMemory(m: NewMemory): Promise<MemoryRecord> {
    this.ahead = {};
    for (let attempt = 1; ; attempt++) {
      // ON CONFLICT and NOT EXISTS rather than an error (a failed statement would abort the whole transaction): an id
      // held by a memory or once held by a forgotten one inserts nothing, and another is drawn.
      const { rows } = await (await this.db()).query<MemoryRow>(INSERT_MEMORY(), [
        this.workspaceId,
        m.text,
        JSON.stringify(m.meta),
        vectorToBytes(m.vector),
        m.embedder_id,
        m.importance,
        m.temporal_type,
        m.valid_until,
        JSON.stringify(m.categories),
        m.created_at,
        newMemoryId(),
        vectorCodes(m.vector),
      ]);
      if (rows[0]) return toMemory(rows[0]);
      if (attempt === MEMORY_ID_ATTEMPTS) throw new Error("no free memory id after several attempts");
    }
  }

  async updateMemory(id: number, patch: MemoryPatch, nowMs: number): Promise<MemoryRecord | null> {
    this.ahead = {};
    const sets: string[] = [];
    const params: unknown[] = [this.workspaceId, id];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (patch.text !== undefined) set("text", patch.text);
    if (patch.meta !== undefined) set("meta", JSON.stringify(patch.meta));
    if (patch.vector !== undefined) {
      set("vector", vectorToBytes(patch.vector));
      set("vector_codes", vectorCodes(patch.vector));
    }
    if (patch.embedder_id !== undefined) set("embedder_id", patch.embedder_id);
    if (patch.importance !== undefined) set("importance", patch.importance);
    if (patch.temporal_type !== undefined) set("temporal_type", patch.temporal_type);
    if (patch.valid_until !== undefined) set("valid_until", patch.valid_until);
    if (patch.categories !== undefined) set("categories", JSON.stringify(patch.categories));
    if (patch.access_count !== undefined) set("access_count", patch.access_count);
    if (patch.last_accessed_at !== undefined) set("last_accessed_at", patch.last_accessed_at);
    set("updated_at", nowMs);
    sets.push(`rev = ${nextRev("$1")}`);
    const { rows } = await (await this.db()).query<MemoryRow>(
      `UPDATE memories SET ${sets.join(", ")} WHERE workspace_id = $1 AND id = $2 RETURNING ${MEMORY_COLUMNS}`,
      params,
    );
    return rows[0] ? toMemory(rows[0]) : null;
  }

  async getIdempotency(key: string, notBeforeMs: number): Promise<IdempotencyRecord | null> {
    const ahead = this.ahead.idempotency;
    if (ahead && ahead.key === key) {
      this.ahead.idempotency = undefined;
      return idempotencyRecord(this.workspaceId, key, ahead.row && ahead.row.created_at >= notBeforeMs ? ahead.row : undefined);
    }
    return getIdempotency(await this.db(), this.workspaceId, key, notBeforeMs);
  }

  async putIdempotency(record: IdempotencyRecord, expireBeforeMs: number): Promise<void> {
    // Two upserts of one key in one statement would collide: a second record waits for the first to be written.
    this.ahead = {};
    if (this.recordPending) await this.writePending();
    this.recordPending = true;
    this.pending.push((p) => {
      const [ws, key] = [p.add(this.workspaceId), p.add(record.key)];
      return [
        // the workspace's old records go (never the one being written)
        `DELETE FROM idempotency_keys WHERE workspace_id = ${ws} AND created_at < ${p.add(expireBeforeMs)} AND key <> ${key}`,
        `INSERT INTO idempotency_keys (workspace_id, key, request_hash, response, created_at)
         VALUES (${ws}, ${key}, ${p.add(record.request_hash)}, ${p.add(JSON.stringify(record.response))}, ${p.add(record.created_at)})
         ON CONFLICT (workspace_id, key) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, response = EXCLUDED.response, created_at = EXCLUDED.created_at`,
      ];
    });
  }

  async recordUsage(kind: UsageKind, memoryId: number | null, nowMs: number): Promise<void> {
    this.ahead = {};
    this.pending.push((p) => [usageInsert(p, this.workspaceId, kind, memoryId, nowMs)]);
  }
}

export class PostgresStore implements MemoryStore {
  readonly dialect = "postgres" as const;
  private closed = false;
  /** Set by the first failed statement of an outage, so the outage is logged once, and its end once. */
  private unavailable = false;

  /** Keeps the planner's estimate of each workspace near its size (./planner-statistics.ts). */
  private readonly statistics: PlannerStatistics;

  constructor(
    private readonly pool: Pool,
    private readonly log?: ServiceLog,
  ) {
    this.webhooks = createWebhookStore(postgresRunner(pool));
    // On the pool itself, not through q(): background work, whose failures are its own (an outage is the requests' to log).
    this.statistics = plannerStatistics((sql) => pool.query(sql), log);
  }

  /** Applies pending migrations on a dedicated connection (several processes may start at once). */
  async migrate(): Promise<number[]> {
    const client = await this.pool.connect();
    const onError = () => {};
    client.on("error", onError);
    try {
      const applied = await withoutBounds(client, () => migrate(client));
      if (applied.length > 0) this.log?.info("postgres schema migrated", { versions: applied });
      return applied;
    } finally {
      client.off("error", onError);
      client.release();
    }
  }

  /** One statement on any pooled connection; connection failures become store_unavailable. */
  private async q<R extends QueryResultRow>(
    sql: string | Prepared,
    params: unknown[] = [],
  ): Promise<{ rows: R[]; rowCount: number | null }> {
    try {
      const result = await this.pool.query<R>(sql, params);
      this.reachable();
      return result;
    } catch (err) {
      throw this.failed(err);
    }
  }

  /** Maps a failure to what the caller throws; the first one of an outage is logged. */
  private failed(err: unknown): unknown {
    if (isStoreUnavailable(err) && !this.unavailable && !this.closed) {
      this.unavailable = true;
      this.log?.warn("postgres unreachable; answering store_unavailable until it is back", failure(err));
    }
    return asStoreError(err);
  }

  private reachable(): void {
    if (!this.unavailable) return;
    this.unavailable = false;
    this.log?.info("postgres reachable again");
  }

  private readonly db: Queryable = { query: (sql, params) => this.q(sql, params) };

  readonly webhooks;

  // Workspaces

  insertWorkspace(w: NewWorkspace): Promise<Workspace> {
    return insertWorkspace(this.db, w);
  }

  async insertFirstWorkspace(w: NewWorkspace, key: Omit<NewKey, "workspace_id">): Promise<{ workspace: Workspace; keyId: number } | null> {
    return this.transaction(async (client) => {
      // Every process starting on an empty database queues here; the count then sees what the winner committed.
      await client.query(FIRST_WORKSPACE_LOCK_SQL);
      const { rows } = await client.query<{ any: boolean }>("SELECT EXISTS (SELECT 1 FROM workspaces) AS any");
      if (rows[0]!.any) return null;
      const workspace = await insertWorkspace(client, w);
      const keyId = await insertKey(client, { ...key, workspace_id: workspace.id });
      return { workspace, keyId };
    });
  }

  async getWorkspace(id: number): Promise<Workspace | null> {
    const { rows } = await this.q<WorkspaceRow>("SELECT * FROM workspaces WHERE id = $1", [id]);
    return rows[0] ? toWorkspace(rows[0]) : null;
  }

  async setWorkspaceStatus(id: number, status: WorkspaceStatus): Promise<Workspace | null> {
    const { rows } = await this.q<WorkspaceRow>("UPDATE workspaces SET status = $2 WHERE id = $1 RETURNING *", [id, status]);
    return rows[0] ? toWorkspace(rows[0]) : null;
  }

  async countWorkspaces(): Promise<number> {
    const { rows } = await this.q<{ n: number }>("SELECT count(*) AS n FROM workspaces");
    return rows[0]!.n;
  }

  async listWorkspaces(): Promise<WorkspaceSummary[]> {
    const { rows } = await this.q<WorkspaceRow & { memories: number; live_keys: number }>(LIST_WORKSPACES_SQL);
    return rows.map((r) => ({ workspace: toWorkspace(r), memories: r.memories, liveKeys: r.live_keys }));
  }

  // Keys

  insertKey(key: NewKey): Promise<number> {
    return insertKey(this.db, key);
  }

  async findKeyByHash(keyHash: string): Promise<{ keyId: number; prefix: string; keyHash: string; workspace: Workspace } | null> {
    const { rows } = await this.q<WorkspaceRow & { key_id: number; prefix: string; key_hash: string }>(
      `SELECT k.id AS key_id, k.prefix, k.key_hash, w.*
         FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    const row = rows[0];
    return row ? { keyId: row.key_id, prefix: row.prefix, keyHash: row.key_hash, workspace: toWorkspace(row) } : null;
  }

  async findKeyTakingToken(
    keyHash: string,
    rps: number,
    burst: number,
    nowMs: number,
  ): Promise<{ keyId: number; prefix: string; keyHash: string; workspace: Workspace; rate: RateDecision } | null> {
    // The key's row and its bucket's upsert in one statement: one round trip before the request's own work, not two.
    const { rows } = await this.q<
      WorkspaceRow & { key_id: number; prefix: string; key_hash: string; rate_tokens: number; rate_allowed: boolean }
    >(KEY_TAKING_TOKEN(), [keyHash, rps, burst, nowMs]);
    const row = rows[0];
    if (!row) return null;
    const { key_id, prefix, key_hash, rate_tokens, rate_allowed, ...workspace } = row;
    return {
      keyId: key_id,
      prefix,
      keyHash: key_hash,
      workspace: toWorkspace(workspace as WorkspaceRow),
      rate: rateDecision(rate_tokens, rate_allowed, rps),
    };
  }

  async revokeKey(keyId: number, nowMs: number): Promise<boolean> {
    const { rowCount } = await this.q("UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL", [keyId, nowMs]);
    return (rowCount ?? 0) > 0;
  }

  async getKey(keyId: number): Promise<{ workspaceId: number; revokedAt: number | null } | null> {
    const { rows } = await this.q<{ workspace_id: number; revoked_at: number | null }>(
      "SELECT workspace_id, revoked_at FROM api_keys WHERE id = $1",
      [keyId],
    );
    return rows[0] ? { workspaceId: rows[0].workspace_id, revokedAt: rows[0].revoked_at } : null;
  }

  async listKeys(workspaceId: number): Promise<ApiKeyRecord[]> {
    const { rows } = await this.q<ApiKeyRecord>(
      "SELECT id, prefix, created_at, last_used_at, revoked_at FROM api_keys WHERE workspace_id = $1 ORDER BY created_at, id",
      [workspaceId],
    );
    return rows;
  }

  async markKeyUsed(keyId: number, nowMs: number, notBeforeMs: number): Promise<void> {
    await this.q("UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND coalesce(last_used_at, 0) < $3", [keyId, nowMs, notBeforeMs]);
  }

  // Memories

  vectorsSince(workspaceId: number, sinceRev: number, limit?: number, codesFor?: string): Promise<VectorRecord[]> {
    return vectorsSince(this.db, workspaceId, sinceRev, limit, codesFor);
  }

  vectorsOf(workspaceId: number, ids: readonly number[]): Promise<VectorRecord[]> {
    return vectorsOf(this.db, workspaceId, ids);
  }

  memoriesWithVectors(workspaceId: number, ids: readonly number[]): Promise<MemoryWithVector[]> {
    return memoriesWithVectors(this.db, workspaceId, ids);
  }

  async readVectorSnapshot(workspaceId: number, embedderId: string): Promise<StoredVectorSnapshot | null> {
    const { rows } = await this.q<{
      embedder_id: string;
      dimensions: number;
      up_to_rev: string;
      rows: number;
      generation: string;
      chunks: number;
    }>("SELECT embedder_id, dimensions, up_to_rev, rows, generation, chunks FROM vector_snapshots WHERE workspace_id = $1", [workspaceId]);
    const row = rows[0];
    if (!row || row.embedder_id !== embedderId) return null;
    let ahead = new Map<number, Uint8Array>();
    return {
      embedderId,
      dimensions: row.dimensions,
      upToRev: Number(row.up_to_rev),
      rows: row.rows,
      chunks: row.chunks,
      readChunk: async (chunk) => {
        // Several chunks a round trip: the next calls ask for them in order.
        if (!ahead.has(chunk)) ahead = await this.snapshotChunks(workspaceId, row.generation, chunk, SNAPSHOT_CHUNKS_PER_READ);
        const bytes = ahead.get(chunk) ?? null;
        ahead.delete(chunk);
        return bytes;
      },
    };
  }

  /**
   * Chunks `from` to `from + count − 1` of a snapshot (those that exist), as bytes: read by a binary COPY
   * (./copy-out.ts), not a SELECT, whose bytea would come hex-encoded (about twice the CPU on each side at 100,000
   * memories: test/bench/README.md).
   */
  private async snapshotChunks(workspaceId: number, generation: string, from: number, count: number): Promise<Map<number, Uint8Array>> {
    // COPY takes no parameters: the keys are integers, checked as such before they are spliced in.
    if (![workspaceId, from, count].every(Number.isSafeInteger) || !/^\d{1,20}$/.test(String(generation))) {
      throw new Error("bad vector snapshot key");
    }
    return this.withClient(async (client, broke) => {
      const chunks = new Map<number, Uint8Array>();
      const copy = new CopyOutBytes(
        `COPY (SELECT chunk, data FROM vector_snapshot_chunks WHERE workspace_id = ${workspaceId} AND generation = ${generation}
                 AND chunk >= ${from} AND chunk < ${from + count} ORDER BY chunk) TO STDOUT (FORMAT binary)`,
        2,
        ([chunk, data]) => chunks.set(new DataView(chunk!.buffer).getInt32(0), data!),
      );
      try {
        await new Promise<void>((resolve, reject) => {
          copy.callback = (err) => (err ? reject(err) : resolve());
          client.query(copy);
        });
        this.reachable();
        return chunks;
      } catch (err) {
        // A client-side timeout leaves the connection mid-statement: it is not reused.
        if (isStoreUnavailable(err) || /timeout/i.test((err as Error).message)) broke(err as Error);
        throw this.failed(err);
      }
    });
  }

  async writeVectorSnapshot(workspaceId: number, header: VectorSnapshotHeader, chunks: Iterable<Uint8Array>): Promise<boolean> {
    const generation = newSnapshotGeneration();
    let written = 0;
    for (const chunk of chunks) {
      await this.q("INSERT INTO vector_snapshot_chunks (workspace_id, generation, chunk, data) VALUES ($1, $2, $3, $4)", [
        workspaceId,
        generation,
        written++,
        Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
      ]);
    }
    // Under the workspace's lock, as a forget is: a generation that a forget since upToRev may be in, or dropped chunks
    // of, is not made the workspace's.
    return this.transaction(async (client) => {
      const check = await client.query<{ complete: boolean; forgotten: boolean }>(
        `SELECT (SELECT count(*) FROM vector_snapshot_chunks WHERE workspace_id = $1 AND generation = $2) = $3 AS complete,
                EXISTS (SELECT 1 FROM memory_tombstones WHERE workspace_id = $1 AND rev > $4) AS forgotten`,
        [workspaceId, generation, written, header.upToRev],
      );
      const publish = check.rows[0]!.complete && !check.rows[0]!.forgotten;
      if (publish) {
        await client.query(
          `INSERT INTO vector_snapshots (workspace_id, embedder_id, dimensions, up_to_rev, rows, generation, chunks)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (workspace_id) DO UPDATE SET embedder_id = EXCLUDED.embedder_id, dimensions = EXCLUDED.dimensions,
             up_to_rev = EXCLUDED.up_to_rev, rows = EXCLUDED.rows, generation = EXCLUDED.generation, chunks = EXCLUDED.chunks`,
          [workspaceId, header.embedderId, header.dimensions, header.upToRev, header.rows, generation, written],
        );
      }
      await client.query(
        "DELETE FROM vector_snapshot_chunks WHERE workspace_id = $1 AND generation <> coalesce((SELECT generation FROM vector_snapshots WHERE workspace_id = $1), 0)",
        [workspaceId],
      );
      return publish;
    }, beginLocked(workspaceId));
  }

  async searchText(workspaceId: number, words: readonly string[], limit: number, revOf?: RevOf): Promise<LexicalMatch[]> {
    const terms = matchableTerms(words);
    if (terms.length === 0 || limit <= 0) return [];
    // Each word's postings (the same index reads, capped alike) and the workspace's size in one statement, ranked by
    // rankPostings as SQLite's are: lexicalSearchStatement's window, grouping and JSON cost more than the reads
    // (test/bench/README.md, "PostgreSQL retrieve at 10,000, third pass"); the same matches, scores and order.
    // Each word's ids as one comma-separated string: pg's array parser read up to 1,000 ids per word a character at a
    // time (~0.3 ms of a retrieve's CPU in a profile); a split is a fraction of that.
    const { rows } = await this.q<PostingsRow>(SEARCH_TEXT_SQL, [[...terms], workspaceId]);
    this.sized(workspaceId, rows);
    return rankedPostings(rows, limit, revOf);
  }

  async searchTextWithVectorsSince(
    workspaceId: number,
    words: readonly string[],
    limit: number,
    since: { sinceRev: number; codesFor: string; limit: number },
    revOf?: RevOf,
  ): Promise<{ matches: LexicalMatch[]; vectors: VectorRecord[] }> {
    const terms = matchableTerms(words);
    if (terms.length === 0 || limit <= 0) {
      return { matches: [], vectors: await this.vectorsSince(workspaceId, since.sinceRev, since.limit, since.codesFor) };
    }
    // A retrieve's two reads beside the model in one round trip: the words' postings and the index's new rows.
    const { rows } = await this.q<PostingsRow & VectorSinceRow & { part: number }>(SEARCH_TEXT_WITH_VECTORS_SQL, [
      [...terms],
      workspaceId,
      since.sinceRev,
      since.codesFor,
      since.limit,
    ]);
    const split = rows.findIndex((r) => r.part === 1);
    const postings = split === -1 ? rows : rows.slice(0, split);
    this.sized(workspaceId, postings);
    const vectors = toVectorRecords(split === -1 ? [] : rows.slice(split));
    // The rows read with the words are newer than the caller's index: their revs order ties as the index soon will.
    const fresh = new Map(vectors.map((v) => [v.id, v.rev]));
    const revOfAll = revOf && ((id: number) => fresh.get(id) ?? revOf(id));
    return { matches: rankedPostings(postings, limit, revOfAll), vectors };
  }

  /** The workspace's size, which every row of a lexical statement carries, told to the planner's statistics. */
  private sized(workspaceId: number, rows: readonly PostingsRow[]): void {
    if (!this.closed && rows.length > 0) this.statistics.sized(workspaceId, Number(rows[0]!.total));
  }

  async recentWorkspaces(limit: number): Promise<number[]> {
    const { rows } = await this.q<{ workspace_id: number }>(
      // Each workspace's newest write is its highest rev: one index probe per workspace, not a scan of every memory.
      `SELECT id AS workspace_id FROM (
         SELECT id, (SELECT updated_at FROM memories WHERE workspace_id = w.id ORDER BY rev DESC LIMIT 1) AS at FROM workspaces w
       ) recent WHERE at IS NOT NULL ORDER BY at DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.workspace_id);
  }

  async getMemories(workspaceId: number, ids: readonly number[]): Promise<MemoryRecord[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.q<MemoryRow>(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE workspace_id = $1 AND id = ANY($2::bigint[])`, [
      workspaceId,
      [...ids],
    ]);
    return rows.map(toMemory);
  }

  async listMemories(workspaceId: number): Promise<MemoryRecord[]> {
    return (await run<MemoryRow>(this.db, listMemoriesStatement("postgres", workspaceId))).map(toMemory);
  }

  browseMemories(
    workspaceId: number,
    filter: MemoryFilter,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; memories: MemoryRecord[] }> {
    return readBrowse("postgres", workspaceId, filter, page, this.readAll, (row) => toMemory(row as unknown as MemoryRow));
  }

  memoryStats(workspaceId: number): Promise<MemoryStats> {
    return readStats("postgres", workspaceId, this.readAll);
  }

  private readonly readAll = async ({ sql, params }: Statement) => (await this.q<Record<string, unknown>>(sql, params)).rows;

  async countMemories(workspaceId: number): Promise<number> {
    const { rows } = await this.q<{ n: number }>("SELECT count(*) AS n FROM memories WHERE workspace_id = $1", [workspaceId]);
    return rows[0]!.n;
  }

  async healthCounts(workspaceId: number, query: HealthCountsQuery): Promise<HealthCounts> {
    const [counts] = await run<HealthCounts>(this.db, healthCountsStatement("postgres", workspaceId, query));
    return counts!;
  }

  async touchMemories(workspaceId: number, ids: readonly number[], nowMs: number): Promise<void> {
    if (ids.length === 0) return;
    await this.q(
      `UPDATE memories SET access_count = access_count + 1, last_accessed_at = $3
        WHERE workspace_id = $1 AND id = ANY($2::bigint[])`,
      [workspaceId, [...ids], nowMs],
    );
  }

  recordRead(workspaceId: number, ids: readonly number[], nowMs: number): Promise<void> {
    return this.transaction(async (client) => {
      if (ids.length > 0) {
        await client.query(
          `UPDATE memories SET access_count = access_count + 1, last_accessed_at = $3
            WHERE workspace_id = $1 AND id = ANY($2::bigint[])`,
          [workspaceId, [...ids], nowMs],
        );
      }
      await recordUsage(client, workspaceId, "read", null, nowMs);
    }, BEGIN_BOOKKEEPING);
  }

  /** A row lock held elsewhere makes this statement wait, but off the event loop: `waitForLock` changes nothing here. */
  async recordReads(batches: readonly ReadsBatch[]): Promise<boolean> {
    const touched = batches.flatMap((b) => b.touched.map((t) => ({ ...t, workspaceId: b.workspaceId }))).sort((a, b) => a.id - b.id);
    const reads = batches.flatMap((b) => b.readsAtMs.map((at) => [b.workspaceId, at] as const));
    if (touched.length === 0 && reads.length === 0) return true;
    // One statement, so one round trip and its own transaction: the counts and the usage events together, committed
    // without waiting for the WAL flush (set_config(..., true) holds for this statement's transaction, so for its
    // commit; bookkeeping, not a memory). Rows locked in id order, so two processes flushing overlapping batches
    // cannot deadlock.
    await this.q(RECORD_READS(), [
      touched.map((t) => t.workspaceId),
      touched.map((t) => t.id),
      touched.map((t) => t.count),
      touched.map((t) => t.lastAtMs),
      reads.map((r) => r[0]),
      reads.map((r) => r[1]),
    ]);
    return true;
  }

  async memoriesNotEmbeddedBy(embedderId: string, limit: number, workspaceId?: number, fromPrefix = ""): Promise<MemoryRecord[]> {
    const params: unknown[] = [embedderId, limit, likePrefix(fromPrefix)];
    // Two ranges of memories_embedder rather than `<>`, which no index serves: asked at every start, that read every
    // memory when none matched.
    let where = "(embedder_id < $1 OR embedder_id > $1) AND embedder_id LIKE $3 ESCAPE '\\'";
    if (workspaceId !== undefined) {
      params.push(workspaceId);
      where += " AND workspace_id = $4";
    }
    const { rows } = await this.q<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE ${where} ORDER BY created_at, id LIMIT $2`,
      params,
    );
    return rows.map(toMemory);
  }

  async deleteMemories(workspaceId: number, ids: readonly number[]): Promise<number[]> {
    return this.transaction(async (client) => {
      const nowMs = Date.now();
      // One rev per forgotten memory, above every rev handed out so far (computed before the rows go), in id order.
      const { rows } = await client.query<{ id: number }>(
        `WITH gone AS (
           DELETE FROM memories WHERE workspace_id = $1 AND id = ANY($2::bigint[]) RETURNING id
         ), numbered AS (
           SELECT id, ${nextRev("$1")} - 1 + row_number() OVER (ORDER BY id) AS rev FROM gone
         ), tombstones AS (
           INSERT INTO memory_tombstones (workspace_id, rev, memory_id, deleted_at) SELECT $1, rev, id, $3 FROM numbered
         ), usage AS (
           INSERT INTO usage_events (workspace_id, kind, memory_id, created_at) SELECT $1, 'delete', id, $3 FROM gone
         )
         SELECT id FROM gone ORDER BY id`,
        [workspaceId, [...new Set(ids)], nowMs],
      );
      const deleted = rows.map((r) => Number(r.id));
      if (deleted.length > 0) {
        // The vector snapshot may hold their codes: gone with them (the next load stores a new one).
        await client.query(
          `WITH snapshot AS (DELETE FROM vector_snapshots WHERE workspace_id = $1)
           DELETE FROM vector_snapshot_chunks WHERE workspace_id = $1`,
          [workspaceId],
        );
        await client.query(
          "DELETE FROM idempotency_keys WHERE workspace_id = $1 AND (response::json->>'memory_id')::bigint = ANY($2::bigint[])",
          [workspaceId, deleted],
        );
      }
      return deleted;
    }, beginLocked(workspaceId));
  }

  async compact(): Promise<{ ms: number; checkpoint: boolean; statistics: boolean }> {
    const started = Date.now();
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.failed(err);
    }
    let broken = false;
    try {
      // Waiting long for the table lock would queue every request of a running service behind this one.
      await client.query(`SET lock_timeout = ${COMPACT_LOCK_WAIT_MS}`);
      try {
        // A new file holding the live rows only (and new indexes); the old one is truncated when this commits.
        await client.query("VACUUM (FULL, ANALYZE) memories");
      } finally {
        await client.query("RESET lock_timeout");
      }
      // Statistics sampled before migration 11 may quote texts; only a superuser may remove them from the catalog.
      const { rows } = await client.query<{ rolsuper: boolean }>("SELECT rolsuper FROM pg_roles WHERE rolname = current_user");
      const statistics = rows[0]?.rolsuper === true;
      if (statistics) {
        await client.query(
          "DELETE FROM pg_statistic WHERE starelid = 'memories'::regclass AND staattnum IN " +
            "(SELECT attnum FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname IN ('text', 'meta'))",
        );
        await client.query("VACUUM FULL pg_statistic");
      }
      let checkpoint = true;
      try {
        await client.query("CHECKPOINT");
      } catch (err) {
        if ((err as { code?: string }).code !== "42501") throw err; // insufficient privilege: the next automatic one
        checkpoint = false;
      }
      return { ms: Date.now() - started, checkpoint, statistics };
    } catch (err) {
      broken = isStoreUnavailable(err);
      if ((err as { code?: string }).code === "55P03") {
        throw new Error(
          `the memories table stayed in use for ${COMPACT_LOCK_WAIT_MS / 1000} s: run it again when the service is quieter, or stop the services first`,
        );
      }
      throw this.failed(err);
    } finally {
      client.release(broken);
    }
  }

  async writeInWorkspace<T>(workspaceId: number, fn: (tx: WorkspaceTx) => Promise<T>, readAhead: WriteReadAhead = {}): Promise<T> {
    // The transaction's first reads go in the locking message, after the lock (so each reads a snapshot taken once it
    // is granted): a store's BEGIN, lock, idempotency check and index refresh in one round trip instead of three.
    // The message holds several statements, so its values are literals: integers, and printable ASCII strings quoted.
    const begin = beginLocked(workspaceId);
    const key = readAhead.idempotencyKey === undefined ? undefined : asciiLiteral(readAhead.idempotencyKey);
    const since = readAhead.vectorsSince;
    const codesFor = since && Number.isSafeInteger(since.sinceRev) ? asciiLiteral(since.codesFor) : undefined;
    const reads = [
      key && `SELECT request_hash, response, created_at FROM idempotency_keys WHERE workspace_id = ${workspaceId} AND key = ${key}`,
      codesFor && vectorsSinceSql(String(workspaceId), String(since!.sinceRev), codesFor),
    ].filter((read): read is string => !!read);
    let end = "COMMIT";
    return this.transaction(
      async (client, begun) => {
        const tx = new PostgresWorkspaceTx(workspaceId, client);
        const answers = begun.slice(2); // after BEGIN and the lock
        if (key) tx.ahead.idempotency = { key: readAhead.idempotencyKey!, row: answers.shift()!.rows[0] as IdempotencyRow | undefined };
        if (codesFor) {
          const rows = toVectorRecords(answers.shift()!.rows as VectorSinceRow[]);
          tx.ahead.vectors = { sinceRev: since!.sinceRev, codesFor: since!.codesFor, rows };
        }
        const result = await fn(tx);
        end = await tx.commitMessage();
        return result;
      },
      [begin, ...reads].join("; "),
      () => end,
    );
  }

  /**
   * Runs `fn` in one transaction on one connection: commits when it resolves, rolls back when it throws. `begin` opens
   * it (with whatever else must come first, in the same round trip).
   */
  private transaction<T>(fn: (client: PoolClient, begun: QueryResult[]) => Promise<T>, begin = "BEGIN", end = () => "COMMIT"): Promise<T> {
    return this.withClient(async (client, broke) => {
      try {
        const opened = (await client.query(begin)) as QueryResult | QueryResult[];
        const result = await fn(client, Array.isArray(opened) ? opened : [opened]);
        await client.query(end());
        this.reachable();
        return result;
      } catch (err) {
        if (isStoreUnavailable(err)) broke(err as Error);
        else await client.query("ROLLBACK").catch(broke);
        throw this.failed(err);
      }
    });
  }

  /**
   * Runs `fn` on one checked-out connection, returned to the pool after it; destroyed instead when the connection
   * failed meanwhile or `fn` said it broke (`broke`).
   */
  private async withClient<T>(fn: (client: PoolClient, broke: (err: Error) => void) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.failed(err);
    }
    // A checked-out connection has no pool listener: without ours, a server restart would crash the process.
    let broken: Error | undefined;
    const broke = (err: Error) => {
      broken ??= err;
    };
    client.on("error", broke);
    try {
      return await fn(client, broke);
    } finally {
      client.off("error", broke);
      client.release(broken); // a broken connection is destroyed, not returned to the pool
    }
  }

  getIdempotency(workspaceId: number, key: string, notBeforeMs: number): Promise<IdempotencyRecord | null> {
    return getIdempotency(this.db, workspaceId, key, notBeforeMs);
  }

  // Usage

  recordUsage(workspaceId: number, kind: UsageKind, memoryId: number | null, nowMs: number): Promise<void> {
    return recordUsage(this.db, workspaceId, kind, memoryId, nowMs);
  }

  async usageCounts(workspaceId: number): Promise<{ write: number; read: number }> {
    const { rows } = await this.q<{ kind: UsageKind; n: number }>(
      "SELECT kind, count(*) AS n FROM usage_events WHERE workspace_id = $1 GROUP BY kind",
      [workspaceId],
    );
    const counts = { write: 0, read: 0 };
    for (const r of rows) if (r.kind === "write" || r.kind === "read") counts[r.kind] = r.n;
    return counts;
  }

  async usagePerDay(workspaceId: number): Promise<UsageDay[]> {
    return readUsagePerDay((await this.q<Record<string, unknown>>(USAGE_PER_DAY_SQL, [workspaceId])).rows);
  }

  async usageBetween(workspaceId: number, fromMs: number, toMs: number): Promise<{ write: number; read: number }> {
    return readUsageBetween((await this.q<Record<string, unknown>>(USAGE_BETWEEN_SQL, [workspaceId, fromMs, toMs])).rows);
  }

  // Rate limit

  /**
   * One atomic upsert per request: refill by elapsed time (capped at burst), then take a token if one is there.
   * The row lock makes concurrent requests from every process draw from the same bucket.
   */
  async takeRateToken(keyId: number, rps: number, burst: number, nowMs: number): Promise<RateDecision> {
    const { rows } = await this.q<{ tokens: number; allowed: boolean }>(TAKE_RATE_TOKEN(), [keyId, rps, burst, nowMs]);
    return rateDecision(rows[0]!.tokens, rows[0]!.allowed, rps);
  }

  // Liveness

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.pool.query("INSERT INTO store_probe (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at", [
        Date.now(),
      ]);
      await this.pool.query("SELECT at FROM store_probe WHERE id = 1");
      this.reachable();
      return true;
    } catch (err) {
      this.failed(err);
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.statistics.settled();
    await this.pool.end();
  }
}
