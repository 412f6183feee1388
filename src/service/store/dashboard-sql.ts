// The dashboard's read-only queries (`brain-mcp ui`), written once for both stores: the SQL differs only in
// placeholders, in how a JSON array of categories is opened, and in the name of the character-count function.
import { DAY_MS } from "../time.js";
import type { MemoryFilter, MemoryStats, UsageDay } from "./types.js";
import { MEMORY_COLUMNS, Params, type Dialect, type Statement } from "./shared-sql.js";

export type { Dialect, Statement } from "./shared-sql.js";

const hasCategory = (dialect: Dialect, placeholder: string) =>
  dialect === "sqlite"
    ? `EXISTS (SELECT 1 FROM json_each(categories) WHERE value = ${placeholder})`
    : `categories::jsonb @> jsonb_build_array(${placeholder}::text)`;

/** The WHERE clause for `filter`; health's signals use the same conditions as the stores' healthCounts. */
function whereClause(dialect: Dialect, p: Params, workspaceId: number, filter: MemoryFilter): string {
  const conditions = [`workspace_id = ${p.add(workspaceId)}`];
  if (filter.ids !== undefined) conditions.push(p.idIn("id", filter.ids));
  if (filter.category !== undefined) conditions.push(hasCategory(dialect, p.add(filter.category)));
  if (filter.temporalType !== undefined) conditions.push(`temporal_type = ${p.add(filter.temporalType)}`);
  if (filter.minImportance !== undefined) conditions.push(`importance >= ${p.add(filter.minImportance)}`);
  if (filter.maxImportance !== undefined) conditions.push(`importance <= ${p.add(filter.maxImportance)}`);
  if (filter.createdFromMs !== undefined) conditions.push(`created_at >= ${p.add(filter.createdFromMs)}`);
  if (filter.createdBeforeMs !== undefined) conditions.push(`created_at < ${p.add(filter.createdBeforeMs)}`);
  const signal = filter.signal;
  if (signal?.kind === "stale") {
    const now = p.add(signal.query.nowMs);
    const untouched = p.add(signal.query.untouchedBeforeMs);
    conditions.push(
      `((temporal_type = 'time_bound' AND valid_until IS NOT NULL AND valid_until < ${now}) ` +
        `OR coalesce(last_accessed_at, created_at) < ${untouched})`,
    );
  } else if (signal?.kind === "never_retrieved") {
    conditions.push(`access_count = 0 AND created_at < ${p.add(signal.query.neverRetrievedBeforeMs)}`);
  } else if (signal?.kind === "overlong") {
    conditions.push(`${dialect === "sqlite" ? "length" : "char_length"}(text) > ${p.add(signal.query.overlongChars)}`);
  }
  return conditions.join(" AND ");
}

/** How many memories match, and one page of them (newest first). */
export function browseStatements(
  dialect: Dialect,
  workspaceId: number,
  filter: MemoryFilter,
  page: { limit: number; offset: number },
): { count: Statement; rows: Statement } {
  const c = new Params(dialect);
  const count = { sql: `SELECT count(*) AS n FROM memories WHERE ${whereClause(dialect, c, workspaceId, filter)}`, params: c.values };
  const r = new Params(dialect);
  const where = whereClause(dialect, r, workspaceId, filter);
  const sql = `SELECT ${MEMORY_COLUMNS} FROM memories WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${r.add(page.limit)} OFFSET ${r.add(page.offset)}`;
  return { count, rows: { sql, params: r.values } };
}

