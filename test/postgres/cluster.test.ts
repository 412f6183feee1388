// The throwaway cluster itself: tests elsewhere rely on it surviving restarts and crashes with its data.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import pg from "pg";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";

async function query<T = Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe.skipIf(!canStartPostgres())("the test PostgreSQL cluster", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it("listens on loopback with fsync on and a database of its own", async () => {
    expect(cluster.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/brain$/);
    const [row] = await query<{ db: string; fsync: string; listen: string }>(
      cluster.url,
      "select current_database() as db, current_setting('fsync') as fsync, current_setting('listen_addresses') as listen",
    );
    expect(row).toEqual({ db: "brain", fsync: "on", listen: "127.0.0.1" });
  });

  it("keeps committed rows across a restart and across a SIGKILL of the server", async () => {
    const url = await cluster.createDatabase();
    await query(url, "create table t (v int); insert into t values (1)");
    await cluster.restart();
    await query(url, "insert into t values (2)");
    await cluster.kill();
    await cluster.start();
    const rows = await query<{ v: number }>(url, "select v from t order by v");
    expect(rows.map((r) => r.v)).toEqual([1, 2]);
  });

  it("removes its directory when stopped", async () => {
    const other = await startPostgres();
    const [row] = await query<{ dir: string }>(other.url, "select current_setting('data_directory') as dir");
    expect(existsSync(row!.dir)).toBe(true);
    await other.stop();
    expect(existsSync(row!.dir)).toBe(false);
  });
});
