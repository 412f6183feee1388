// The few SQL primitives the webhook store needs, over each store's own connection: SQLite's one connection (through
// the store's write queue, so a webhook write never lands inside another transaction) or PostgreSQL's pool.
// Statements are written once with `?` placeholders; PostgreSQL gets them numbered.
import type BetterSqlite3 from "better-sqlite3";
import type { Pool, PoolClient } from "pg";

export interface SqlRunner {
  readonly dialect: "sqlite" | "postgres";
  all<R>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Rows changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
  /** Runs `fn` in one transaction (SQLite `BEGIN IMMEDIATE`); `fn` must await only `tx` statements. */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
}

export function sqliteRunner(
  db: BetterSqlite3.Database,
  serialize: <T>(fn: () => Promise<T>) => Promise<T>,
  whenFree: <T>(write: () => T) => Promise<T>,
): SqlRunner {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = (sql: string) => {
    const known = statements.get(sql);
    if (known) return known;
    const statement = db.prepare(sql);
    statements.set(sql, statement);
    return statement;
  };
  const direct: SqlRunner = {
    dialect: "sqlite",
    all: async <R>(sql: string, params: unknown[] = []) => rowsOf<R>(prepare(sql), params),
    run: async (sql, params = []) => prepare(sql).run(...params).changes,
    transaction: (fn) => fn(direct),
  };
  return {
    dialect: "sqlite",
    // Reads see committed rows; writes wait their turn on the store's connection, and for another process's write lock
    // between turns of the event loop (the store's whenFree), not asleep on this thread.
    all: <R>(sql: string, params?: unknown[]) =>
      prepare(sql).reader && !/\bRETURNING\b/i.test(sql)
        ? direct.all<R>(sql, params)
        : serialize(() => whenFree(() => rowsOf<R>(prepare(sql), params ?? []))),
    run: (sql, params = []) => serialize(() => whenFree(() => prepare(sql).run(...params).changes)),
    transaction: (fn) =>
      serialize(async () => {
        await whenFree(() => db.exec("BEGIN IMMEDIATE"));
        try {
          const result = await fn(direct);
          db.exec("COMMIT");
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec("ROLLBACK");
          throw err;
        }
      }),
  };
}

/** `?` placeholders numbered for PostgreSQL (no statement here has a `?` inside a literal). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export function postgresRunner(pool: Pool): SqlRunner {
  const on = (client: Pool | PoolClient): SqlRunner => ({
    dialect: "postgres",
    all: async <R>(sql: string, params: unknown[] = []) => (await client.query(numbered(sql), params)).rows as R[],
    run: async (sql, params = []) => (await client.query(numbered(sql), params)).rowCount ?? 0,
    transaction: async (fn) => {
      if (client !== pool) return fn(on(client));
      const conn = await pool.connect();
      // A checked-out connection has no pool listener: a server restart must not crash the process.
      let broken: Error | undefined;
      const onError = (err: Error) => (broken = err);
      conn.on("error", onError);
      try {
        await conn.query("BEGIN");
        const result = await fn(on(conn));
        await conn.query("COMMIT");
        return result;
      } catch (err) {
        await conn.query("ROLLBACK").catch((e: Error) => (broken ??= e));
        throw err;
      } finally {
        conn.off("error", onError);
        conn.release(broken);
      }
    },
  });
  return on(pool);
}

/** A statement's rows (a read, or a write with RETURNING) or none for a plain write, synchronously. */
function rowsOf<R>(statement: BetterSqlite3.Statement, params: unknown[]): R[] {
  if (statement.reader) return statement.all(...params) as R[];
  statement.run(...params);
  return [];
}
