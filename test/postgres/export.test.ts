// The round trip the export format exists for: a SQLite store → file → PostgreSQL → file gives the same memories
// (text, meta, importance, categories, temporal, counters, timestamps, vectors); only the ids may differ.
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { jsonOf, LEXICAL, readExport as readLines, tempFile, writeSyntheticExport } from "../support/export-files.js";
import { baseEnv, call, runCli, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const TEXTS = [
  "The staging database runs on port 5433.",
  "Zoë's flight to Zürich lands at 09:40 on the 3rd of December.",
  "The conference room is booked until Friday at 5pm.",
  "We decided to migrate billing to Stripe in Q3.",
];

describe.skipIf(!canStartPostgres())("export from SQLite, import into PostgreSQL", () => {
  let cluster: PgCluster;
  let source: ServiceHandle;
  let pgUrl: string;
  const fromSqlite = tempFile("sqlite.jsonl");
  const onPostgres = (args: (string | number)[]) =>
    runCli(["admin", ...args.map(String), "--database-url", pgUrl], { env: baseEnv(LEXICAL) });

  beforeAll(async () => {
    cluster = await startPostgres();
    pgUrl = await cluster.createDatabase();
    source = await startService({ env: LEXICAL });
    for (const [i, text] of TEXTS.entries()) {
      const meta = { n: i, nested: { who: ["Zoë", "Ana"] } };
      const stored = await call(source.baseURL, "POST", "/v1/memory/store", { key: source.apiKey, json: { text, meta } });
      expect(stored.status, stored.text).toBe(200);
    }
    for (const query of ["when does the flight land?", "which port does staging use?", "flight to Zürich"]) {
      expect((await call(source.baseURL, "POST", "/v1/memory/retrieve", { key: source.apiKey, json: { query, top_k: 1 } })).status).toBe(
        200,
      );
    }
    jsonOf(await source.admin(["export", "--workspace", source.workspaceId, "--vectors", "--out", fromSqlite, "--json"]));
  });

  afterAll(async () => {
    await source?.stop();
    await cluster?.stop();
  });

  it("SQLite → file → PostgreSQL → file gives the same memories, and a second import adds nothing", async () => {
    const [sqliteHeader, ...sqliteLines] = readLines(fromSqlite);
    expect(sqliteLines).toHaveLength(TEXTS.length);
    expect(sqliteLines.some((l) => l.access_count > 0)).toBe(true);

    const imported = jsonOf(await onPostgres(["import", fromSqlite, "--new", "moved", "--json"]));
    expect(imported).toMatchObject({ created_workspace: true, imported: TEXTS.length, embedded: 0, refused: [] });

    const fromPostgres = tempFile("postgres.jsonl");
    jsonOf(await onPostgres(["export", "--workspace", imported.workspace_id, "--vectors", "--out", fromPostgres, "--json"]));
    const [pgHeader, ...pgLines] = readLines(fromPostgres);
    expect(pgLines).toEqual(sqliteLines);
    expect(pgHeader).toMatchObject({
      format: "brain-mcp.export",
      version: 1,
      model: sqliteHeader.model,
      memories: TEXTS.length,
      workspace: { ...sqliteHeader.workspace, id: imported.workspace_id, name: "moved", status: "active" },
    });

    const again = jsonOf(await onPostgres(["import", fromSqlite, "--workspace", imported.workspace_id, "--json"]));
    expect(again).toMatchObject({ imported: 0, already_present: TEXTS.length });
    const listed = jsonOf(await onPostgres(["workspace", "list", "--json"]));
    expect(listed.workspaces).toEqual([expect.objectContaining({ workspace_id: imported.workspace_id, memories: TEXTS.length })]);
  });

  it("a truncated file changes nothing on PostgreSQL either", async () => {
    const cut = tempFile("cut.jsonl");
    writeFileSync(cut, readFileSync(fromSqlite, "utf8").slice(0, -100));
    const before = jsonOf(await onPostgres(["workspace", "list", "--json"])).workspaces;
    const result = await onPostgres(["import", cut, "--new", "half"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`line ${TEXTS.length + 1}: not a complete JSON object`));
    expect(jsonOf(await onPostgres(["workspace", "list", "--json"])).workspaces).toEqual(before);
  });

  it("an import cut off by the database going away says how far it got; running it again completes it", async () => {
    const file = writeSyntheticExport(fromSqlite, 3_000);
    const { workspace_id } = jsonOf(await onPostgres(["workspace", "create", "--name", "cut-off", "--json"]));
    const { default: pg } = await import("pg");
    const count = async () => {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      try {
        return Number((await client.query("SELECT count(*) AS n FROM memories WHERE workspace_id = $1", [workspace_id])).rows[0].n);
      } finally {
        await client.end();
      }
    };
    const running = onPostgres(["import", file, "--workspace", workspace_id]);
    while ((await count()) === 0) await new Promise((r) => setTimeout(r, 20));
    await cluster.halt();
    const result = await running;
    await cluster.start();

    const left = await count();
    expect(left).toBeLessThan(3_000);
    expect(left % 64).toBe(0); // whole transactions of 64 memories
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`the import stopped after ${left} memories were written to workspace ${workspace_id}`));
    expect(result.stderr).toContain(`run it again with --workspace ${workspace_id} to complete it`);

    const rerun = jsonOf(await onPostgres(["import", file, "--workspace", workspace_id, "--json"]));
    expect(rerun).toMatchObject({ imported: 3_000 - left, already_present: left });
    expect(await count()).toBe(3_000);
  });
});
