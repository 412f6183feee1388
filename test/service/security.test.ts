// Security properties over the real `brain-mcp serve` (SQLite, or PostgreSQL under BRAIN_TEST_DATABASE_URL): keys
// at rest only as hashes, no key or rejected text in any log, error body or store file, private file modes, and
// request bodies bounded in size and nesting before they are parsed.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BODY_MAX_DEPTH } from "../../src/contract/limits.js";
import { connectAdapter, isolatedEnv } from "../mcp/harness.js";
import { baseEnv, call, queryStore, runCli, startService, TEST_DATABASE_URL, type ServiceHandle } from "../support/service.js";

// Real processes on a shared 2-core machine: starting one loads the models, which can take seconds under load.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const CARD = "4111 1111 1111 1111";
const REJECTED_TEXT = `Pay the harbour locksmith with card ${CARD} before the audit`;
const SECRET_TOKEN = `sk-proj-${randomBytes(45).toString("base64url").replace(/[-_]/g, "x").slice(0, 60)}`;
const REJECTED_SECRET_TEXT = `the nightly export job uses ${SECRET_TOKEN}`;
const ACCEPTED_TEXT = "The cellar door of the Lisbon office sticks in damp weather; lift it before turning the key.";

let svc: ServiceHandle;
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const store = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  call(svc.baseURL, "POST", "/v1/memory/store", { key, json: body, headers });

beforeAll(async () => {
  svc = await startService({ env: { BRAIN_LOG: "debug" } });
});

afterAll(async () => {
  await svc?.stop();
});

