// The real adapter process over stdio against a server that answers exactly as SPEC.md's tables
// (test/fixtures/wire/): every tool answers without an error, its structuredContent passes the declared
// outputSchema (the SDK's client checks it), nothing the specification does not promise is needed, and the text
// shows values the adapter has never seen as they are. Error answers become tool errors with the request id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type ScriptedServer } from "../client/scripted-server.js";
import { playFixture, wireFixtures, type WireFixture } from "../support/wire-fixtures.js";
import { connectAdapter, isolatedEnv, KEY, textOf, type Adapter } from "./harness.js";

let server: ScriptedServer;
let adapter: Adapter;

beforeAll(async () => {
  server = await startServer();
  adapter = await connectAdapter(isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: server.url, BRAIN_MAX_RETRIES: "0" }));
  await adapter.client.listTools(); // the client caches each tool's outputSchema and checks every result against it
});
afterAll(async () => {
  await adapter.close();
  await server.close();
});

const TOOL = { store: "brain.remember", retrieve: "brain.recall", health: "brain.health", status: "brain.status" } as const;
const ARGS = {
  store: { text: "The staging deploy runs every Friday at 4pm." },
  retrieve: { query: "staging deploy" },
  health: {},
  status: {},
};

function callTool(operation: NonNullable<WireFixture["operation"]>) {
  return adapter.client.callTool({ name: TOOL[operation], arguments: ARGS[operation] });
}

/** Strings the text must show for a fixture: ids and every enumeration value, known or not. */
function shown(fixture: WireFixture): string[] {
  const body = fixture.body as Record<string, any>;
  switch (fixture.operation) {
    case "store":
      return [String(body.memory_id), ...(body.dedup.action === "stored_new" ? [] : [String(body.dedup.existing_id)]), ...body.categories];
    case "retrieve":
      return body.memories.flatMap((m: any) => [`[${m.id}]`, m.text]);
    case "health":
      return [String(body.quality_score), String(body.signals.total_memories)];
    case "status":
      return [body.workspace_name, body.workspace_status, body.plan_name, body.api_key_prefix];
    default:
      return [];
  }
}

describe.each([...wireFixtures("minimal"), ...wireFixtures("extended")])("$name through the adapter", (fixture) => {
  it("is a successful tool result whose structuredContent is the answer and whose text shows its values", async () => {
    server.script((_req, res) => playFixture(res, fixture));
    const result = await callTool(fixture.operation!);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(fixture.body);
    const text = textOf(result);
    for (const value of shown(fixture)) expect(text).toContain(value);
  });
});

it("unknown enumeration values are shown as the service sent them", async () => {
  const extended = Object.fromEntries(wireFixtures("extended").map((f) => [f.operation, f]));
  const texts: Record<string, string> = {};
  for (const op of ["store", "retrieve", "status"] as const) {
    server.script((_req, res) => playFixture(res, extended[op]!));
    texts[op] = textOf(await callTool(op));
  }
  expect(texts.status).toContain("State: archived");
  expect(texts.store).toContain("dedup: updated");
  expect(texts.store).toContain("Temporal: ephemeral");
  expect(texts.retrieve).toContain("temporal ephemeral");
});

describe.each(wireFixtures("errors"))("$name through the adapter", (fixture) => {
  it("is a tool error that names the status, carries the request id when there is one, and never the key", async () => {
    server.script((_req, res) => playFixture(res, fixture));
    const result = await callTool("status");
    expect(result.isError).toBe(true);
    const text = textOf(result);
    const requestId = fixture.headers["x-request-id"];
    if (requestId) expect(text).toContain(requestId);
    expect(text).toMatch(new RegExp(`\\b${fixture.status}\\b`));
    expect(text).not.toContain(KEY);
  });
});
