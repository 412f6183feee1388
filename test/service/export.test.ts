// `brain-mcp admin export | import | backup` on real stores through the real CLI: a workspace out as JSON Lines and
// back in unchanged, importing twice adds nothing, bad files change nothing, and a live SQLite store copies cleanly.
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  baseEnv,
  BIN,
  call,
  queryStore,
  runCli,
  startService,
  TEST_DATABASE_URL,
  type CommandResult,
  type ServiceHandle,
} from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// The lexical embedder needs no model: fast to start on a shared machine.
const LEXICAL = { BRAIN_EMBEDDER: "lexical" };
const TEXTS = [
  "The staging database runs on port 5433.",
  "Alice prefers green tea over coffee.",
  "The quarterly review meeting is tomorrow at 3pm.",
  "Deploys go out every Tuesday after the standup.",
  "Our VPN gateway lives at vpn.example.com.",
];
const SECRET = "hunter2-Xq9!";

const dir = mkdtempSync(join(tmpdir(), "brain-export-"));
let fileCount = 0;
const tempFile = (name: string) => join(dir, `${++fileCount}-${name}`);

/** `admin ...` on a SQLite file of its own (never the suite's PostgreSQL), with `env` on top of the lexical model. */
function adminOn(dbPath: string, args: (string | number)[], env: NodeJS.ProcessEnv = LEXICAL): Promise<CommandResult> {
  return runCli(["admin", ...args.map(String), "--db", dbPath], { env: baseEnv({ ...env, BRAIN_DATABASE_URL: "" }) });
}

