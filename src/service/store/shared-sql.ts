// The SQL both stores run, written once: statements differ only in placeholders (`?` or `$n`), in how an id list
// travels (a JSON array on SQLite, a bigint[] on PostgreSQL) and in a few function names. Each store runs the
// statement its own way; the dashboard's queries live beside these in ./dashboard-sql.ts.
import type { HealthCountsQuery, LexicalMatch, RevOf } from "./types.js";

export type Dialect = "sqlite" | "postgres";

export interface Statement {
  sql: string;
  params: unknown[];
}

/** Columns of a memory row, as both stores name them (the vector lives apart on SQLite, in the row on PostgreSQL). */
export const MEMORY_COLUMNS =
  "id, workspace_id, text, meta, embedder_id, importance, temporal_type, valid_until, categories, created_at, " +
  "updated_at, last_accessed_at, access_count, rev";

/** Collects parameters and hands out the dialect's placeholders in order. */
export class Params {
  readonly values: unknown[] = [];
  constructor(private readonly dialect: Dialect) {}
  /** The placeholder for `value`: `?` for SQLite, `$n` for PostgreSQL. */
  add(value: unknown): string {
    this.values.push(value);
    return this.dialect === "sqlite" ? "?" : `$${this.values.length}`;
  }
  /** `column IN ids`, the list as one parameter (so each statement text is the same whatever the list's length). */
  idIn(column: string, ids: readonly number[]): string {
    return this.dialect === "sqlite"
      ? `${column} IN (SELECT value FROM json_each(${this.add(JSON.stringify(ids))}))`
      : `${column} = ANY(${this.add([...ids])}::bigint[])`;
  }
  statement(sql: string): Statement {
    return { sql, params: this.values };
  }
}

// Vectors are raw little-endian float32 bytes in both stores (SQLite BLOB, PostgreSQL bytea).

export function vectorToBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * `own`: the bytes are this value's alone (better-sqlite3 gives each value its own buffer), so a view will do when
 * aligned; pg's may sit in a buffer the driver reuses, so they are copied.
 */
