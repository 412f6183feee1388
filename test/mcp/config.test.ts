// Where the adapter's key and address come from (environment, then config file, then default),
// and how a bad setting is reported.

import { spawn } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, connectAdapter, fixtures, isolatedEnv, KEY, ScriptedService, tempDir, type Adapter } from "./harness.js";

let service: ScriptedService;
const adapters: Adapter[] = [];
const FILE_KEY = "svc_ws_FileKey0123456789abcdefghijkLMNO";

function configFile(content: object, mode: number): string {
  const path = join(tempDir(), "config.json");
  writeFileSync(path, JSON.stringify(content), { mode });
  chmodSync(path, mode);
  return path;
}

async function statusVia(env: Record<string, string>): Promise<Adapter> {
  const a = await connectAdapter(env);
  adapters.push(a);
  await a.client.callTool({ name: "brain.status", arguments: {} });
  return a;
}

/** Runs the adapter expecting it to refuse to start. */
function startupFailure(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.on("exit", (code) => resolve({ code, stderr, stdout }));
  });
}

beforeAll(async () => {
  service = await new ScriptedService().start();
  service.on("GET /v1/status", { body: fixtures.status("active") });
});
afterAll(async () => {
  await Promise.all(adapters.map((a) => a.close()));
  await service.stop();
});

describe("the key", () => {
  it("comes from the config file named by BRAIN_CONFIG, with its base_url, and a 0600 file gets no warning", async () => {
    const path = configFile({ api_key: FILE_KEY, base_url: service.url }, 0o600);
    service.reset();
    service.on("GET /v1/status", { body: fixtures.status("active") });
    const a = await statusVia(isolatedEnv({ BRAIN_CONFIG: path }));
    expect(service.seen[0]!.authorization).toBe(`Bearer ${FILE_KEY}`);
    expect(a.stderr()).not.toMatch(/readable by others/);
  });

  it("from BRAIN_API_KEY wins over the config file's", async () => {
    const path = configFile({ api_key: FILE_KEY }, 0o600);
    service.reset();
    service.on("GET /v1/status", { body: fixtures.status("active") });
    await statusVia(isolatedEnv({ BRAIN_CONFIG: path, BRAIN_API_KEY: KEY, BRAIN_BASE_URL: service.url }));
    expect(service.seen[0]!.authorization).toBe(`Bearer ${KEY}`);
  });

  it("in a file others can read is still used, with a warning on stderr that names the file and never the key", async () => {
    const path = configFile({ api_key: FILE_KEY, base_url: service.url }, 0o644);
    service.reset();
    service.on("GET /v1/status", { body: fixtures.status("active") });
    const a = await statusVia(isolatedEnv({ BRAIN_CONFIG: path }));
    expect(service.seen[0]!.authorization).toBe(`Bearer ${FILE_KEY}`);
    expect(a.stderr()).toContain(`the config file ${path} is readable by others (mode 0644)`);
    expect(a.stderr()).toContain("chmod 600");
    expect(a.stderr()).not.toContain(FILE_KEY);
  });
});

describe("a bad address starts the adapter, and every tool call says what is wrong and what it should look like", () => {
  // Hosts hide stderr and show a dead server as "Connection closed": the session itself must carry the explanation.
  it.each([
    [
      "127.0.0.1:8787",
      /BRAIN_BASE_URL="127\.0\.0\.1:8787" is not a URL/,
      "like http://127.0.0.1:8787 or https://brain.example.com (no /v1)",
    ],
    ["http://brain.example.com", /BRAIN_BASE_URL="http:\/\/brain\.example\.com" uses plain http off this machine/, "use https"],
  ])("BRAIN_BASE_URL=%s", async (value, why, hint) => {
    const a = await connectAdapter(isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: value }));
    adapters.push(a);
    expect((await a.client.listTools()).tools).toHaveLength(4);
    for (const name of ["brain.status", "brain.remember"]) {
      const result = await a.client.callTool({ name, arguments: name === "brain.remember" ? { text: "a fact" } : {} });
      expect(result.isError).toBe(true);
      const text = (result.content as { text: string }[])[0]!.text;
      expect(text).toMatch(why);
      expect(text).toMatch(/^The memory service's address is not usable, so nothing was sent/);
      expect(text).toContain(hint);
      expect(text).not.toContain(KEY);
    }
    expect(a.stderr()).toMatch(why);
  });

  it("a bad base_url in the config file names the file", async () => {
    const path = configFile({ api_key: FILE_KEY, base_url: "localhost:8787" }, 0o600);
    const a = await connectAdapter(isolatedEnv({ BRAIN_CONFIG: path }));
    adapters.push(a);
    const result = await a.client.callTool({ name: "brain.health", arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toContain(`"base_url" in ${path}="localhost:8787" must be an https://`);
  });
});

describe("bad settings stop the adapter with a message naming the variable", () => {
  it.each([
    ["BRAIN_TIMEOUT", "soon"],
    ["BRAIN_CALL_DEADLINE", "-3"],
    ["BRAIN_MAX_RETRIES", "1.5"],
    ["BRAIN_TOOL_NAMES", "camel"],
    ["BRAIN_LOG", "loud"],
  ])("%s=%s", async (name, value) => {
    const { code, stderr, stdout } = await startupFailure(isolatedEnv({ BRAIN_API_KEY: KEY, [name]: value }));
    expect(code).toBe(2);
    expect(stderr).toContain(`${name}="${value}" is not valid`);
    expect(stdout).toBe("");
  });

  it("a config file that is not JSON names the file", async () => {
    const path = join(tempDir(), "config.json");
    writeFileSync(path, "api_key = nope", { mode: 0o600 });
    const { code, stderr } = await startupFailure(isolatedEnv({ BRAIN_CONFIG: path }));
    expect(code).toBe(2);
    expect(stderr).toContain(`the config file ${path} is not valid JSON`);
    expect(stderr).not.toContain("nope");
  });
});
