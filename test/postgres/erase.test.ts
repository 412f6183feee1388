// Forgetting on PostgreSQL (issue 28): what the service can erase, read from the throwaway cluster's data files after
// a CHECKPOINT, not through the API. A forget alone leaves the text in dead tuples and the lexical index's pages
// (measured: README "What forgetting erases"); `admin memory compact` (VACUUM FULL) takes it out of the database's
// files, statistics sampled by an earlier version included. The WAL, base backups and replicas are the operator's.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemoryStore, NewMemory } from "../../src/service/store/types.js";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { baseEnv, runCli } from "../support/service.js";

const SECRET = "Zorblax Quimbyfeather keeps the spare office key under the blue ceramic frog.";
/** As the text, and as the lexemes (lower case) the lexical index and its statistics keep. */
const NEEDLES = [SECRET, "Zorblax", "Quimbyfeather", "zorblax", "quimbyfeather"];

/** The files of `dir` (recursively) that hold any needle. */
function filesHolding(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const bytes = readFileSync(path);
        if (NEEDLES.some((n) => bytes.includes(n))) found.push(path.slice(dir.length));
      }
    }
  };
  walk(dir);
  return found;
}

const memory = (workspaceId: number, text: string, i: number): NewMemory => ({
  workspace_id: workspaceId,
  text,
  meta: {},
  vector: new Float32Array(1024).fill(i / 1000),
  embedder_id: "lexical",
  importance: 5,
  temporal_type: "persistent",
  valid_until: null,
  categories: ["personal"],
  created_at: Date.UTC(2025, 0, 1) + i,
});

describe.skipIf(!canStartPostgres())("forgetting on PostgreSQL", () => {
  let cluster: PgCluster;
  let url: string;
  let sql: (text: string) => Promise<Record<string, unknown>[]>;
  let close: () => Promise<void>;
  let secretId: number;
  /** This database's files, and the cluster-wide catalogs. */
  const databaseFiles = async () => {
    const [{ oid }] = (await sql("SELECT oid FROM pg_database WHERE datname = current_database()")) as [{ oid: number }];
    await sql("CHECKPOINT");
    return [...filesHolding(join(cluster.dataDir, "base", String(oid))), ...filesHolding(join(cluster.dataDir, "global"))];
  };
  const admin = (args: string[]) =>
    runCli(["admin", ...args, "--database-url", url, "--json"], { env: baseEnv({ BRAIN_EMBEDDER: "lexical" }) });

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase("erase_test");
    const { openPostgresStore } = await import("../../src/service/store/postgres/index.js");
    const store: MemoryStore = await openPostgresStore(url);
    try {
      const ws = (await store.insertWorkspace({ name: "w", plan: "free", billing_cycle: "monthly", status: "active", created_at: 0 })).id;
      await store.writeInWorkspace(ws, async (tx) => {
        for (let i = 0; i < 300; i++) await tx.insertMemory(memory(ws, `Ordinary note ${i}: the build on lane ${i % 7} passed.`, i));
        secretId = (await tx.insertMemory(memory(ws, SECRET, 300))).id;
        for (let i = 301; i < 400; i++) await tx.insertMemory(memory(ws, `Ordinary note ${i}: the build on lane ${i % 7} passed.`, i));
      });
    } finally {
      await store.close();
    }
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    sql = async (text) => (await client.query(text)).rows;
    close = () => client.end();
    // A store from before migration 11 kept statistics of memory texts: sampled here as autovacuum's ANALYZE would.
    await sql("ALTER TABLE memories ALTER COLUMN text SET STATISTICS 100");
    await sql("ANALYZE memories");
  }, 120_000);

  afterAll(async () => {
    await close?.();
    await cluster?.stop();
  });

  it("before forgetting, the text and its lexemes are in the database's files (what the checks below look for)", async () => {
    expect((await databaseFiles()).length).toBeGreaterThan(0);
  });

  it("admin memory delete, then admin memory compact: no file of the database holds the text, its lexemes or statistics", async () => {
    const deleted = await admin(["memory", "delete", String(secretId)]);
    expect(deleted.code, deleted.stderr).toBe(0);
    // A forget alone: the deleted tuple stays whole in the heap until a VACUUM, and its lexemes in the index pages.
    const left = await databaseFiles();
    expect(left.length).toBeGreaterThan(0);
    const compact = await admin(["memory", "compact"]);
    expect(compact.code, compact.stderr).toBe(0);
    expect(JSON.parse(compact.stdout)).toMatchObject({ compacted: true, checkpoint: true, statistics: true });
    expect(await databaseFiles()).toEqual([]);
    expect(await sql("SELECT count(*)::int AS n FROM memories")).toEqual([{ n: 399 }]);
    expect(await sql("SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'memories' AND attname IN ('text', 'meta')")).toEqual([
      { n: 0 },
    ]);
  });
});