/** Every byte the store keeps: the SQLite files, or every row of every table as text. */
async function storeContents(handle: ServiceHandle): Promise<{ where: string; text: string }[]> {
  if (!TEST_DATABASE_URL) {
    const files = [handle.dbPath!, `${handle.dbPath}-wal`, `${handle.dbPath}-shm`].filter((f) => existsSync(f));
    return files.map((file) => ({ where: file, text: readFileSync(file).toString("latin1") }));
  }
  const tables = await queryStore<{ table_name: string }>(handle, {
    sqlite: "",
    pg: "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  });
  const out: { where: string; text: string }[] = [];
  for (const { table_name } of tables) {
    const rows = await queryStore<{ row: string }>(handle, { sqlite: "", pg: `SELECT t::text AS row FROM "${table_name}" t` });
    out.push({ where: table_name, text: rows.map((r) => r.row).join("\n") });
  }
  return out;
}

describe("keys at rest", () => {
  it("the store keeps each key only as its SHA-256, and a key one character off or in other case is refused", async () => {
    const ws = await svc.newWorkspace("hashes");
    const rows = await queryStore<Record<string, unknown>>(
      svc,
      { sqlite: "SELECT * FROM api_keys WHERE id = ?", pg: "SELECT * FROM api_keys WHERE id = $1" },
      [ws.keyId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).toBe(sha256(ws.apiKey));
    for (const value of Object.values(rows[0]!)) {
      expect(String(value)).not.toContain(ws.apiKey.slice(11)); // the secret part, in any column
    }

    const last = ws.apiKey.at(-1)!;
    const oneOff = ws.apiKey.slice(0, -1) + (last === "a" ? "b" : "a");
    const swapCase = (c: string) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase());
    const otherCase = ws.apiKey.slice(0, 7) + [...ws.apiKey.slice(7)].map(swapCase).join("");
    for (const key of [oneOff, otherCase, `${ws.apiKey}x`, ws.apiKey.slice(0, -1)]) {
      const res = await call(svc.baseURL, "GET", "/v1/status", { key });
      expect(res.status, key).toBe(401);
    }
    expect((await call(svc.baseURL, "GET", "/v1/status", { key: ws.apiKey })).status).toBe(200);
  });
});

describe("secrets and rejected text", () => {
  it("never reach a debug-level log, an error body or any store file (main, WAL, SHM; every PostgreSQL table)", async () => {
    const ws = await svc.newWorkspace("secrets");
    const wrongKey = `svc_ws_${randomBytes(24).toString("base64url").replace(/[-_]/g, "q").slice(0, 32)}`;
    const bodies: string[] = [];

    const card = await store(ws.apiKey, { text: REJECTED_TEXT }, { "idempotency-key": "card-1" });
    expect(card.status).toBe(422);
    expect(card.json.error.pii_types).toContain("credit_card");
    const token = await store(ws.apiKey, { text: REJECTED_SECRET_TEXT, meta: { note: "nightly" } }, { "idempotency-key": "tok-1" });
    expect(token.status).toBe(422);
    expect(token.json.error.pii_types).toContain("api_key");
    // The memory is its text and its meta: a secret in meta is rejected as in text.
    const cardInMeta = await store(ws.apiKey, { text: "Supplier payment details", meta: { billing: { card: CARD } } });
    expect(cardInMeta.status).toBe(422);
    expect(cardInMeta.json.error.pii_types).toEqual(["credit_card"]);
    const passwordInMeta = await store(ws.apiKey, { text: "Staging login details", meta: { password: "Tr0ub4dor&3xQ" } });
    expect(passwordInMeta.status).toBe(422);
    expect(passwordInMeta.json.error.pii_types).toEqual(["password"]);
    const wrong = await store(wrongKey, { text: ACCEPTED_TEXT });
    expect(wrong.status).toBe(401);
    bodies.push(card.text, token.text, cardInMeta.text, passwordInMeta.text, wrong.text);

    // Accepted work, so idempotency records, usage events and a memory exist to be scanned too.
    const kept = await store(ws.apiKey, { text: ACCEPTED_TEXT }, { "idempotency-key": "ok-1" });
    expect(kept.status).toBe(200);
    expect((await store(ws.apiKey, { text: ACCEPTED_TEXT }, { "idempotency-key": "ok-1" })).json).toEqual(kept.json);
    const recalled = await call(svc.baseURL, "POST", "/v1/memory/retrieve", { key: ws.apiKey, json: { query: "cellar door" } });
    expect(recalled.status).toBe(200);
    bodies.push(kept.text, recalled.text);

    // The command line's client at debug level, with the rejected text and the key in its environment.
    const cli = await runCli(["remember", REJECTED_TEXT], {
      env: baseEnv({ BRAIN_API_KEY: ws.apiKey, BRAIN_BASE_URL: svc.baseURL, BRAIN_LOG: "debug" }),
    });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/credit.card/i);

    // The MCP adapter at debug level: a rejected remember, then a recall.
    const adapter = await connectAdapter(isolatedEnv({ BRAIN_API_KEY: ws.apiKey, BRAIN_BASE_URL: svc.baseURL, BRAIN_LOG: "debug" }));
    const remembered = (await adapter.client.callTool({ name: "brain.remember", arguments: { text: REJECTED_TEXT } })) as {
      isError?: boolean;
      content: { text?: string }[];
    };
    expect(remembered.isError).toBe(true);
    const recalledByAgent = await adapter.client.callTool({ name: "brain.recall", arguments: { query: "cellar door" } });
    expect(recalledByAgent.isError).toBeFalsy();
    bodies.push(JSON.stringify(remembered), JSON.stringify(recalledByAgent));
    await adapter.close();
    expect(adapter.stderr()).toContain("answered in"); // its debug lines are on, so their silence below means something

    await new Promise((r) => setTimeout(r, 200)); // let the access log reach the pipe
    const logs = [
      { where: "serve stderr", text: svc.stderr() },
      { where: "serve stdout", text: svc.stdout() },
      { where: "cli stdout+stderr", text: cli.stdout + cli.stderr },
      { where: "adapter stderr", text: adapter.stderr() },
    ];
    // The log is at debug level and carries these requests, so its silence about the secrets means something.
    expect(svc.stderr()).toContain(card.headers.get("x-request-id")!);
    expect(svc.stderr()).toContain(wrong.headers.get("x-request-id")!);

    const files = await storeContents(svc);
    if (TEST_DATABASE_URL) {
      const names = files.map((f) => f.where);
      expect(names).toEqual(expect.arrayContaining(["api_keys", "memories", "idempotency_keys", "usage_events"]));
    } else {
      expect(files.map((f) => f.where)).toEqual(expect.arrayContaining([svc.dbPath!, `${svc.dbPath}-wal`]));
    }
    // The accepted text is found, so a scan that finds nothing else is a real scan.
    expect(files.some((f) => f.text.includes("cellar door of the Lisbon office"))).toBe(true);

    const needles = {
      "the card": CARD,
      "the card's digits": CARD.replaceAll(" ", ""),
      "the rejected text": "harbour locksmith",
      "the secret token": SECRET_TOKEN,
      "the secret text": "nightly export job",
      "the workspace key": ws.apiKey,
      "the key's secret part": ws.apiKey.slice(11),
      "a wrong key": wrongKey.slice(11),
      "the password in meta": "Tr0ub4dor&3xQ",
    };
    for (const { where, text } of [...logs, ...files, ...bodies.map((text, i) => ({ where: `body ${i}`, text }))]) {
      for (const [what, needle] of Object.entries(needles)) {
        expect(text.includes(needle), `${what} in ${where}`).toBe(false);
      }
    }
  });
});

describe("file modes", () => {
  it.skipIf(TEST_DATABASE_URL)("a new SQLite store and its WAL and SHM files are 0600 in a 0700 folder", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "brain-modes-")), "nested", "store", "brain.db");
    const made = await runCli(["admin", "workspace", "create", "--name", "modes", "--json", "--db", dbPath], {
      env: baseEnv({ BRAIN_LOG: "off" }),
    });
    expect(made.code, made.stderr).toBe(0);
    const other = await startService({ dbPath, noWorkspace: true });
    try {
      const key = String(JSON.parse(made.stdout).api_key);
      expect((await call(other.baseURL, "POST", "/v1/memory/store", { key, json: { text: ACCEPTED_TEXT } })).status).toBe(200);
      for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
        expect(statSync(file).mode & 0o777, file).toBe(0o600);
      }
      expect(statSync(dirname(dbPath)).mode & 0o777).toBe(0o700);
      expect(statSync(dirname(dirname(dbPath))).mode & 0o777).toBe(0o700);
    } finally {
      await other.stop();
    }
  });
});

