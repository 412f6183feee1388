// The bundle's early answers (src/mcp/handshake.ts) must be the SDK's answers: every session below runs twice,
// once on the SDK alone and once through the handshake, and stdout must hold the same messages.
import { PassThrough } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { startHandshake, type HandshakeAnswers, type RelayStreams } from "../../dist/mcp/handshake.js";
import { createServer } from "../../dist/mcp/server.js";
import type { ToolNameMode } from "../../dist/config/env.js";
// @ts-expect-error: a plain JS build script
import { recordHandshake, recordingServerOptions } from "./bundle.js";
import { VERSION } from "../../dist/version.js";

let answers: HandshakeAnswers;

beforeAll(async () => {
  answers = await recordHandshake();
});

function serverOn(streams: RelayStreams, toolNames: ToolNameMode) {
  const brain = createServer(recordingServerOptions(toolNames, VERSION));
  return brain.server.connect(new StdioServerTransport(streams.stdin as never, streams.stdout as never)).then(() => brain);
}

/** Feeds `lines` to stdin and returns what stdout carried, with or without the handshake in front. */
async function session(lines: string[], { early, toolNames = "auto" }: { early: boolean; toolNames?: ToolNameMode }) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let written = "";
  stdout.on("data", (chunk) => (written += chunk));
  const servers: Awaited<ReturnType<typeof serverOn>>[] = [];
  if (early) {
    startHandshake({
      answers,
      toolNames,
      input: stdin,
      output: stdout,
      connect: async (streams) => void servers.push(await serverOn(streams, toolNames)),
      onInputError: () => {},
      onFailure: (error) => {
        throw error;
      },
    });
  } else {
    servers.push(await serverOn({ stdin, stdout }, toolNames));
  }
  for (const line of lines) stdin.write(line + "\n");
  await new Promise((done) => setTimeout(done, 50));
  for (const brain of servers) await brain.cleanup();
  return written.split("\n").filter(Boolean).sort();
}

const init = (params: unknown, id: unknown = 0) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params });
const basic = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "some-host", version: "1.0" } };
const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
const list = (id: unknown = 1, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", ...(params === undefined ? {} : { params }) });
const call = (id: number, name: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { query: "q" } } });

const sessions: Record<string, string[]> = {
  "the usual handshake": [init(basic), initialized, list()],
  "an older protocol version": [init({ ...basic, protocolVersion: "2024-11-05" }), initialized, list()],
  "an unknown protocol version (the latest is offered)": [init({ ...basic, protocolVersion: "1999-01-01" }), list()],
  "Claude Desktop (underscore names)": [init({ ...basic, clientInfo: { name: "claude-ai", version: "0.1.0" } }), initialized, list()],
  "rich capabilities": [
    init({
      ...basic,
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {}, experimental: { x: {} } },
      clientInfo: { name: "h", version: "1", title: "Host" },
    }),
    initialized,
    list("str-id", { cursor: "c", _meta: { progressToken: 5 } }),
  ],
  "capabilities the handshake leaves to the SDK": [
    init({ ...basic, capabilities: { tasks: { list: {} }, elicitation: { form: { applyDefaults: true } } } }),
    list(),
  ],
  "a malformed initialize (clientInfo without a version)": [init({ ...basic, clientInfo: { name: "x" } }), list()],
  "a malformed initialize (capabilities not an object)": [init({ ...basic, capabilities: [] }), list()],
  "an id that is not an integer": [init(basic, 1.5), list()],
  "an extra top-level key": [JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: basic, extra: 1 }), list()],
  "a line that is not JSON, then the handshake": ["{not json", init(basic), list()],
  "ping before the tool list": [init(basic), JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }), list()],
  "tools/list with params the SDK rejects": [init(basic), list(1, { cursor: 5 })],
  "a call right after the list": [init(basic), initialized, list(), call(2, "brain.recall"), call(3, "brain.nope")],
  "a second tool list": [init(basic), list(1), list(2)],
  "the same id for initialize and the list": [init(basic, 7), list(7)],
};

describe("the handshake answers exactly what the SDK answers", () => {
  for (const [name, lines] of Object.entries(sessions)) {
    it(name, async () => {
      const sdk = await session(lines, { early: false });
      const early = await session(lines, { early: true });
      expect(early).toEqual(sdk);
      expect(sdk.length).toBeGreaterThan(0);
    });
  }

  it("BRAIN_TOOL_NAMES=underscore is honoured for any client", async () => {
    const lines = [init(basic), list()];
    expect(await session(lines, { early: true, toolNames: "underscore" })).toEqual(
      await session(lines, { early: false, toolNames: "underscore" }),
    );
  });

  it("never answers the replayed initialize a second time", async () => {
    const out = await session([init(basic, 3), initialized, list(4), call(5, "brain.recall")], { early: true });
    expect(out.filter((line) => JSON.parse(line).id === 3)).toHaveLength(1);
    expect(out.some((line) => line.includes("replayed"))).toBe(false);
  });
});