/** The four statements behind MemoryStats, each with the workspace id as its only parameter. */
export function statsStatements(dialect: Dialect, workspaceId: number): Record<keyof MemoryStats, Statement> {
  const ws = dialect === "sqlite" ? "?" : "$1";
  const categories =
    dialect === "sqlite"
      ? `SELECT c.value AS category, count(*) AS n FROM memories m, json_each(m.categories) c WHERE m.workspace_id = ${ws} GROUP BY c.value`
      : `SELECT c AS category, count(*) AS n FROM memories m, jsonb_array_elements_text(m.categories::jsonb) c WHERE m.workspace_id = ${ws} GROUP BY c`;
  const perDay = (table: string, extra: string) =>
    `SELECT created_at / ${DAY_MS} AS day, count(*) AS n FROM ${table} WHERE workspace_id = ${ws}${extra} GROUP BY created_at / ${DAY_MS} ORDER BY day`;
  const params = [workspaceId];
  return {
    createdPerDay: { sql: perDay("memories", ""), params },
    categories: { sql: `${categories} ORDER BY n DESC, category`, params },
    importance: {
      sql: `SELECT importance, count(*) AS n FROM memories WHERE workspace_id = ${ws} GROUP BY importance ORDER BY importance`,
      params,
    },
    recallsPerDay: { sql: perDay("usage_events", " AND kind = 'read'"), params },
  };
}

/** Runs statsStatements with `all` (one store's way of running a statement) and shapes the rows. */
export async function readStats(
  dialect: Dialect,
  workspaceId: number,
  all: (statement: Statement) => Promise<Record<string, unknown>[]>,
): Promise<MemoryStats> {
  const s = statsStatements(dialect, workspaceId);
  const [created, categories, importance, recalls] = await Promise.all([
    all(s.createdPerDay),
    all(s.categories),
    all(s.importance),
    all(s.recallsPerDay),
  ]);
  const days = (rows: Record<string, unknown>[]) => rows.map((r) => ({ day: Number(r.day) * DAY_MS, count: Number(r.n) }));
  return {
    createdPerDay: days(created),
    categories: categories.map((r) => ({ category: String(r.category), count: Number(r.n) })),
    importance: importance.map((r) => ({ importance: Number(r.importance), count: Number(r.n) })),
    recallsPerDay: days(recalls),
  };
}

/** Runs browseStatements with `all` and `rows` → records. */
export async function readBrowse<R>(
  dialect: Dialect,
  workspaceId: number,
  filter: MemoryFilter,
  page: { limit: number; offset: number },
  all: (statement: Statement) => Promise<Record<string, unknown>[]>,
  toRecord: (row: Record<string, unknown>) => R,
): Promise<{ total: number; memories: R[] }> {
  const s = browseStatements(dialect, workspaceId, filter, page);
  const [count, rows] = await Promise.all([all(s.count), all(s.rows)]);
  return { total: Number(count[0]?.n ?? 0), memories: rows.map(toRecord) };
}

/** Billable usage events ($1: the workspace) per UTC day; both stores run it as is (SQLite with `?` for `$1`). */
export const USAGE_PER_DAY_SQL =
  `SELECT created_at / ${DAY_MS} AS day, ` +
  "sum(CASE WHEN kind = 'write' THEN 1 ELSE 0 END) AS writes, sum(CASE WHEN kind = 'read' THEN 1 ELSE 0 END) AS reads " +
  `FROM usage_events WHERE workspace_id = $1 AND kind IN ('write', 'read') GROUP BY created_at / ${DAY_MS} ORDER BY day`;

/** Billable usage events of a workspace ($1) created in [$2, $3); SQLite runs it with `?` for each. */
export const USAGE_BETWEEN_SQL =
  "SELECT sum(CASE WHEN kind = 'write' THEN 1 ELSE 0 END) AS writes, sum(CASE WHEN kind = 'read' THEN 1 ELSE 0 END) AS reads " +
  "FROM usage_events WHERE workspace_id = $1 AND kind IN ('write', 'read') AND created_at >= $2 AND created_at < $3";

export function readUsageBetween(rows: Record<string, unknown>[]): { write: number; read: number } {
  return { write: Number(rows[0]?.writes ?? 0), read: Number(rows[0]?.reads ?? 0) };
}

export function readUsagePerDay(rows: Record<string, unknown>[]): UsageDay[] {
  return rows.map((r) => ({ day: Number(r.day) * DAY_MS, write: Number(r.writes), read: Number(r.reads) }));
}
