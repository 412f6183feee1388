// Helpers for the tests of `admin export | import | backup`: a source service with a few memories and its export,
// synthetic export files of many memories, `admin` on SQLite files of the test's own, and reading those files.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { baseEnv, call, runCli, startService, type CommandResult, type ServiceHandle } from "./service.js";

/** The lexical embedder needs no model: fast to start on a shared machine. */
export const LEXICAL = { BRAIN_EMBEDDER: "lexical" };

export const TEXTS = [
  "The staging database runs on port 5433.",
  "Alice prefers green tea over coffee.",
  "The quarterly review meeting is tomorrow at 3pm.",
  "Deploys go out every Tuesday after the standup.",
  "Our VPN gateway lives at vpn.example.com.",
];

const dir = mkdtempSync(join(tmpdir(), "brain-export-"));
let files = 0;

/** A path in this run's temp folder, never used before. */
export const tempFile = (name: string) => join(dir, `${++files}-${name}`);

/** `admin ...` on a SQLite file of the test's own (never the suite's PostgreSQL), with `env` over the lexical model. */
export function adminOn(dbPath: string, args: (string | number)[], env: NodeJS.ProcessEnv = LEXICAL): Promise<CommandResult> {
  return runCli(["admin", ...args.map(String), "--db", dbPath], { env: baseEnv({ ...env, BRAIN_DATABASE_URL: "" }) });
}

/** The command's --json answer; the command must have succeeded. */
export function jsonOf(result: CommandResult): Record<string, any> {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** Rows of a SQLite file (queryStore would read the suite's PostgreSQL when it has one). */
export async function sqliteRows<T>(dbPath: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export const countIn = async (dbPath: string) => (await sqliteRows<{ n: number }>(dbPath, "SELECT count(*) AS n FROM memories"))[0]!.n;

/** Every line of an export file, parsed. */
export function readExport(path: string): Record<string, any>[] {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/**
 * A real `serve` (lexical model) whose first workspace holds TEXTS, stored through the API with meta `{n, tags}`,
 * the second one recalled once; and that workspace exported (with `exportArgs`) to a file.
 */
export async function sourceWithMemories(exportArgs: string[] = []): Promise<{ source: ServiceHandle; exported: string }> {
  const source = await startService({ env: LEXICAL });
  try {
    return await fillAndExport(source, exportArgs);
  } catch (err) {
    await source.stop(); // a setup that fails leaves no serve behind (the suite's afterAll never sees it)
    throw err;
  }
}

async function fillAndExport(source: ServiceHandle, exportArgs: string[]): Promise<{ source: ServiceHandle; exported: string }> {
  for (const [i, text] of TEXTS.entries()) {
    const stored = await call(source.baseURL, "POST", "/v1/memory/store", {
      key: source.apiKey,
      json: { text, meta: { n: i, tags: ["x"] } },
    });
    expect(stored.status, stored.text).toBe(200);
  }
  const recalled = await call(source.baseURL, "POST", "/v1/memory/retrieve", {
    key: source.apiKey,
    // min_score 0: this recall only gives the memory an access to export; the default threshold is calibrated on MiniLM.
    json: { query: "what does Alice drink?", top_k: 1, min_score: 0 },
  });
  expect(recalled.json.count).toBe(1);
  const exported = tempFile("source.jsonl");
  const result = await source.admin(["export", "--workspace", source.workspaceId, "--out", exported, "--json", ...exportArgs]);
  expect(jsonOf(result)).toMatchObject({ workspace_id: source.workspaceId, memories: TEXTS.length, out: exported });
  return { source, exported };
}

/** Writes an export of `n` distinct memories, each shaped like the first memory of the export at `from`. */
export function writeSyntheticExport(from: string, n: number): string {
  const [header, template] = readExport(from);
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  const lines = [JSON.stringify({ ...header, memories: n })];
  for (let i = 0; i < n; i++) {
    const at = new Date(base + i * 1000).toISOString();
    const text = `Fact ${i}: server-${i} in rack ${i % 40} runs build ${i * 7919} for team ${i % 17}.`;
    const { model: _model, vector: _vector, ...shape } = template!;
    lines.push(JSON.stringify({ ...shape, text, created_at: at, updated_at: at, access_count: 0, last_accessed_at: null }));
  }
  const path = tempFile(`synthetic-${n}.jsonl`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}
