// The process as a host meets it: stdout is protocol only, and it ends promptly, after in-flight answers.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtures, handshake, isolatedEnv, KEY, ScriptedService, spawnRaw, tempDir, type RawRun } from "./harness.js";

let service: ScriptedService;
const runs: RawRun[] = [];

function start(extra: Record<string, string> = {}): RawRun {
  const run = spawnRaw(isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: service.url, BRAIN_LOG: "debug", ...extra }));
  runs.push(run);
  return run;
}

beforeAll(async () => {
  service = await new ScriptedService().start();
  service.on("GET /v1/status", () => ({ body: fixtures.status("active") }));
  service.on("POST /v1/memory/retrieve", { body: fixtures.recall });
});
afterAll(async () => {
  for (const run of runs) if (run.child.exitCode === null) run.child.kill("SIGKILL");
  await service.stop();
});

describe("stdout", () => {
  it("carries only JSON-RPC messages, even when something calls console.log", async () => {
    // a module loaded before the adapter logs to the console once the adapter runs
    const dir = tempDir();
    const stray = join(dir, "stray.mjs");
    writeFileSync(stray, "process.on('SIGUSR2', () => { console.log('stray console.log'); console.info('stray info'); });\n");
    const run = start({ NODE_OPTIONS: `--import=${pathToFileURL(stray).href}` });
    await handshake(run);
    run.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await run.response(1);
    run.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "brain.recall", arguments: { query: "q" } } });
    await run.response(2);
    run.child.kill("SIGUSR2");
    await new Promise((r) => setTimeout(r, 200));
    run.child.stdin!.end();
    await run.exited;
    expect(run.lines.length).toBeGreaterThanOrEqual(3);
    for (const line of run.lines) {
      const message = JSON.parse(line);
      expect(message.jsonrpc).toBe("2.0");
    }
    expect(run.stderr()).toContain("stray console.log");
    expect(run.stderr()).toContain("stray info");
  });
});

describe("exit", () => {
  it("exits 0 within a second when stdin ends", async () => {
    const run = start();
    await handshake(run);
    run.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await run.response(1);
    const ended = Date.now();
    run.child.stdin!.end();
    const { code, at } = await run.exited;
    expect(code).toBe(0);
    expect(at - ended).toBeLessThan(1000);
  });

  it("exits 0 within a second on SIGTERM", async () => {
    const run = start();
    await handshake(run);
    const sent = Date.now();
    run.child.kill("SIGTERM");
    const { code, at } = await run.exited;
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(1000);
  });

  it("answers a call in flight before exiting when stdin ends: its result, or a cancellation after the grace period", async () => {
    service.on("GET /v1/status", { delayMs: 100, body: fixtures.status("active") });
    const run = start();
    await handshake(run);
    run.send({ jsonrpc: "2.0", id: 1, method: "tools/list" }); // as a host does first
    await run.response(1);
    run.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "brain.status", arguments: {} } });
    run.child.stdin!.end();
    const { code } = await run.exited;
    expect(code).toBe(0);
    const answer = run.lines.map((line) => JSON.parse(line)).find((m) => m.id === 5);
    expect(answer?.result, run.stderr()).toBeDefined();
    if (answer.result.isError) expect(answer.result.content[0].text).toMatch(/shutting down/);
    else expect(answer.result.structuredContent.workspace_status).toBe("active");
  });
});
