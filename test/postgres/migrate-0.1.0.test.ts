// A PostgreSQL database as 0.1.0 left it (its schema, migration 1, holding the rows of the 0.1.0 fixture), opened by
// two real `brain-mcp serve` processes at once: migrated once, in place, answering as 0.1.0 did in the new shapes.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { baseEnv, runCli, spawnServe } from "../support/service.js";
import { expectMigrated, loadOldPostgresStore, postgresQuery, readAnswers } from "../support/store-0.1.0.js";
import { MIGRATIONS } from "../../src/service/store/postgres/schema.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let cluster: PgCluster;
const children: { kill(signal?: NodeJS.Signals): boolean }[] = [];

beforeAll(async () => {
  if (canStartPostgres()) cluster = await startPostgres();
});

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await cluster?.stop();
});

describe.skipIf(!canStartPostgres())("a 0.1.0 PostgreSQL database", () => {
  it("is migrated once by two serves starting together, keeps everything, and answers as 0.1.0 did", async () => {
    const url = await cluster.createDatabase();
    await loadOldPostgresStore(url);
    const env = baseEnv({ BRAIN_DATABASE_URL: url });
    const [a, b] = await Promise.all([spawnServe(["--port", "0"], env), spawnServe(["--port", "0"], env)]);
    children.push(a.child, b.child);
    expect(a.stdout() + b.stdout()).not.toMatch(/created workspace/);
    const query = postgresQuery(url);
    expect((await query("SELECT version FROM brain_migrations ORDER BY version")).map((r) => r.version)).toEqual(
      MIGRATIONS.map((m) => m.version),
    );
    // The rate bucket of the first key moved to its integer id.
    expect(await query("SELECT key_id, tokens FROM rate_buckets")).toEqual([{ key_id: 1, tokens: 0.5 }]);
    // Identity columns: nothing but the database hands out an id.
    const identity = await query(
      `SELECT table_name, is_identity, identity_generation FROM information_schema.columns
        WHERE column_name = 'id' AND table_name IN ('workspaces', 'api_keys', 'memories') ORDER BY table_name`,
    );
    expect(identity).toEqual([
      { table_name: "api_keys", is_identity: "YES", identity_generation: "ALWAYS" },
      { table_name: "memories", is_identity: "YES", identity_generation: "ALWAYS" },
      { table_name: "workspaces", is_identity: "YES", identity_generation: "ALWAYS" },
    ]);

    const admin = async (args: string[]) => {
      const res = await runCli(["admin", ...args, "--json"], { env });
      expect(res.code, res.stderr).toBe(0);
      return JSON.parse(res.stdout) as Record<string, unknown>;
    };
    await expectMigrated(a.url, query, admin);
    const answers = await readAnswers();
    const status = await fetch(`${b.url}/v1/status`, { headers: { authorization: `Bearer ${answers.keys.first}` } });
    expect(await status.json()).toMatchObject({ workspace_id: 1, memory_count: 8 });
  });
});
