// `brain-mcp admin import` refuses bad input with a clear error naming the line and changes nothing: a truncated
// file, a newer format version, a wrong type, an unknown workspace; a memory with a secret is refused by its line,
// never echoed, and the rest imports.
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ServiceHandle } from "../support/service.js";
import { adminOn, countIn, jsonOf, sourceWithMemories, sqliteRows, tempFile, TEXTS } from "../support/export-files.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const SECRET = "hunter2-Xq9!";
let source: ServiceHandle;
let exported: string;

beforeAll(async () => {
  ({ source, exported } = await sourceWithMemories());
});

afterAll(async () => {
  await source?.stop();
});

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
  const workspaceCount = async () => (await sqliteRows<{ n: number }>(target, "SELECT count(*) AS n FROM workspaces"))[0]!.n;

  beforeAll(async () => {
    target = tempFile("target.db");
    // The target already holds two of the memories: a failed import must leave exactly these.
    const firstTwo = variant("first-two.jsonl", (lines) => [header(lines, { memories: 2 }), lines[1]!, lines[2]!]);
    const made = jsonOf(await adminOn(target, ["import", firstTwo, "--new", "target", "--json"]));
    workspaceId = made.workspace_id;
    expect(made.imported).toBe(2);
  });

  const cases: [string, (lines: string[]) => string[] | string, RegExp][] = [
    [
      "a file cut inside a line",
      (lines) => `${lines.join("\n")}`.slice(0, -40),
      /line 6: not a complete JSON object \(the file may be truncated/,
    ],
    [
      "a file cut at a line's end",
      (lines) => lines.slice(0, -1),
      /line 6: the file ends here, but its header announces 5 memories: the file is truncated/,
    ],
    [
      "a header of a newer format version",
      (lines) => [header(lines, { version: 2 }), ...lines.slice(1)],
      /line 1: written in export format version 2; this brain-mcp reads up to version 1/,
    ],
    [
      "a line of a newer format version",
      (lines) => [...lines.slice(0, 3), header(lines, { version: 3 }), ...lines.slice(3)],
      /line 4: written in export format version 3/,
    ],
    [
      "a wrong type",
      (lines) => lines.map((l, i) => (i === 3 ? l.replace(/"importance":\d+/, '"importance":"high"') : l)),
      /line 4: `importance` expected number, received string/,
    ],
    [
      "an unknown field",
      (lines) => lines.map((l, i) => (i === 2 ? l.replace('{"text"', '{"colour":"red","text"') : l)),
      /line 3: unknown field `colour`/,
    ],
    ["an empty file", () => "", /line 1: the file is empty/],
    ["a file that is not an export", (lines) => lines.slice(1), /line 1: not a brain-mcp export/],
  ];

  for (const [what, edit, message] of cases) {
    it(`${what} is refused naming its line, and nothing is written`, async () => {
      const path = variant(`${what.replace(/\W+/g, "-")}.jsonl`, edit);
      for (const target_ of [
        ["--workspace", String(workspaceId)],
        ["--new", "never"],
      ]) {
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

  it("a secret in a memory's meta is refused by its line exactly as the API's store refuses it", async () => {
    const liveKey = source.apiKey; // another workspace's live key
    const metas: [Record<string, unknown>, string][] = [
      [{ card: "4111 1111 1111 1111" }, "credit_card"],
      [{ password: "Hunter2Sekret!x9" }, "password"],
      [{ pw: "password: Hunter2Sekret!x9" }, "password"],
      [{ note: { nested: [`key ${liveKey}`] } }, "api_key"],
      // A key is screened whatever its value's type (issue 28, item 4), at every depth.
      [{ "4111 1111 1111 1111": true }, "credit_card"],
      [{ "4111 1111 1111 1111": false }, "credit_card"],
      [{ "4111 1111 1111 1111": null }, "credit_card"],
      [{ "4111 1111 1111 1111": {} }, "credit_card"],
      [{ "4111 1111 1111 1111": [] }, "credit_card"],
      [{ tags: [{ deep: { "password: Hunter2Sekret!x9": [true, null] } }] }, "password"],
    ];
    const path = variant("meta-secrets.jsonl", (lines) => {
      const base = JSON.parse(lines[1]!);
      const secretLines = metas.map(([meta], i) =>
        JSON.stringify({
          ...base,
          text: `Imported note number ${i} about the garden`,
          meta,
          created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        }),
      );
      return [header(lines, { memories: lines.length - 1 + metas.length }), ...lines.slice(1), ...secretLines];
    });
    const result = await adminOn(target, ["import", path, "--workspace", workspaceId, "--json"]);
    expect(result.code).toBe(1);
    const refused = JSON.parse(result.stdout).refused as { line: number; pii_types: string[] }[];
    expect(refused.map((r) => r.line)).toEqual(metas.map((_, i) => 7 + i));
    refused.forEach((r, i) => expect(r.pii_types).toContain(metas[i]![1]));
    for (const secret of ["4111 1111 1111 1111", "Hunter2Sekret!x9", liveKey]) {
      expect(result.stdout + result.stderr).not.toContain(secret);
      expect(await sqliteRows(target, "SELECT id FROM memories WHERE meta LIKE ?", [`%${secret}%`])).toEqual([]);
    }
    // The API's store says the same of each.
    for (const [meta, kind] of metas) {
      const res = await fetch(`${source.baseURL}/v1/memory/store`, {
        method: "POST",
        headers: { authorization: `Bearer ${source.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ text: "A note about the garden", meta }),
      });
      expect(res.status).toBe(422);
      expect((await res.json()).error.pii_types).toContain(kind);
    }
  });

  it("export --out refuses an existing file, as backup does, and leaves it as it was", async () => {
    const out = tempFile("existing.jsonl");
    writeFileSync(out, "my own notes\n");
    const result = await adminOn(target, ["export", "--workspace", workspaceId, "--out", out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${out} exists already; choose a new file name (an export, like a backup, never overwrites)`);
    expect(readFileSync(out, "utf8")).toBe("my own notes\n");
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
