// The request path's named statements (prepared once per connection) and the switch that turns them off for a
// transaction-mode pooler that cannot keep them (BRAIN_PG_PREPARED_STATEMENTS=off): same answers either way, and with
// the switch off the connection holds no prepared statement of ours.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore, preparedStatementsFrom, type PostgresStore } from "../../src/service/store/postgres/index.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";

const T0 = Date.UTC(2025, 0, 1);
let cluster: PgCluster | undefined;

beforeAll(async () => {
  if (canStartPostgres()) cluster = await startPostgres();
}, 120_000);
afterAll(async () => cluster?.stop());

/** The prepared statements of the store's only connection (pool size 1), by name. */
async function preparedNames(store: PostgresStore): Promise<string[]> {
  const pool = (store as unknown as { pool: { query: (sql: string) => Promise<{ rows: { name: string }[] }> } }).pool;
  return (await pool.query("SELECT name FROM pg_prepared_statements ORDER BY name")).rows.map((r) => r.name);
}

describe.skipIf(!canStartPostgres())("PostgreSQL's prepared statements", () => {
  it("reads the switch from the environment: on unless off, 0, false or no", () => {
    expect(preparedStatementsFrom({})).toBe(true);
    expect(preparedStatementsFrom({ BRAIN_PG_PREPARED_STATEMENTS: "on" })).toBe(true);
    for (const off of ["off", "0", "false", "NO", " Off "])
      expect(preparedStatementsFrom({ BRAIN_PG_PREPARED_STATEMENTS: off })).toBe(false);
  });

  for (const preparedStatements of [true, false]) {
    it(`answers the same with named statements ${preparedStatements ? "on" : "off"}, and names them only when on`, async () => {
      const store = await openPostgresStore(await cluster!.createDatabase(), { poolSize: 1, preparedStatements });
      try {
        const ws = (await store.insertWorkspace({ name: "w", plan: "free", billing_cycle: "monthly", status: "active", created_at: T0 }))
          .id;
        const keyId = await store.insertKey({ workspace_id: ws, key_hash: "hash", prefix: "svc_ws_p", created_at: T0 });
        const found = await store.findKeyTakingToken("hash", 1, 1, T0 + 1_000);
        expect(found).toMatchObject({ keyId, rate: { allowed: true } });
        expect((await store.findKeyTakingToken("hash", 1, 1, T0 + 1_000))!.rate.allowed).toBe(false);
        const names = await preparedNames(store);
        if (preparedStatements) expect(names).toContain("brain-mcp:key-taking-token");
        else expect(names).toEqual([]);
      } finally {
        await store.close();
      }
    });
  }
});
