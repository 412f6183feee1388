// The built adapter fed bad input over stdio: each bad message gets a JSON-RPC error or a tool error (or, when it is
// not a message at all, nothing but a line on stderr). It never crashes, never writes a byte to stdout that is not
// protocol, and answers tools/list and a real call afterwards. A dead base URL is a clear tool error within the
// call's deadline.

import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGE_MAX_BYTES } from "../../src/mcp/input-lines.js";
import { fixtures, handshake, isolatedEnv, KEY, ScriptedService, spawnRaw, textOf, type RawRun } from "./harness.js";

let service: ScriptedService;
const runs: RawRun[] = [];

function start(extra: Record<string, string> = {}): RawRun {
  const run = spawnRaw(isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: service.url, BRAIN_LOG: "warn", ...extra }));
  run.child.stdin!.on("error", () => undefined); // a test that fails should report its assertion, not EPIPE
  runs.push(run);
  return run;
}

/** Writes raw bytes as one line, exactly as given (no JSON encoding). */
function sendRaw(run: RawRun, bytes: string | Buffer): void {
  run.child.stdin!.write(bytes);
  run.child.stdin!.write("\n");
}

/** Every stdout line is one JSON-RPC 2.0 message: a response with an id and a result or an error. */
function expectOnlyProtocol(run: RawRun): any[] {
  const messages = run.lines.filter((line) => line !== "").map((line) => JSON.parse(line));
  for (const message of messages) {
    expect(message.jsonrpc).toBe("2.0");
    expect("result" in message || "error" in message, JSON.stringify(message).slice(0, 200)).toBe(true);
    expect(["string", "number"]).toContain(typeof message.id);
  }
  return messages;
}

async function expectStillServing(run: RawRun, firstId: number): Promise<void> {
  run.send({ jsonrpc: "2.0", id: firstId, method: "tools/list" });
  expect((await run.response(firstId)).result.tools).toHaveLength(4);
  run.send({ jsonrpc: "2.0", id: firstId + 1, method: "tools/call", params: { name: "brain.status", arguments: {} } });
  const status = await run.response(firstId + 1);
  expect(status.result.isError, textOf(status.result)).toBeFalsy();
  expect(status.result.structuredContent.workspace_status).toBe("active");
  expect(run.child.exitCode).toBeNull();
}

beforeAll(async () => {
  service = await new ScriptedService().start();
  service.on("GET /v1/status", () => ({ body: fixtures.status("active") }));
});
afterAll(async () => {
  for (const run of runs) if (run.child.exitCode === null) run.child.kill("SIGKILL");
  await service.stop();
});

