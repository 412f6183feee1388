// The command line: the same operations and rendering as the adapter, config commands, exit codes.

import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BIN, errorBody, fixtures, isolatedEnv, KEY, ScriptedService, tempDir } from "../mcp/harness.js";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

let service: ScriptedService;
let env: Record<string, string>;

beforeAll(async () => {
  service = await new ScriptedService().start();
});
beforeEach(() => {
  service.reset();
  env = isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: service.url, BRAIN_MAX_RETRIES: "0" });
});
afterAll(async () => {
  await service.stop();
});

describe("operations", () => {
  it("status --json prints the API's object as JSON", async () => {
    service.on("GET /v1/status", { body: fixtures.status("active") });
    const run = await cli(["status", "--json"], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(fixtures.status("active"));
  });

  it("recall renders the numbered list, and passes --top-k and --min-score on", async () => {
    service.on("POST /v1/memory/retrieve", { body: fixtures.recall });
    const run = await cli(["recall", "what", "does", "the", "user", "like", "--top-k", "3", "--min-score", "0.2"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^3 memories matched, best first:\n1\. \[1\] score 0\.91/);
    expect(service.seen[0]!.body).toEqual({ query: "what does the user like", top_k: 3, min_score: 0.2 });
  });

  it("remember sends the text and --meta, and prints what the service did", async () => {
    service.on("POST /v1/memory/store", { body: fixtures.storeNew });
    const run = await cli(["remember", "The user prefers tabs.", "--meta", '{"source":"cli"}'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Remembered as new memory 101.");
    expect(service.seen[0]!.body).toEqual({ text: "The user prefers tabs.", meta: { source: "cli" } });
  });

  it("a failure prints the adapter's sentence on stderr and exits 1", async () => {
    service.on("GET /v1/optimize/health", { status: 403, body: errorBody("workspace_suspended", "suspended") });
    const run = await cli(["health"], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/workspace is suspended/);
    expect(run.stderr).not.toContain(KEY);
  });

  it("an out-of-range --top-k is a usage error (exit 2) and nothing is sent", async () => {
    const run = await cli(["recall", "x", "--top-k", "99"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--top-k takes a whole number from 1 to 50 \(got "99"\)/);
    expect(service.seen).toHaveLength(0);
  });
});

describe("for a person at a terminal, and for scripts with --json", () => {
  it("--top-k abc and --min-score 2 are refused in our words (exit 2), and nothing is sent", async () => {
    const topK = await cli(["recall", "x", "--top-k", "abc"], env);
    expect(topK.code).toBe(2);
    expect(topK.stderr).toContain('--top-k takes a whole number from 1 to 50 (got "abc")');
    expect(topK.stderr).not.toMatch(/NaN|expected number/);
    const minScore = await cli(["recall", "x", "--min-score=2"], env);
    expect(minScore.code).toBe(2);
    expect(minScore.stderr).toContain('--min-score takes a number from 0 to 1, e.g. 0.3 (got "2")');
    expect(service.seen).toHaveLength(0);
  });

  it("an unknown flag names what the command takes (exit 2)", async () => {
    const run = await cli(["recall", "x", "--limit", "3"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option --limit for recall; it takes --top-k N, --min-score X, --json, --embedded");
    const status = await cli(["status", "now"], env);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('status takes no text (got "now")');
  });

  it("with no key, the message says what to type in a shell, not in a host's config", async () => {
    const run = await cli(["status"], { ...env, BRAIN_API_KEY: "" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("export BRAIN_API_KEY=");
    expect(run.stderr).toContain("brain-mcp config set-key");
    expect(run.stderr).toContain("brain-mcp admin key create 1");
    expect(run.stderr).toContain("--embedded");
    expect(run.stderr).not.toMatch(/Claude Desktop|env" of its entry/);
    expect(service.seen).toHaveLength(0);
  });

  it("--json prints a JSON error object on stdout when the call fails, with the same exit code", async () => {
    service.on("POST /v1/memory/retrieve", {
      status: 401,
      body: errorBody("invalid_api_key", "invalid key", { type: "authentication_error" }),
    });
    const run = await cli(["recall", "x", "--json"], env);
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stdout);
    expect(error).toMatchObject({ type: "authentication_error", code: "invalid_api_key", status: 401 });
    expect(error.request_id).toMatch(/^req_/);
    expect(error.message).toMatch(/rejected the API key/);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it("--json prints a JSON error object for a usage error too (exit 2) and for a missing key (exit 1)", async () => {
    const usage = await cli(["recall", "x", "--top-k", "abc", "--json"], env);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout).error).toMatchObject({ type: "usage_error", code: null, status: null });
    const noKey = await cli(["health", "--json"], { ...env, BRAIN_API_KEY: "" });
    expect(noKey.code).toBe(1);
    expect(JSON.parse(noKey.stdout).error).toMatchObject({ type: "authentication_error", code: "missing_api_key" });
  });
});

describe("config and flags", () => {
  it("config set-key reads the key from stdin, writes it with mode 0600 in a 0700 folder, and never echoes it", async () => {
    const SAVED_KEY = "svc_ws_q7Lx2VmN9cRt4YbK8pWz3HdJ6fGs1AeU"; // random, as `admin key create` makes: set-key checks strength
    const path = join(tempDir(), "nested", "config.json");
    const run = await cli(["config", "set-key"], { ...env, BRAIN_API_KEY: "", BRAIN_CONFIG: path }, `${SAVED_KEY}\n`);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(SAVED_KEY);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ api_key: SAVED_KEY });

    const url = await cli(["config", "set-url", "https://brain.example.com/"], { ...env, BRAIN_CONFIG: path });
    expect(url.code).toBe(0);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ api_key: SAVED_KEY, base_url: "https://brain.example.com" });
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const where = await cli(["config", "path"], { ...env, BRAIN_CONFIG: path });
    expect(where.stdout.trim()).toBe(path);
  });

  it("config set-url refuses plain http off this machine and writes nothing", async () => {
    const path = join(tempDir(), "config.json");
    const run = await cli(["config", "set-url", "http://brain.example.com"], { ...env, BRAIN_CONFIG: path });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/plain http/);
    expect(existsSync(path)).toBe(false);
  });

  it("there is no --api-key flag", async () => {
    const run = await cli(["--api-key", KEY], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no --api-key flag/);
    expect(run.stderr).not.toContain(KEY);
  });

  it("--version prints the package version and --help the usage", async () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect((await cli(["--version"], env)).stdout.trim()).toBe(pkg.version);
    const help = await cli(["--help"], env);
    expect(help.stdout).toContain("brain-mcp config set-key");
    expect(help.stdout).toContain("BRAIN_CALL_DEADLINE");
  });
});