function jsonOf(result: CommandResult): Record<string, any> {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** An export file of `n` distinct memories shaped like the real export's first one. */
function synthetic(n: number): string {
  const [header, template] = readLines(exported);
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  const lines = [JSON.stringify({ ...header, memories: n })];
  for (let i = 0; i < n; i++) {
    const at = new Date(base + i * 1000).toISOString();
    const text = `Fact ${i}: server-${i} in rack ${i % 40} runs build ${i * 7919} for team ${i % 17}.`;
    lines.push(JSON.stringify({ ...template, text, created_at: at, updated_at: at, access_count: 0, last_accessed_at: null }));
  }
  const path = tempFile(`synthetic-${n}.jsonl`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const readLines = (path: string) => readFileSync(path, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));

/** Rows of one of this file's own SQLite stores (queryStore would read the suite's PostgreSQL when it has one). */
async function sqliteRows<T>(dbPath: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

const countIn = async (dbPath: string) => (await sqliteRows<{ n: number }>(dbPath, "SELECT count(*) AS n FROM memories"))[0]!.n;

let source: ServiceHandle;
let exported: string;

beforeAll(async () => {
  source = await startService({ env: LEXICAL });
  for (const [i, text] of TEXTS.entries()) {
    const stored = await call(source.baseURL, "POST", "/v1/memory/store", { key: source.apiKey, json: { text, meta: { n: i, tags: ["x"] } } });
    expect(stored.status, stored.text).toBe(200);
  }
  const recalled = await call(source.baseURL, "POST", "/v1/memory/retrieve", { key: source.apiKey, json: { query: "what does Alice drink?", top_k: 1 } });
  expect(recalled.json.count).toBe(1);
  exported = tempFile("source.jsonl");
  const result = await source.admin(["export", "--workspace", source.workspaceId, "--out", exported, "--json"]);
  expect(jsonOf(result)).toMatchObject({ workspace_id: source.workspaceId, memories: TEXTS.length, out: exported });
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
    expect(listed.workspaces).toEqual([expect.objectContaining({ workspace_id: imported.workspace_id, name: "copy", plan: "free", memories: 5 })]);

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
    const file = synthetic(5_000);
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
    expect(left).toBeLessThan(5_000); // killed before the end
    expect(left % 64).toBe(0); // whole transactions of 64
    const withoutVector = await sqliteRows(db, "SELECT id FROM memories WHERE id NOT IN (SELECT memory_id FROM memory_vectors)");
    expect(withoutVector).toEqual([]);

    const rerun = jsonOf(await adminOn(db, ["import", file, "--workspace", workspace_id, "--json"]));
    expect(rerun).toMatchObject({ imported: 5_000 - left, already_present: left });
    expect(await countIn(db)).toBe(5_000);
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
    const [header, ...lines] = result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
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
    const command = [process.execPath, join(process.cwd(), "bin", "brain-mcp.js"), "admin", "import", exported, "--new", "tty", "--db", target]
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

describe("bad input changes nothing", () => {
  let target: string;
  let workspaceId: number;
  const good = () => readFileSync(exported, "utf8");
  const variant = (name: string, edit: (lines: string[]) => string[] | string) => {
    const path = tempFile(name);
    const edited = edit(good().trimEnd().split("\n"));
    writeFileSync(path, typeof edited === "string" ? edited : `${edited.join("\n")}\n`);
    return path;
  };
  const header = (lines: string[], change: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(lines[0]!), ...change });
  const workspaceCount = async () => jsonOf(await adminOn(target, ["workspace", "list", "--json"])).workspaces.length;

  beforeAll(async () => {
    target = tempFile("target.db");
    // The target already holds two of the memories: a failed import must leave exactly these.
    const firstTwo = variant("first-two.jsonl", (lines) => [header(lines, { memories: 2 }), lines[1]!, lines[2]!]);
    const made = jsonOf(await adminOn(target, ["import", firstTwo, "--new", "target", "--json"]));
    workspaceId = made.workspace_id;
    expect(made.imported).toBe(2);
  });

  const cases: [string, (lines: string[]) => string[] | string, RegExp][] = [
    ["a file cut inside a line", (lines) => `${lines.join("\n")}`.slice(0, -40), /line 6: not a complete JSON object \(the file may be truncated/],
    ["a file cut at a line's end", (lines) => lines.slice(0, -1), /line 6: the file ends here, but its header announces 5 memories: the file is truncated/],
    ["a header of a newer format version", (lines) => [header(lines, { version: 2 }), ...lines.slice(1)], /line 1: written in export format version 2; this brain-mcp reads up to version 1/],
    ["a line of a newer format version", (lines) => [...lines.slice(0, 3), header(lines, { version: 3 }), ...lines.slice(3)], /line 4: written in export format version 3/],
    ["a wrong type", (lines) => lines.map((l, i) => (i === 3 ? l.replace(/"importance":\d+/, '"importance":"high"') : l)), /line 4: `importance` expected number, received string/],
    ["an unknown field", (lines) => lines.map((l, i) => (i === 2 ? l.replace('{"text"', '{"colour":"red","text"') : l)), /line 3: unknown field `colour`/],
    ["an empty file", () => "", /line 1: the file is empty/],
    ["a file that is not an export", (lines) => lines.slice(1), /line 1: not a brain-mcp export/],
  ];

  for (const [what, edit, message] of cases) {
    it(`${what} is refused naming its line, and nothing is written`, async () => {
      const path = variant(`${what.replace(/\W+/g, "-")}.jsonl`, edit);
      for (const target_ of [["--workspace", String(workspaceId)], ["--new", "never"]]) {
        const result = await adminOn(target, ["import", path, ...target_]);
        expect(result.code, result.stdout).toBe(1);
        expect(result.stderr).toMatch(message);
        expect(result.stderr).toContain("nothing was written");
        for (const text of TEXTS) expect(result.stderr).not.toContain(text);
      }
      expect(await countIn(target)).toBe(2);
      expect(await workspaceCount()).toBe(1);
    });
  }

  it("an unknown workspace is refused and nothing is written", async () => {
    const result = await adminOn(target, ["import", exported, "--workspace", 987654]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("workspace 987654 does not exist");
    expect(await countIn(target)).toBe(2);
    expect(await workspaceCount()).toBe(1);

    const out = tempFile("unknown.jsonl");
    const exportUnknown = await adminOn(target, ["export", "--workspace", 987654, "--out", out]);
    expect(exportUnknown.code).toBe(1);
    expect(exportUnknown.stderr).toContain("workspace 987654 does not exist");
  });

  it("a memory with a secret is refused and reported by its line, never echoed; the rest imports", async () => {
    const path = variant("secret.jsonl", (lines) => {
      const secretLine = { ...JSON.parse(lines[1]!), text: `The database password is ${SECRET}`, created_at: new Date().toISOString() };
      return [header(lines, { memories: 6 }), ...lines.slice(1, 4), JSON.stringify(secretLine), ...lines.slice(4)];
    });
    const result = await adminOn(target, ["import", path, "--workspace", workspaceId, "--json"]);
    expect(result.code).toBe(1); // not everything in the file is in the store
    expect(JSON.parse(result.stdout)).toMatchObject({ imported: 3, already_present: 2, refused: [{ line: 5, pii_types: ["password"] }] });
    expect(result.stderr).toContain("line 5: refused, it contains password");
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    expect(await countIn(target)).toBe(5);
    const leaked = await sqliteRows(target, "SELECT id FROM memories WHERE text LIKE ?", [`%${SECRET}%`]);
    expect(leaked).toEqual([]);
  });

  it("usage mistakes are usage errors before any store is opened", async () => {
    const cases: [(string | number)[], RegExp][] = [
      [["import", exported], /either --workspace WORKSPACE_ID or --new NAME/],
      [["import", exported, "--workspace", 1, "--new", "x"], /either --workspace WORKSPACE_ID or --new NAME/],
      [["import", "--workspace", 1], /import needs one FILE/],
      [["export"], /export needs --workspace/],
      [["export", "--workspace", "abc"], /--workspace must be a positive integer/],
      [["backup"], /backup needs --out FILE/],
    ];
    for (const [args, message] of cases) {
      const result = await adminOn(tempFile("never.db"), args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });
});

describe.skipIf(TEST_DATABASE_URL)("backup", () => {
  it("copies a live SQLite store while the service writes: the copy passes integrity_check and holds every acknowledged memory", async () => {
    const live = await startService({ env: LEXICAL });
    try {
      const acknowledged = new Map<number, string>();
      let writing = true;
      let n = 0;
      const writer = async () => {
        while (writing) {
          const text = `Release note ${++n}: build ${n * 7919} shipped to region ${n % 13} on lane ${n % 5}.`;
          const stored = await call(live.baseURL, "POST", "/v1/memory/store", { key: live.apiKey, json: { text } });
          if (stored.status === 200) acknowledged.set(stored.json.memory_id, text);
        }
      };
      const writers = [writer(), writer(), writer()];
      while (acknowledged.size < 30) await new Promise((r) => setTimeout(r, 20));

      const before = new Map(acknowledged);
      const out = tempFile("backup.db");
      const backup = await live.admin(["backup", "--out", out, "--json"]);
      const during = acknowledged.size - before.size;
      writing = false;
      await Promise.all(writers);
      expect(jsonOf(backup)).toMatchObject({ out, bytes: expect.any(Number) });
      expect(during).toBeGreaterThan(0); // the service kept writing while the copy was taken

      expect(await sqliteRows(out, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);
      const rows = await sqliteRows<{ id: number; text: string }>(out, "SELECT id, text FROM memories");
      const inCopy = new Map(rows.map((r) => [r.id, r.text]));
      for (const [id, text] of before) expect(inCopy.get(id)).toBe(text);

      const again = await live.admin(["backup", "--out", out]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain("exists already");
    } finally {
      await live.stop();
    }
  });

  it("on PostgreSQL, backup points at pg_dump", async () => {
    const result = await runCli(["admin", "backup", "--out", tempFile("pg.dump"), "--database-url", "postgres://nobody:pw@127.0.0.1:1/none"], {
      env: baseEnv(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("pg_dump");
    expect(result.stderr).not.toContain("pw@");
  });
});