describe("bad input on stdin", () => {
  it("garbage lines, non-objects and invalid UTF-8 are dropped with a warning on stderr; the session goes on", async () => {
    const run = start();
    sendRaw(run, "this is not json"); // before initialize, while the early handshake reads
    await handshake(run);
    for (const line of ["garbage {", '{"jsonrpc":"2.0","id":', "[]", "42", "null", '"a string"', "{}", "\u0000\u0001\u0002"])
      sendRaw(run, line);
    sendRaw(run, Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x80]));
    await expectStillServing(run, 20);
    const messages = expectOnlyProtocol(run);
    expect(messages.map((m) => m.id)).toEqual([0, 20, 21]);
    expect(run.stderr()).toMatch(/protocol error/);
  });

  it("an unknown method, an unknown tool, a request of another JSON-RPC version and arguments that are not an object are JSON-RPC errors", async () => {
    const run = start();
    await handshake(run);
    run.send({ jsonrpc: "1.0", id: "old", method: "tools/list" });
    const oldVersion = await run.response("old" as unknown as number);
    expect(oldVersion.error).toEqual({ code: -32600, message: 'Invalid request: "jsonrpc" must be "2.0".' });
    run.send({ jsonrpc: "2.0", id: 7, method: "no/such/method" });
    run.send({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "brain.forget_everything", arguments: {} } });
    run.send({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "brain.remember", arguments: "remember this" } });
    run.send({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { arguments: {} } });
    const [unknownMethod, unknownTool, notObject, noName] = await Promise.all([7, 8, 9, 10].map((id) => run.response(id)));
    expect(unknownMethod.error.code).toBe(-32601);
    expect(unknownTool.error.code).toBe(-32602);
    expect(unknownTool.error.message).toContain("Unknown tool: brain.forget_everything");
    expect(unknownTool.error.message).toContain("brain.remember, brain.recall, brain.health, brain.status");
    for (const answer of [notObject, noName]) expect(answer.error.message).toBeTruthy();
    // the code travels once, in `code`: a client adds "MCP error <code>: " itself
    for (const answer of [unknownMethod, unknownTool, notObject, noName]) expect(answer.error.message).not.toMatch(/MCP error/);
    await expectStillServing(run, 20);
    expectOnlyProtocol(run);
    expect(service.seen.filter((r) => r.path === "/v1/memory/store")).toHaveLength(0);
  });

  it("wrong argument types are tool errors naming each field, and nothing reaches the service", async () => {
    const run = start();
    await handshake(run);
    const before = service.seen.length;
    run.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "brain.recall", arguments: { query: 12, top_k: "five" } } });
    run.send({
      jsonrpc: "2.0",
      id: 6,
      method: "tools/call",
      params: { name: "brain.remember", arguments: { text: ["a", "list"], meta: "x" } },
    });
    run.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "brain.remember", arguments: {} } });
    const answers = await Promise.all([5, 6, 7].map((id) => run.response(id)));
    for (const answer of answers) expect(answer.result.isError).toBe(true);
    expect(textOf(answers[0].result)).toMatch(/Invalid arguments for brain\.recall: query: .*string.*top_k: .*number/);
    expect(textOf(answers[1].result)).toMatch(/Invalid arguments for brain\.remember: text: .*meta: /);
    expect(textOf(answers[2].result)).toMatch(/Invalid arguments for brain\.remember: text: /);
    expect(service.seen.length).toBe(before);
    await expectStillServing(run, 20);
    expectOnlyProtocol(run);
  });

  it("a message over the size limit is refused with a JSON-RPC error for its id, one without an id is dropped, and the session goes on", async () => {
    const run = start();
    await handshake(run);
    const huge = "x".repeat(MESSAGE_MAX_BYTES + 10);
    // the SDK's own client puts the id last; other clients put it first
    sendRaw(
      run,
      JSON.stringify({ method: "tools/call", params: { name: "brain.remember", arguments: { text: huge } }, jsonrpc: "2.0", id: 11 }),
    );
    sendRaw(
      run,
      JSON.stringify({
        jsonrpc: "2.0",
        id: "big-first",
        method: "tools/call",
        params: { name: "brain.recall", arguments: { query: huge } },
      }),
    );
    // 12 MiB: beyond the SDK's 10 MiB buffer, which used to close the session
    sendRaw(run, "y".repeat(12 * 1024 * 1024));
    const [last, first] = await Promise.all([run.response(11), run.response("big-first" as unknown as number)]);
    for (const answer of [last, first]) {
      expect(answer.error.code).toBe(-32600);
      expect(answer.error.message).toMatch(/larger than 1 MiB/);
    }
    await expectStillServing(run, 20);
    expect(expectOnlyProtocol(run).map((m) => m.id)).toEqual([0, 11, "big-first", 20, 21]);
    expect(run.stderr().match(/dropped a message of \d+ bytes/g)).toHaveLength(3);
  });

  it("an initialize with an unknown protocol version is answered with a version this server speaks; a malformed one is a JSON-RPC error", async () => {
    const run = start();
    run.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "1999-01-01", capabilities: {}, clientInfo: { name: "old", version: "1" } },
    });
    const answer = await run.response(1);
    expect(answer.result.protocolVersion).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(answer.result.protocolVersion).not.toBe("1999-01-01");
    run.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    run.send({ jsonrpc: "2.0", id: 2, method: "initialize", params: "not an object" });
    const malformed = await run.response(2);
    expect(malformed.error.code).toBe(-32600);
    expect(malformed.error.message).toBe('Invalid request: "params" must be an object.');
    await expectStillServing(run, 20);
    expectOnlyProtocol(run);
  });
});

describe("a dead base URL", () => {
  let resetter: TcpServer;
  let resetterUrl = "";

  beforeAll(async () => {
    // accepts, then cuts every connection at once: a process that is dying, or a port reused by something else
    resetter = createTcpServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((done) => resetter.listen(0, "127.0.0.1", done));
    resetterUrl = `http://127.0.0.1:${(resetter.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((done) => resetter.close(done));
  });

  const DEADLINE_S = 3;
  const cases: [string, () => string, RegExp][] = [
    ["a port nobody listens on", () => "http://127.0.0.1:9", /No memory service at http:\/\/127\.0\.0\.1:9/],
    ["a host name that does not resolve", () => "https://brain.invalid", /Could not reach the memory service at https:\/\/brain\.invalid/],
    ["a server that resets every connection", () => resetterUrl, /Could not reach the memory service at http:\/\/127\.0\.0\.1:\d+/],
  ];

  for (const [what, url, expected] of cases) {
    it(`${what}: each tool is a tool error naming the URL, within the call's deadline`, async () => {
      const run = start({ BRAIN_BASE_URL: url(), BRAIN_CALL_DEADLINE: String(DEADLINE_S) });
      await handshake(run);
      const started = Date.now();
      run.send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "brain.remember", arguments: { text: "The lab closes at six." } },
      });
      run.send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "brain.status", arguments: {} } });
      const answers = await Promise.all([run.response(3), run.response(4)]);
      expect(Date.now() - started).toBeLessThan(DEADLINE_S * 1000 + 1_000);
      for (const answer of answers) {
        expect(answer.result.isError).toBe(true);
        expect(textOf(answer.result)).toMatch(expected);
        expect(textOf(answer.result)).not.toContain(KEY);
      }
      expectOnlyProtocol(run);
      expect(run.child.exitCode).toBeNull();
    });
  }
});
