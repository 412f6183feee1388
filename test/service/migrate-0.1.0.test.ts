// A SQLite store written by 0.1.0 (string ids), opened by the real `brain-mcp serve`: migrated in place on first open
// (two serves opening it at once migrate it once), answering in the new shapes with everything kept.
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { baseEnv, runCli, spawnServe, TEST_DATABASE_URL } from "../support/service.js";
import { copyOldSqliteStore, expectMigrated, readAnswers, sqliteQuery } from "../support/store-0.1.0.js";
import { SQLITE_SCHEMA_VERSION } from "../../src/service/store/sqlite/index.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const children: { kill(signal?: NodeJS.Signals): boolean }[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

// The PostgreSQL run of this suite has its own 0.1.0 test: test/postgres/migrate-0.1.0.test.ts.
describe.skipIf(TEST_DATABASE_URL !== undefined)("a 0.1.0 SQLite store", () => {
  it("is migrated once by two serves opening it together, and answers as 0.1.0 did, in the new shapes", async () => {
    const path = copyOldSqliteStore();
    const env = baseEnv();
    const [a, b] = await Promise.all([spawnServe(["--port", "0", "--db", path], env), spawnServe(["--port", "0", "--db", path], env)]);
    children.push(a.child, b.child);
    // An old store has workspaces: neither start makes one.
    expect(a.stdout() + b.stdout()).not.toMatch(/created workspace/);
    const db = new Database(path, { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    expect(db.pragma("foreign_key_check")).toEqual([]);
    db.close();

    const admin = async (args: string[]) => {
      const res = await runCli(["admin", ...args, "--db", path, "--json"], { env });
      expect(res.code, res.stderr).toBe(0);
      return JSON.parse(res.stdout) as Record<string, unknown>;
    };
    await expectMigrated(a.url, sqliteQuery(path), admin);
    // The other process answers from the same migrated file.
    const answers = await readAnswers();
    const status = await fetch(`${b.url}/v1/status`, { headers: { authorization: `Bearer ${answers.keys.first}` } });
    expect(await status.json()).toMatchObject({ workspace_id: 1, memory_count: 8 });
    // Every memory kept its vector.
    expect(await sqliteQuery(path)("SELECT count(*) AS n FROM memories WHERE id NOT IN (SELECT memory_id FROM memory_vectors)")).toEqual([
      { n: 0 },
    ]);
  });
});
