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

  it("BRAIN_BASE_URL with plain http off this machine is refused", async () => {
    const { code, stderr } = await startupFailure(isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: "http://brain.example.com" }));
    expect(code).toBe(2);
    expect(stderr).toMatch(/BRAIN_BASE_URL="http:\/\/brain\.example\.com" uses plain http off this machine/);
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
