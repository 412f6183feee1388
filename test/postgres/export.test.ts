// The round trip the export format exists for: a SQLite store → file → PostgreSQL → file gives the same memories
// (text, meta, importance, categories, temporal, counters, timestamps, vectors); only the ids may differ.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { baseEnv, call, runCli, startService, type CommandResult, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const LEXICAL = { BRAIN_EMBEDDER: "lexical" };
const TEXTS = [
  "The staging database runs on port 5433.",
  "Zoë's flight to Zürich lands at 09:40 on the 3rd of December.",
  "The conference room is booked until Friday at 5pm.",
  "We decided to migrate billing to Stripe in Q3.",
];

const dir = mkdtempSync(join(tmpdir(), "brain-export-pg-"));
const readLines = (path: string) => readFileSync(path, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));

function jsonOf(result: CommandResult): Record<string, any> {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe.skipIf(!canStartPostgres())("export from SQLite, import into PostgreSQL", () => {
  let cluster: PgCluster;
  let source: ServiceHandle;
  let pgUrl: string;
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
      expect((await call(source.baseURL, "POST", "/v1/memory/retrieve", { key: source.apiKey, json: { query, top_k: 1 } })).status).toBe(200);
    }
  });

  afterAll(async () => {
    await source?.stop();
    await cluster?.stop();
  });

  it("SQLite → file → PostgreSQL → file gives the same memories, and a second import adds nothing", async () => {
    const fromSqlite = join(dir, "sqlite.jsonl");
    jsonOf(await source.admin(["export", "--workspace", source.workspaceId, "--vectors", "--out", fromSqlite, "--json"]));
    const [sqliteHeader, ...sqliteLines] = readLines(fromSqlite);
    expect(sqliteLines).toHaveLength(TEXTS.length);
    expect(sqliteLines.some((l) => l.access_count > 0)).toBe(true);

    const imported = jsonOf(await onPostgres(["import", fromSqlite, "--new", "moved", "--json"]));
    expect(imported).toMatchObject({ created_workspace: true, imported: TEXTS.length, embedded: 0, refused: [] });

    const fromPostgres = join(dir, "postgres.jsonl");
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
    const whole = join(dir, "sqlite.jsonl");
    const cut = join(dir, "cut.jsonl");
    writeFileSync(cut, readFileSync(whole, "utf8").slice(0, -100));
    const before = jsonOf(await onPostgres(["workspace", "list", "--json"])).workspaces;
    const result = await onPostgres(["import", cut, "--new", "half"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`line ${TEXTS.length + 1}: not a complete JSON object`));
    expect(jsonOf(await onPostgres(["workspace", "list", "--json"])).workspaces).toEqual(before);
  });
});