export function bytesToVector(bytes: Uint8Array, { own = false }: { own?: boolean } = {}): Float32Array {
  if (own && bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** A time-bound memory past its end. */
const expired = (now: string) => `temporal_type = 'time_bound' AND valid_until IS NOT NULL AND valid_until < ${now}`;

/** Health's signals in one pass over the workspace's rows; both count characters as code points. */
export function healthCountsStatement(dialect: Dialect, workspaceId: number, query: HealthCountsQuery): Statement {
  // Placeholders are handed out in the order they appear (SQLite's `?` are positional), so `now` is added twice.
  const p = new Params(dialect);
  const chars = dialect === "sqlite" ? "length" : "char_length";
  return p.statement(
    `SELECT count(*) AS total,
            count(*) FILTER (WHERE ${expired(p.add(query.nowMs))}) AS expired,
            count(*) FILTER (WHERE NOT (${expired(p.add(query.nowMs))}) AND coalesce(last_accessed_at, created_at) < ${p.add(query.untouchedBeforeMs)}) AS untouched,
            count(*) FILTER (WHERE ${chars}(text) > ${p.add(query.overlongChars)}) AS overlong,
            count(*) FILTER (WHERE access_count = 0 AND created_at < ${p.add(query.neverRetrievedBeforeMs)}) AS "neverRetrieved",
            count(*) FILTER (WHERE embedder_id <> ${p.add(query.embedderId)}) AS "otherModel"
       FROM memories WHERE workspace_id = ${p.add(workspaceId)}`,
  );
}

/** Every memory of a workspace in rev order (the order writes were made in), the same on both stores. */
export function listMemoriesStatement(dialect: Dialect, workspaceId: number): Statement {
  const p = new Params(dialect);
  return p.statement(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE workspace_id = ${p.add(workspaceId)} ORDER BY rev`);
}

/** Workspaces with their memory and live key counts, oldest first. */
export const LIST_WORKSPACES_SQL =
  "SELECT w.*, (SELECT count(*) FROM memories m WHERE m.workspace_id = w.id) AS memories, " +
  "(SELECT count(*) FROM api_keys k WHERE k.workspace_id = w.id AND k.revoked_at IS NULL) AS live_keys " +
  "FROM workspaces w ORDER BY w.created_at, w.id";

/**
 * The workspace's number of memories, as a one-row `n`: SQLite counts them (its index on the workspace is a covering
 * scan); PostgreSQL reads the count its triggers keep (schema.ts, migration 7), since counting reads every row's page.
 */
const workspaceSize = (dialect: Dialect, workspace: string) =>
  dialect === "sqlite"
    ? `SELECT count(*) AS n FROM memories WHERE workspace_id = ${workspace}`
    : `SELECT coalesce((SELECT memories FROM workspace_memory_counts WHERE workspace_id = ${workspace}), 0) AS n`;

/** PostgreSQL's lexical search reads at most this many memories per query word (./shared-sql.ts lexicalSearchStatement). */
export const POSTINGS_PER_TERM = 1_000;

/**
 * The token that files a memory under its workspace in SQLite's full-text table (the column `workspace`), closed on
 * both sides: the trigram table matches substrings, and `w1` would match inside `w12`.
 */
export const workspaceToken = (workspaceId: number) => `w${workspaceId}w`;

/**
 * SQLite's trigram index matches only strings of at least three characters, so shorter query words ("7", "ai") are
 * left out, on PostgreSQL too: both stores rank a query alike (a word SQLite cannot look up must not give lexical
 * credit, or dilute the query's weight, on PostgreSQL alone).
 */
export const MIN_TERM_CHARS = 3;

/** The query words both stores' lexical indexes look up: those SQLite's trigram index can match. */
export const matchableTerms = (terms: readonly string[]) => terms.filter((t) => [...t].length >= MIN_TERM_CHARS);

/**
 * The workspace's memories that contain any of `terms` (words of letters and digits, lower case), best first, at
 * most `limit`: each scores the sum of BM25's inverse document frequency, ln(1 + (N − n + 0.5) / (n + 0.5)), of the
 * query words it holds (N the workspace's memories, n those holding the word). The index finds each word's memories,
 * at most POSTINGS_PER_TERM of them, so a common word costs no more than that (and its weight is small either way):
 * SQLite's FTS5 table (trigram, diacritics folded: a word matches wherever its letters appear, so "painting" finds
 * "paintings") or PostgreSQL's GIN index over a `simple` tsvector of the text with case and diacritics folded
 * (brain_lexical_fold, ./postgres/schema.ts migration 14; words beginning with the query word, no stemming: names stay
 * names); on both, only the query words of three characters or more (matchableTerms). The same formula on both
 * stores; measured in docs/decisions.md (issue 18). Each match also carries the query's whole weight
 * (LexicalMatch.queryWeight), the words no memory holds counting with n = 0. Neither store runs it now: each reads
 * the postings (SQLite one MATCH per word, PostgreSQL one statement) and ranks them with rankPostings (the same
 * arithmetic); this statement is the reference the tests compare that with.
 * Nothing is joined, so each part runs once whatever the planner estimates: the workspace's size and the query's
 * weight are scalar subqueries (computed once) and each word's count a window over its postings. As joined
 * subqueries, PostgreSQL (before the table had statistics) ran them once per matching memory: a second for a common
 * word at 10,000 memories (docs/decisions.md, "PostgreSQL's retrieve tail"). The arithmetic is in floating point:
 * PostgreSQL's `numeric` ln() cost 11 ms over 4,000 postings at 100,000 memories. Each match also names the query
 * words it holds with their document counts (`terms`) and the workspace's size (`total`): retrieval weighs a word
 * found only inside a longer word (`use` in `user`) apart from a whole-word match (../retrieval/search-terms.ts).
 */
export function lexicalSearchStatement(dialect: Dialect, workspaceId: number, allTerms: readonly string[], limit: number): Statement {
  const terms = matchableTerms(allTerms);
  const p = new Params(dialect);
  // SQLite: one MATCH per word, each stopping at the cap (one query over all words would read every posting).
  const postings =
    dialect === "sqlite"
      ? `hits AS (${terms
          .map(
            (t) =>
              `SELECT * FROM (SELECT ${p.add(t)} AS t, rowid AS id FROM memory_text ` +
              `WHERE memory_text MATCH ${p.add(`workspace : ${workspaceToken(workspaceId)} AND text : "${t}"`)} LIMIT ${POSTINGS_PER_TERM})`,
          )
          .join(" UNION ALL ")})`
      : `terms AS (SELECT t, to_tsquery('simple', quote_literal(brain_lexical_fold(t)) || ':*') AS q FROM unnest(${p.add([...terms])}::text[]) AS t),
         hits AS (SELECT terms.t, m.id FROM terms CROSS JOIN LATERAL
                    (SELECT id FROM memories WHERE workspace_id = ${p.add(workspaceId)} AND lexemes @@ terms.q LIMIT ${POSTINGS_PER_TERM}) AS m)`;
  const idf = (n: string) => `ln(1 + (CAST((SELECT n FROM total) AS double precision) - ${n} + 0.5) / (${n} + 0.5))`;
  return p.statement(
    `WITH ${postings},
          weighted AS (SELECT t, id, CAST(count(*) OVER (PARTITION BY t) AS double precision) AS df FROM hits),
          total AS (${workspaceSize(dialect, p.add(workspaceId))}),
          query AS (SELECT sum(${idf("df")}) + (${p.add(terms.length)} - count(*)) * ${idf("0")} AS weight
                      FROM (SELECT DISTINCT t, df FROM weighted) AS words)
     SELECT id, sum(${idf("df")}) AS score, (SELECT weight FROM query) AS "queryWeight",
            CAST((SELECT n FROM total) AS double precision) AS total, ${dialect === "sqlite" ? "json_group_object" : "json_object_agg"}(t, df) AS terms
       FROM weighted
      GROUP BY id ORDER BY score DESC, id LIMIT ${p.add(limit)}`,
  );
}

/** The rev rankPostings gives a memory `revOf` does not know: newer than any it knows. */
const UNKNOWN_REV = Number.MAX_SAFE_INTEGER;

/**
 * Reorders each run of equal scores that starts among the first `limit` of `ranked` (by score, then id) newest first
 * by `revOf`, then by id: only those runs decide what a search returns, so `revOf` is asked about at most `limit`
 * memories and the run the cut falls in (a common word's, up to POSTINGS_PER_TERM), not about every posting.
 */
function newestFirstInTies(ranked: Array<[number, { score: number }]>, limit: number, revOf: RevOf): void {
  for (let start = 0; start < Math.min(limit, ranked.length); ) {
    const score = ranked[start]![1].score;
    let end = start + 1;
    while (end < ranked.length && ranked[end]![1].score === score) end++;
    if (end - start > 1) {
      const run = ranked.slice(start, end).map((entry) => ({ entry, rev: revOf(entry[0]) ?? UNKNOWN_REV }));
      run.sort((a, b) => b.rev - a.rev || a.entry[0] - b.entry[0]);
      run.forEach(({ entry }, i) => (ranked[start + i] = entry));
    }
    start = end;
  }
}

/** BM25's inverse document frequency of a word `n` of `total` memories hold: the formula of lexicalSearchStatement. */
const bm25Idf = (total: number, n: number) => Math.log(1 + (total - n + 0.5) / (n + 0.5));

/**
 * lexicalSearchStatement's ranking done here rather than in SQL, over each query word's postings (the ids of the
 * memories holding it, at most POSTINGS_PER_TERM) and the workspace's size: the same matches, scores and order.
 * Both stores use it: on SQLite the statement's window, grouping and JSON over the postings cost 3-4x the postings' own
 * reads (test/bench/README.md, "--embedded and recall as installed, second pass"); on PostgreSQL the postings in one
 * statement take about half the statement's time ("PostgreSQL retrieve at 10,000, third pass").
 *
 * Memories with equal scores hold the same query words, and many do for a common word (a speaker's name in every turn
 * of a chat): where `limit` cuts through them, the statement keeps the smallest ids. Memory ids are random
 * (./memory-ids.ts), so that kept an arbitrary subset, a different one for the same memories written again, and
 * LoCoMo's answers moved from run to run (test/eval/README.md, "Ties at the lexical cut"). With `revOf` (retrieval
 * passes the revs its vector index holds) equal scores go newest first: the latest writes, as recency favours them in
 * the score, and the same subset whenever the memories were written in the same order. A memory `revOf` does not know
 * yet was written after the index's last refresh: it counts as the newest.
 */
export function rankPostings(
  postings: ReadonlyArray<{ term: string; ids: readonly number[] }>,
  total: number,
  limit: number,
  revOf?: RevOf,
): LexicalMatch[] {
  let queryWeight = 0;
  const found = new Map<number, { score: number; terms: Record<string, number> }>();
  for (const { term, ids } of postings) {
    const idf = bm25Idf(total, ids.length);
    queryWeight += idf;
    for (const id of ids) {
      const match = found.get(id) ?? { score: 0, terms: {} };
      match.score += idf;
      match.terms[term] = ids.length;
      found.set(id, match);
    }
  }
  const ranked = [...found].sort(([a, x], [b, y]) => y.score - x.score || a - b);
  if (revOf) newestFirstInTies(ranked, limit, revOf);
  return ranked.slice(0, Math.max(0, limit)).map(([id, { score, terms }]) => ({ id, score, queryWeight, total, terms }));
}

/** A lexical search's rows as LexicalMatch: `terms` arrives as JSON text from SQLite and parsed from PostgreSQL. */
export function lexicalMatches(
  rows: ReadonlyArray<{ id: number | string; score: number; queryWeight: number; total: number; terms: string | Record<string, number> }>,
): LexicalMatch[] {
  return rows.map((r) => ({
    id: Number(r.id),
    score: Number(r.score),
    queryWeight: Number(r.queryWeight),
    total: Number(r.total),
    terms: typeof r.terms === "string" ? (JSON.parse(r.terms) as Record<string, number>) : r.terms,
  }));
}
