// The four tools as a host sees them: names per client, declarations, and what each answer reads like.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectAdapter, fixtures, isolatedEnv, KEY, ScriptedService, textOf, type Adapter } from "./harness.js";

const DOTTED = ["brain.remember", "brain.recall", "brain.health", "brain.status"];
const UNDERSCORE = ["brain_remember", "brain_recall", "brain_health", "brain_status"];

let service: ScriptedService;
const adapters: Adapter[] = [];

async function adapter(extra: Record<string, string>, clientName?: string): Promise<Adapter> {
  const a = await connectAdapter(
    isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: service.url, BRAIN_LOG: "debug", ...extra }),
    clientName,
  );
  adapters.push(a);
  return a;
}

beforeAll(async () => {
  service = await new ScriptedService().start();
});
afterAll(async () => {
  await Promise.all(adapters.map((a) => a.close()));
  await service.stop();
});

describe("tool names", () => {
  it("serves exactly four dotted tools by default", async () => {
    const { client } = await adapter({});
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(DOTTED);
  });

  it("serves underscore names to Claude Desktop (clientInfo claude-ai) under auto, and only those are callable", async () => {
    service.on("GET /v1/status", { body: fixtures.status("active") });
    const { client } = await adapter({ BRAIN_TOOL_NAMES: "auto" }, "claude-ai");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(UNDERSCORE);
    const ok = await client.callTool({ name: "brain_status", arguments: {} });
    expect(ok.isError).toBeFalsy();
    await expect(client.callTool({ name: "brain.status", arguments: {} })).rejects.toThrow(
      /^MCP error -32602: Unknown tool: brain\.status/,
    );
  });

  it("BRAIN_TOOL_NAMES=underscore forces underscores for any client, and the dotted spelling is refused", async () => {
    const { client } = await adapter({ BRAIN_TOOL_NAMES: "underscore" });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(UNDERSCORE);
    await expect(client.callTool({ name: "brain.recall", arguments: { query: "x" } })).rejects.toThrow(/Unknown tool/);
  });

  it("BRAIN_TOOL_NAMES=dotted forces dots even for claude-ai, and the underscore spelling is refused", async () => {
    const { client } = await adapter({ BRAIN_TOOL_NAMES: "dotted" }, "claude-ai");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(DOTTED);
    await expect(client.callTool({ name: "brain_status", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });
});

describe("declarations and answers", () => {
  let client: Adapter["client"];
  beforeAll(async () => {
    client = (await adapter({})).client;
  });
  beforeEach(() => service.reset());

  it("declares title, description, input and output schemas and all four annotations for every tool", async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(4);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(Object.keys(tool.annotations ?? {})).toEqual(
        expect.arrayContaining(["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]),
      );
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName["brain.remember"]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    for (const name of ["brain.recall", "brain.health", "brain.status"]) {
      expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    }
    expect(byName["brain.remember"]!.inputSchema.required).toEqual(["text"]);
    expect(byName["brain.remember"]!.description).toMatch(/secret/i);
    expect(byName["brain.recall"]!.description).toMatch(/before answering/i);
    const recallProps = byName["brain.recall"]!.inputSchema.properties as Record<string, any>;
    expect(recallProps.top_k).toMatchObject({ type: "integer", minimum: 1, maximum: 50 });
    expect(recallProps.min_score).toMatchObject({ minimum: 0, maximum: 1 });
  });

  it("remember of a new fact names the memory, its importance, categories and that it is persistent", async () => {
    service.on("POST /v1/memory/store", { body: fixtures.storeNew });
    const result = await client.callTool({
      name: "brain.remember",
      arguments: { text: "The user prefers tabs.", meta: { source: "chat" } },
    });
    const text = textOf(result);
    expect(text).toContain("new memory 101");
    expect(text).toContain("Importance: 7/10");
    expect(text).toContain("Categories: work, preference");
    expect(text).toMatch(/Persistent/);
    expect(result.structuredContent).toEqual(fixtures.storeNew);
    expect(service.seen[0]).toMatchObject({
      body: { text: "The user prefers tabs.", meta: { source: "chat" } },
      authorization: `Bearer ${KEY}`,
    });
  });

  it("remember of a known fact says it merged into the existing memory", async () => {
    service.on("POST /v1/memory/store", { body: fixtures.storeMerged });
    const text = textOf(await client.callTool({ name: "brain.remember", arguments: { text: "I like tea." } }));
    expect(text).toMatch(/Merged into existing memory 9/);
  });

  it("remember of a time-bound fact gives its end", async () => {
    service.on("POST /v1/memory/store", { body: fixtures.storeTimeBound });
    const text = textOf(await client.callTool({ name: "brain.remember", arguments: { text: "Ship v2 by July." } }));
    expect(text).toContain("Time-bound: valid until 2030-07-01T00:00:00Z");
  });

  it("recall lists the memories best first, numbered, with id, score, importance and time marks", async () => {
    service.on("POST /v1/memory/retrieve", { body: fixtures.recall });
    const result = await client.callTool({ name: "brain.recall", arguments: { query: "preferences", top_k: 3, min_score: 0.1 } });
    const text = textOf(result);
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/3 memories matched, best first/);
    expect(lines[1]).toMatch(/^1\. \[1\] score 0\.91 · importance 6\/10$/);
    expect(lines[2]).toContain("The user prefers dark mode in every editor.");
    expect(text).toMatch(/2\. \[2\] .*time-bound until 2030-01-10T17:00:00Z/);
    expect(text).toMatch(/3\. \[3\] .*EXPIRED \(was valid until 2024-01-01T00:00:00Z\)/);
    expect(result.structuredContent).toEqual(fixtures.recall);
    expect(service.seen[0]!.body).toEqual({ query: "preferences", top_k: 3, min_score: 0.1 });
  });

  it("recall with nothing relevant says so plainly", async () => {
    service.on("POST /v1/memory/retrieve", { body: fixtures.recallEmpty });
    const result = await client.callTool({ name: "brain.recall", arguments: { query: "quantum chromodynamics" } });
    expect(textOf(result)).toBe("No memories matched.");
    expect(result.structuredContent).toEqual(fixtures.recallEmpty);
  });

  it("recall with top_k out of range is a tool error that names the field, and nothing is sent", async () => {
    const result = await client.callTool({ name: "brain.recall", arguments: { query: "x", top_k: 500 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/top_k/);
    expect(service.seen).toHaveLength(0);
  });

  it("health shows the score, every signal and the recommendations", async () => {
    service.on("GET /v1/optimize/health", { body: fixtures.health });
    const result = await client.callTool({ name: "brain.health", arguments: {} });
    const text = textOf(result);
    expect(text).toContain("Memory quality score: 82.5/100");
    for (const label of ["total memories: 120", "stale", "duplicates: 2", "overlong", "never retrieved", "open recommendations: 2"]) {
      expect(text).toContain(label);
    }
    expect(text).toContain("Merge the duplicate memories. (2)");
    expect(result.structuredContent).toEqual(fixtures.health);
  });

  it.each([
    ["active", null],
    ["suspended", /suspended/],
    ["limit_reached", /limit.*recall still works/],
    ["deleted", /deleted/],
  ])("status of a %s workspace shows workspace, state, plan and key prefix, with a warning when not active", async (state, warning) => {
    service.on("GET /v1/status", { body: fixtures.status(state) });
    const result = await client.callTool({ name: "brain.status", arguments: {} });
    const text = textOf(result);
    expect(text).toContain("Workspace: Acme agents (123)");
    expect(text).toContain(`State: ${state}`);
    expect(text).toContain("Plan: team");
    expect(text).toContain("Key prefix: svc_ws_Test");
    if (warning) expect(text).toMatch(new RegExp(`Warning: .*${warning.source}`));
    else expect(text).not.toContain("Warning");
    expect(result.structuredContent).toEqual(fixtures.status(state));
  });
});
