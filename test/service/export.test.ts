// `brain-mcp admin export` and `import` on real stores through the real CLI: the file holds what the store holds, a
// workspace goes out and comes back unchanged, importing twice (or twice at once) adds nothing, an interrupted import
// leaves whole memories only, and vectors are kept or re-embedded by model.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { baseEnv, BIN, call, queryStore, type ServiceHandle } from "../support/service.js";
import {
  adminOn,
  countIn,
  jsonOf,
  LEXICAL,
  readExport as readLines,
  sourceWithMemories,
  sqliteRows,
  tempFile,
  TEXTS,
  writeSyntheticExport,
} from "../support/export-files.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let source: ServiceHandle;
let exported: string;
const synthetic = (n: number) => writeSyntheticExport(exported, n);

beforeAll(async () => {
  ({ source, exported } = await sourceWithMemories());
});

afterAll(async () => {
  await source?.stop();
});

describe("export and import", () => {
  it("export writes a header and every memory with its judgement, counters and timestamps as the store has them", async () => {
    const [header, ...lines] = readLines(exported);
    expect(header).toMatchObject({
      format: "brain-mcp.export",
      version: 1,
      workspace: { id: source.workspaceId, name: "primary", plan: "free", billing_cycle: "monthly", status: "active" },
      memories: TEXTS.length,
    });
    expect(typeof header.model).toBe("string");
    expect(Date.parse(header.exported_at)).toBeGreaterThan(Date.now() - 120_000);
    expect(lines.map((l) => l.text)).toEqual(TEXTS); // oldest first

    const rows = await queryStore<Record<string, any>>(
      source,
      {
        sqlite: "SELECT * FROM memories WHERE workspace_id = ? ORDER BY created_at, id",
        pg: "SELECT * FROM memories WHERE workspace_id = $1 ORDER BY created_at, id",
      },
      [source.workspaceId],
    );
    const at = (ms: unknown) => (ms === null ? null : new Date(Number(ms)).toISOString());
    for (const [i, line] of lines.entries()) {
      const row = rows[i]!;
      expect(line).toEqual({
        text: row.text,
        meta: { n: i, tags: ["x"] },
        importance: Number(row.importance),
        categories: JSON.parse(row.categories),
        temporal: { type: row.temporal_type, valid_until: at(row.valid_until) },
        access_count: Number(row.access_count),
        last_accessed_at: at(row.last_accessed_at),
        created_at: at(row.created_at),
        updated_at: at(row.updated_at),
      });
    }
    expect(lines.find((l) => l.text.startsWith("Alice"))).toMatchObject({ access_count: 1, last_accessed_at: expect.any(String) });
  });

  it("import into another store gives back the same memories, and importing the file again adds nothing", async () => {
    const copy = tempFile("copy.db");
    const imported = jsonOf(await adminOn(copy, ["import", exported, "--new", "copy", "--json"]));
    expect(imported).toMatchObject({ created_workspace: true, memories: 5, imported: 5, already_present: 0, embedded: 5, refused: [] });
    const listed = jsonOf(await adminOn(copy, ["workspace", "list", "--json"]));
    expect(listed.workspaces).toEqual([
      expect.objectContaining({ workspace_id: imported.workspace_id, name: "copy", plan: "free", memories: 5 }),
    ]);

    const again = tempFile("again.jsonl");
    jsonOf(await adminOn(copy, ["export", "--workspace", imported.workspace_id, "--out", again, "--json"]));
    expect(readLines(again).slice(1)).toEqual(readLines(exported).slice(1));

    const twice = jsonOf(await adminOn(copy, ["import", exported, "--workspace", imported.workspace_id, "--json"]));
    expect(twice).toMatchObject({ imported: 0, already_present: 5, refused: [] });
    expect(await countIn(copy)).toBe(5);
    // --new refuses a name in use rather than making a second copy
    const renamed = await adminOn(copy, ["import", exported, "--new", "copy"]);
    expect(renamed.code).toBe(1);
    expect(renamed.stderr).toContain(`a workspace named "copy" exists already (id ${imported.workspace_id})`);
    expect(await countIn(copy)).toBe(5);
  });

  it("memories imported while serve runs on the same store are recalled through the API", async () => {
    const restored = jsonOf(await source.admin(["import", exported, "--new", "restored", "--json"]));
    expect(restored).toMatchObject({ imported: 5 });
    const key = jsonOf(await source.admin(["key", "create", restored.workspace_id, "--json"]));
    const found = await call(source.baseURL, "POST", "/v1/memory/retrieve", {
      key: key.api_key,
      // min_score 0: the lexical model's scores are not what the default threshold was calibrated on (MiniLM).
      json: { query: "what does Alice drink?", top_k: 1, min_score: 0 },
    });
    expect(found.status).toBe(200);
    expect(found.json.memories[0]).toMatchObject({ text: "Alice prefers green tea over coffee.", meta: { n: 1, tags: ["x"] } });
  });

  it("two imports of one file at once add each memory once", async () => {
    const file = synthetic(600);
    const twin = tempFile("twin.db");
    const { workspace_id } = jsonOf(await adminOn(twin, ["workspace", "create", "--name", "twin", "--json"]));
    const both = (await Promise.all([1, 2].map(() => adminOn(twin, ["import", file, "--workspace", workspace_id, "--json"])))).map(jsonOf);
    expect(both[0]!.imported + both[1]!.imported).toBe(600);
    expect(both[0]!.already_present + both[1]!.already_present).toBe(600);
    expect(await countIn(twin)).toBe(600);
  });

  it("an import killed midway leaves only whole memories, and running it again completes it", async () => {
    const file = synthetic(3_000);
    const db = tempFile("killed.db");
    const { workspace_id } = jsonOf(await adminOn(db, ["workspace", "create", "--name", "killed", "--json"]));
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [BIN, "admin", "import", file, "--workspace", String(workspace_id), "--db", db], {
      env: baseEnv({ ...LEXICAL, BRAIN_DATABASE_URL: "" }),
      stdio: "ignore",
    });
    const exited = new Promise((r) => child.once("exit", r));
    let seen = 0;
    while (seen === 0 && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 10));
      seen = await countIn(db);
    }
    child.kill("SIGKILL");
    await exited;
    const left = await countIn(db);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(3_000); // killed before the end
    expect(left % 64).toBe(0); // whole transactions of 64
    const withoutVector = await sqliteRows(db, "SELECT id FROM memories WHERE id NOT IN (SELECT memory_id FROM memory_vectors)");
    expect(withoutVector).toEqual([]);

    const rerun = jsonOf(await adminOn(db, ["import", file, "--workspace", workspace_id, "--json"]));
    expect(rerun).toMatchObject({ imported: 3_000 - left, already_present: left });
    expect(await countIn(db)).toBe(3_000);
  });

  it("with --vectors, the same model's vectors are kept; another model re-embeds every text", async () => {
    const withVectors = tempFile("vectors.jsonl");
    jsonOf(await source.admin(["export", "--workspace", source.workspaceId, "--out", withVectors, "--vectors", "--json"]));
    const lines = readLines(withVectors).slice(1);
    expect(lines.every((l) => typeof l.vector === "string" && l.model === readLines(withVectors)[0].model)).toBe(true);

    const same = tempFile("same-model.db");
    expect(jsonOf(await adminOn(same, ["import", withVectors, "--new", "same", "--json"]))).toMatchObject({ imported: 5, embedded: 0 });
    const kept = await sqliteRows<{ text: string; vector: Buffer; embedder_id: string }>(
      same,
      "SELECT m.text, v.vector, m.embedder_id FROM memories m JOIN memory_vectors v ON v.memory_id = m.id",
    );
    for (const row of kept) {
      const line = lines.find((l) => l.text === row.text)!;
      expect(row.embedder_id).toBe(line.model);
      expect(Buffer.from(row.vector).toString("base64")).toBe(line.vector);
    }

    // The default model (whatever it is) is not the lexical one: every text is embedded again by it.
    const other = tempFile("other-model.db");
    const reembedded = await adminOn(other, ["import", withVectors, "--new", "other", "--json"], { BRAIN_EMBEDDER: "" });
    expect(jsonOf(reembedded)).toMatchObject({ imported: 5, embedded: 5 });
    const models = await sqliteRows<{ embedder_id: string }>(other, "SELECT DISTINCT embedder_id FROM memories");
    expect(models).toHaveLength(1);
    expect(models[0]!.embedder_id).not.toBe(lines[0].model);
  });

  it("without --out the file goes to stdout and nothing else does", async () => {
    const result = await source.admin(["export", "--workspace", source.workspaceId]);
    expect(result.code, result.stderr).toBe(0);
    const [header, ...lines] = result.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const [fileHeader, ...fileLines] = readLines(exported);
    expect({ ...header, exported_at: null }).toEqual({ ...fileHeader, exported_at: null });
    expect(lines).toEqual(fileLines);
    expect(result.stderr).toContain("Exported 5 memories");
  });

  it.skipIf(!existsSync("/dev/full"))("an export that cannot be written fails clearly: a full disk, a closed pipe", async () => {
    const full = await source.admin(["export", "--workspace", source.workspaceId, "--out", "/dev/full"]);
    expect(full.code).toBe(1);
    expect(full.stderr).toContain("ENOSPC: no space left on device");
    expect(statSync("/dev/full").isCharacterDevice()).toBe(true); // written in place, never replaced

    // 2,000 memories with their vectors (megabytes) cannot sit in a pipe's buffer when the reader leaves
    const big = tempFile("big.db");
    jsonOf(await adminOn(big, ["import", synthetic(2_000), "--new", "big", "--json"]));
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [BIN, "admin", "export", "--workspace", "1", "--vectors", "--db", big], {
      env: baseEnv({ ...LEXICAL, BRAIN_DATABASE_URL: "" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.once("data", () => child.stdout.destroy());
    expect(await new Promise((r) => child.once("exit", r))).toBe(1);
    expect(stderr).toContain("stdout was closed before the export was complete (EPIPE)");
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("progress is shown on a terminal's stderr and nowhere else", async () => {
    const target = tempFile("progress.db");
    const piped = await adminOn(target, ["import", exported, "--new", "piped"]);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain("importing");
    // script(1) gives the command a terminal; what the terminal showed comes back on its stdout
    const command = [
      process.execPath,
      join(process.cwd(), "bin", "brain-mcp.js"),
      "admin",
      "import",
      exported,
      "--new",
      "tty",
      "--db",
      target,
    ]
      .map((a) => `'${a}'`)
      .join(" ");
    const tty = await runScript(command);
    expect(tty).toMatch(/importing 5 \/ 5 memories/);
  });
});

/** Runs `command` under script(1), which gives it a pseudo-terminal; returns what the terminal received. */
async function runScript(command: string): Promise<string> {
  const { spawn } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qec", command, "/dev/null"], { env: baseEnv({ ...LEXICAL, BRAIN_DATABASE_URL: "" }) });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", () => resolve(out));
  });
}
