// One input policy on every path (issue 28, item 9): the CLI and the MCP adapter refuse `__proto__` as a key, as the
// REST API does, saying where, and send nothing; `config set-key` refuses what cannot be a key, saying why, never
// echoing it, and leaves the saved key as it was.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/service.js";
import { fixtures, handshake, isolatedEnv, KEY, ScriptedService, spawnRaw, tempDir, textOf, type RawRun } from "../mcp/harness.js";

/** The command line run to completion, as every CLI test runs it (test/support/service.ts). */
const cli = (args: string[], env: Record<string, string>, input?: string) => runCli(args, { env, input });

/** A key as `admin key create` makes one: `svc_ws_` and 32 random base62 characters. */
const STRONG_KEY = "svc_ws_q7Lx2VmN9cRt4YbK8pWz3HdJ6fGs1AeU";

let service: ScriptedService;
let env: Record<string, string>;
const runs: RawRun[] = [];

beforeAll(async () => {
  service = await new ScriptedService().start();
  service.on("POST /v1/memory/store", { body: fixtures.storeNew });
});
beforeEach(() => {
  service.seen.length = 0;
  env = isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: service.url, BRAIN_MAX_RETRIES: "0" });
});
afterAll(async () => {
  for (const run of runs) if (run.child.exitCode === null) run.child.kill("SIGKILL");
  await service.stop();
});

describe("brain-mcp remember --meta", () => {
  it.each([
    ['{"__proto__":{"admin":true}}', "meta.__proto__"],
    ['{"source":"cli","tags":[{"__proto__":{"x":1}}]}', "meta.tags[0].__proto__"],
    ['{"a":{"b":{"__proto__":null}}}', "meta.a.b.__proto__"],
  ])("refuses %s naming %s, and sends nothing", async (meta, where) => {
    for (const json of [false, true]) {
      const run = await cli(["remember", "The user prefers tabs.", "--meta", meta, ...(json ? ["--json"] : [])], env);
      expect(run.code).toBe(2);
      const said = json ? JSON.parse(run.stdout).error.message : run.stderr;
      expect(said).toContain(`\`${where}\` uses the key \`__proto__\``);
      expect(service.seen).toHaveLength(0);
    }
  });

  it("still sends meta without the reserved key", async () => {
    const run = await cli(["remember", "The user prefers tabs.", "--meta", '{"proto":"x","__proto":1}'], env);
    expect(run.code).toBe(0);
    expect(service.seen[0]!.body).toEqual({ text: "The user prefers tabs.", meta: { proto: "x", __proto: 1 } });
  });
});

describe("brain.remember over MCP", () => {
  async function call(argumentsJson: string): Promise<{ isError?: boolean; text: string }> {
    const run = spawnRaw(isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: service.url, BRAIN_LOG: "warn" }));
    runs.push(run);
    await handshake(run);
    // Written by hand: an object literal's `__proto__` would set a prototype, not a key.
    const line = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"brain.remember","arguments":${argumentsJson}}}`;
    run.child.stdin!.write(`${line}\n`);
    const answer = await run.response(7);
    run.child.kill();
    return { isError: answer.result?.isError, text: answer.result ? textOf(answer.result) : JSON.stringify(answer.error) };
  }

  it.each([
    ['{"text":"The user prefers tabs.","__proto__":{"meta":{"x":1}}}', "arguments.__proto__"],
    ['{"text":"The user prefers tabs.","meta":{"__proto__":{"admin":true}}}', "arguments.meta.__proto__"],
    ['{"text":"The user prefers tabs.","meta":{"a":[{"__proto__":1}]}}', "arguments.meta.a[0].__proto__"],
  ])("refuses %s with a JSON-RPC error naming %s, and sends nothing", async (args, where) => {
    const answer = await call(args);
    expect(answer.text).toContain('"code":-32600');
    expect(answer.text).toContain(`\`${where}\` uses the key \`__proto__\``);
    expect(service.seen).toHaveLength(0);
  });

  it("stores the same call without the reserved key", async () => {
    const answer = await call('{"text":"The user prefers tabs.","meta":{"source":"mcp"}}');
    expect(answer.isError, answer.text).toBeFalsy();
    expect(service.seen[0]!.body).toEqual({ text: "The user prefers tabs.", meta: { source: "mcp" } });
  });
});

describe("brain-mcp config set-key", () => {
  it.each([
    ["hello", /the key is 5 characters long; a saved key needs at least 24/],
    ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", /too predictable/],
    ["svc_ws_abcdefghijklmnopqrstuvwxyzABCDEF", /too predictable \(it mostly steps to a neighbouring character\)/],
    ["sk-ünïcödé-kéy-that-is-long-enough-1234", /one word of printable ASCII characters/],
  ])("refuses %j, saying why without echoing it, and keeps the saved key", async (bad, why) => {
    const path = join(tempDir(), "config.json");
    writeFileSync(path, JSON.stringify({ api_key: STRONG_KEY }), { mode: 0o600 });
    const before = readFileSync(path, "utf8");
    const run = await cli(["config", "set-key"], { ...env, BRAIN_API_KEY: "", BRAIN_CONFIG: path }, `${bad}\n`);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(why);
    expect(run.stderr).toContain("the saved key is unchanged");
    expect(run.stdout + run.stderr).not.toContain(bad);
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("saves a key as `admin key create` makes one", async () => {
    const path = join(tempDir(), "config.json");
    const run = await cli(["config", "set-key"], { ...env, BRAIN_API_KEY: "", BRAIN_CONFIG: path }, `${STRONG_KEY}\n`);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ api_key: STRONG_KEY });
  });
});
