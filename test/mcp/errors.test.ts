// Every failure is a tool result with isError and a sentence saying what happened and what to do; never the key.

import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectAdapter, errorBody, fixtures, isolatedEnv, KEY, REQUEST_ID, ScriptedService, textOf, type Adapter } from "./harness.js";
import { expectNoCardNumber } from "../support/card.js";

let service: ScriptedService;
let adapter: Adapter;
const adapters: Adapter[] = [];
const outputs: string[] = [];

async function call(a: Adapter, name: string, args: Record<string, unknown> = {}) {
  const result = await a.client.callTool({ name, arguments: args });
  outputs.push(JSON.stringify(result));
  return result;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

beforeAll(async () => {
  service = await new ScriptedService().start();
  adapter = await connectAdapter(
    isolatedEnv({
      BRAIN_API_KEY: KEY,
      BRAIN_BASE_URL: service.url,
      BRAIN_MAX_RETRIES: "1",
      BRAIN_TIMEOUT: "1",
      BRAIN_CALL_DEADLINE: "1.5",
      BRAIN_LOG: "debug",
    }),
  );
  adapters.push(adapter);
});
afterAll(async () => {
  await Promise.all(adapters.map((a) => a.close()));
  await service.stop();
});

describe("service failures", () => {
  beforeEach(() => service.reset());

  it("401: the key was rejected; says where the key comes from and how to replace it, with the request id", async () => {
    service.on("GET /v1/status", { status: 401, body: errorBody("invalid_api_key", "invalid key") });
    const result = await call(adapter, "brain.status");
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/rejected the API key \(401/);
    expect(text).toContain("BRAIN_API_KEY");
    expect(text).toContain("brain-mcp config set-key");
    expect(text).toContain(`request id ${REQUEST_ID}`);
  });

  it("403 workspace_suspended, workspace_deleted and workspace_limit_reached each get their own sentence", async () => {
    service.on("POST /v1/memory/retrieve", { status: 403, body: errorBody("workspace_suspended", "suspended") });
    service.on("GET /v1/optimize/health", { status: 403, body: errorBody("workspace_deleted", "deleted") });
    service.on("POST /v1/memory/store", { status: 403, body: errorBody("workspace_limit_reached", "limit") });
    const suspended = textOf(await call(adapter, "brain.recall", { query: "x" }));
    const deleted = textOf(await call(adapter, "brain.health"));
    const limit = textOf(await call(adapter, "brain.remember", { text: "a fact" }));
    expect(suspended).toMatch(/suspended/);
    expect(suspended).toMatch(/administrator/);
    expect(deleted).toMatch(/has been deleted/);
    expect(limit).toMatch(/reached its plan's limit/);
    expect(limit).toMatch(/Recall still works/);
    expect(new Set([suspended, deleted, limit]).size).toBe(3);
    expect(limit).not.toMatch(/suspended/);
  });

  it("404 on status or health names a service that predates it", async () => {
    const result = await call(adapter, "brain.health");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/does not offer GET \/v1\/optimize\/health \(404\): it predates health/);
  });

  it("422 pii_detected names the kinds found and never the value", async () => {
    service.on("POST /v1/memory/store", {
      status: 422,
      body: errorBody("pii_detected", "The text contains personal data.", { pii_types: ["credit_card", "email"] }),
    });
    const secretText = "My card is 4111 1111 1111 1111 and mail bob@example.com";
    const text = textOf(await call(adapter, "brain.remember", { text: secretText }));
    expect(text).toMatch(/not stored: it contains personal or secret data \(credit_card, email\)/);
    expectNoCardNumber(text);
    expect(text).not.toContain("bob@example.com");
  });

  it("422 of another kind passes the service's message on", async () => {
    service.on("POST /v1/memory/store", { status: 422, body: errorBody("invalid_request", "meta must be an object") });
    const text = textOf(await call(adapter, "brain.remember", { text: "a fact" }));
    expect(text).toMatch(/rejected the request \(422 invalid_request\)/);
    expect(text).toContain("The service says: meta must be an object.");
  });

  it("429 says how long to wait", async () => {
    service.on("POST /v1/memory/retrieve", {
      status: 429,
      headers: { "retry-after": "7" },
      body: errorBody("rate_limited", "slow down", { retry_after: 7 }),
    });
    expect(textOf(await call(adapter, "brain.recall", { query: "x" }))).toMatch(/rate-limiting this key \(429\)\. Wait 7 s/);
  });

  it("503 is retried BRAIN_MAX_RETRIES times, then reported as unavailable", async () => {
    service.on("GET /v1/status", { status: 503, body: errorBody("store_unavailable", "down") });
    const text = textOf(await call(adapter, "brain.status"));
    expect(service.seen).toHaveLength(2);
    expect(text).toMatch(/unavailable \(503 store_unavailable\), still after 1 retry/);
  });

  it("503 storage_full says the service's disk is full and that stored memories are kept", async () => {
    service.on("POST /v1/memory/store", { status: 503, headers: { "retry-after": "0" }, body: errorBody("storage_full", "disk full") });
    const text = textOf(await call(adapter, "brain.remember", { text: "a fact" }));
    expect(text).toMatch(/cannot write: its disk is full \(503 storage_full\)/);
    expect(text).toMatch(/Memories already stored are kept/);
  });

  it("a service that never answers ends at the call's deadline as a tool error", async () => {
    service.on("GET /v1/status", { hang: true });
    const started = Date.now();
    const result = await call(adapter, "brain.status");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/did not answer in time .*BRAIN_CALL_DEADLINE=1\.5 s/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("failures before the service", () => {
  it("with no key anywhere, every call names BRAIN_API_KEY, the config file and config set-key", async () => {
    const env = isolatedEnv({ BRAIN_BASE_URL: service.url });
    const a = await connectAdapter(env);
    adapters.push(a);
    expect((await a.client.listTools()).tools).toHaveLength(4);
    const text = textOf(await call(a, "brain.recall", { query: "anything" }));
    expect(text).toContain("BRAIN_API_KEY");
    expect(text).toContain(env.BRAIN_CONFIG);
    expect(text).toContain("brain-mcp config set-key");
  });

  it("a refused connection says there is no memory service at the URL and how to start one", async () => {
    const port = await freePort();
    const a = await connectAdapter(isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: `http://127.0.0.1:${port}`, BRAIN_MAX_RETRIES: "0" }));
    adapters.push(a);
    const result = await call(a, "brain.status");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      `No memory service at http://127.0.0.1:${port}: start one with \`brain-mcp serve\`, use \`--embedded\`, or set \`BRAIN_BASE_URL\`.`,
    );
  });

  it("a base URL with a wrong path (…/v1) says the address is wrong and what it should be, for every tool", async () => {
    // The scripted service answers 404 for every path it was not given, as a real one does for /v1/v1/status.
    const a = await connectAdapter(isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: `${service.url}/v1`, BRAIN_MAX_RETRIES: "0" }));
    adapters.push(a);
    for (const [name, args] of [
      ["brain.status", {}],
      ["brain.health", {}],
      ["brain.recall", { query: "anything" }],
    ] as const) {
      const result = await call(a, name, args);
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toMatch(
        new RegExp(`^Nothing answers (GET|POST) /v1/\\S+ at ${service.url}/v1 \\(404\\): the memory service's address looks wrong`),
      );
      expect(text).toContain("like http://127.0.0.1:8787 or https://brain.example.com (no /v1)");
      expect(text).toContain(`Here that is ${service.url}.`);
      expect(text).not.toMatch(/predates|Upgrade/);
    }
    expect(service.seen.map((r) => r.path)).toContain("/v1/v1/status");
  });

  it("the key never appears in any result or on stderr, even at BRAIN_LOG=debug", () => {
    expect(outputs.length).toBeGreaterThan(5);
    for (const out of outputs) expect(out).not.toContain(KEY);
    for (const a of adapters) expect(a.stderr()).not.toContain(KEY);
    expect(adapter.stderr()).toContain("brain-mcp debug"); // the debug log did run
  });
});