describe("request bodies", () => {
  const nested = (depth: number) => `{"text":"deep","meta":{"n":${"[".repeat(depth)}${"]".repeat(depth)}}}`;

  it(`a body nested deeper than ${BODY_MAX_DEPTH} levels is 422 before parsing, even 30,000 deep, and nothing is written`, async () => {
    const ws = await svc.newWorkspace("nesting");
    for (const depth of [BODY_MAX_DEPTH, 30_000]) {
      const res = await call(svc.baseURL, "POST", "/v1/memory/store", {
        key: ws.apiKey,
        body: nested(depth),
        headers: { "content-type": "application/json" },
      });
      expect(res.status, res.text).toBe(422);
      expect(res.json.error.code).toBe("invalid_request");
      expect(res.json.error.message).toContain(`nested more than ${BODY_MAX_DEPTH} levels`);
    }
    const top = await call(svc.baseURL, "POST", "/v1/memory/retrieve", {
      key: ws.apiKey,
      body: "[".repeat(30_000) + "]".repeat(30_000),
      headers: { "content-type": "application/json" },
    });
    expect(top.status, top.text).toBe(422);
    // Brackets inside strings are text, not nesting.
    const bracketsInText = await store(ws.apiKey, { text: `Matrix note ${"[[{".repeat(20)} kept as written` });
    expect(bracketsInText.status, bracketsInText.text).toBe(200);
    const memories = await queryStore<{ n: number | string }>(
      svc,
      {
        sqlite: "SELECT count(*) AS n FROM memories WHERE workspace_id = ?",
        pg: "SELECT count(*) AS n FROM memories WHERE workspace_id = $1",
      },
      [ws.workspaceId],
    );
    expect(Number(memories[0]!.n)).toBe(1);
    expect((await call(svc.baseURL, "GET", "/v1/status", { key: ws.apiKey })).status).toBe(200);
  });
});
