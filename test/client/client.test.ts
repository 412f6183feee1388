import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AuthenticationError, Brain, BrainError, DEFAULT_BASE_URL, VERSION, createStderrLogger } from "../../src/index.js";
import { Core } from "../../src/client/core.js";
import {
  HEALTH_OK,
  KEY,
  RETRIEVE_OK,
  STATUS_OK,
  STORE_OK,
  brains,
  capturingLogger,
  errorBody,
  json,
  startServer,
  type ScriptedServer,
} from "./scripted-server.js";

let server: ScriptedServer;
const made = brains();
beforeAll(async () => {
  server = await startServer();
});
afterEach(() => {
  server.received.length = 0;
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  return made.closeAll();
});
afterAll(() => server.close());

describe("construction", () => {
  it("with no key by option or environment it throws AuthenticationError naming BRAIN_API_KEY", () => {
    vi.stubEnv("BRAIN_API_KEY", "");
    const error = (() => {
      try {
        new Brain({ baseURL: server.url });
      } catch (e) {
        return e as BrainError;
      }
    })();
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error!.message).toContain("BRAIN_API_KEY");
    expect(error!.statusCode).toBeNull();
  });

  it("takes the key and base URL from BRAIN_API_KEY and BRAIN_BASE_URL", async () => {
    vi.stubEnv("BRAIN_API_KEY", KEY);
    vi.stubEnv("BRAIN_BASE_URL", server.url + "/");
    server.script((_req, res) => json(res, 200, STATUS_OK));
    const brain = new Brain({ logger: capturingLogger() });
    try {
      expect(brain.baseURL).toBe(server.url);
      await brain.status();
      expect(server.received[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      await brain.close();
    }
  });

  it("defaults to the local service's address", async () => {
    vi.stubEnv("BRAIN_BASE_URL", "");
    const brain = made.make({});
    expect(brain.baseURL).toBe(DEFAULT_BASE_URL);
  });

  it("refuses a plain-http base URL that is not loopback", () => {
    for (const url of ["http://example.com", "http://10.0.0.5:8787", "http://localhost.evil.com", "http://128.0.0.1"]) {
      expect(() => new Brain({ apiKey: KEY, baseURL: url }), url).toThrowError(/plain http is allowed only to this machine/);
    }
    expect(() => new Brain({ apiKey: KEY, baseURL: "http://example.com" })).toThrowError(
      expect.objectContaining({ code: "insecure_base_url" }),
    );
  });

  it("accepts https anywhere and plain http to loopback", () => {
    for (const url of [
      "https://brain.example.com",
      "http://localhost:8787",
      "http://127.0.0.1",
      "http://127.5.6.7:9",
      "http://[::1]:8787",
    ]) {
      expect(() => made.make({ baseURL: url }), url).not.toThrow();
    }
  });

  it("refuses a base URL that is not a URL, or not http(s)", () => {
    expect(() => new Brain({ apiKey: KEY, baseURL: "not a url" })).toThrowError(BrainError);
    expect(() => new Brain({ apiKey: KEY, baseURL: "ftp://127.0.0.1" })).toThrowError(/https/);
  });

  it("refuses a negative maxRetries or a zero timeout", () => {
    expect(() => new Brain({ apiKey: KEY, baseURL: server.url, maxRetries: -1 })).toThrowError(/maxRetries/);
    expect(() => new Brain({ apiKey: KEY, baseURL: server.url, timeout: 0 })).toThrowError(/timeout/);
  });
});

describe("every request", () => {
  it("sends Bearer auth, Accept json, and User-Agent brain-mcp/<version> node/<version>", async () => {
    server.script((_req, res) => json(res, 200, STATUS_OK));
    const brain = made.make({ baseURL: server.url, defaultHeaders: { "X-Team": "blue", Authorization: "nope" } });
    await brain.status();
    const { headers, method, url } = server.received[0]!;
    expect(method).toBe("GET");
    expect(url).toBe("/v1/status");
    expect(headers.authorization).toBe(`Bearer ${KEY}`);
    expect(headers.accept).toBe("application/json");
    expect(headers["user-agent"]).toBe(`brain-mcp/${VERSION} node/${process.version}`);
    expect(headers["user-agent"]).toMatch(/^brain-mcp\/\d+\.\d+\.\d+ node\/v\d+\.\d+\.\d+$/);
    expect(headers["x-team"]).toBe("blue");
    expect(headers["content-type"]).toBeUndefined();
  });

  it("keeps a base URL's path prefix", async () => {
    server.script((_req, res) => json(res, 200, STATUS_OK));
    const brain = made.make({ baseURL: `${server.url}/brain/` });
    await brain.status();
    expect(server.received[0]!.url).toBe("/brain/v1/status");
  });

  it("VERSION equals package.json's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});

describe("the four operations", () => {
  it("store sends text and meta as JSON and returns the parsed answer", async () => {
    server.script((_req, res) => json(res, 200, STORE_OK));
    const brain = made.make({ baseURL: server.url });
    const stored = await brain.memory.store("The deploy runs on Fridays.", { source: "chat" });
    expect(stored).toEqual(STORE_OK);
    const { method, url, headers, body } = server.received[0]!;
    expect([method, url]).toEqual(["POST", "/v1/memory/store"]);
    expect(headers["content-type"]).toBe("application/json");
    expect(JSON.parse(body)).toEqual({ text: "The deploy runs on Fridays.", meta: { source: "chat" } });
  });

  it("store without meta sends no meta", async () => {
    server.script((_req, res) => json(res, 200, STORE_OK));
    const brain = made.make({ baseURL: server.url });
    await brain.memory.store("plain");
    expect(JSON.parse(server.received[0]!.body)).toEqual({ text: "plain" });
  });

  it("retrieve sends top_k and min_score under their wire names, and omits them when not given", async () => {
    server.script((_req, res) => json(res, 200, RETRIEVE_OK));
    const brain = made.make({ baseURL: server.url });
    const found = await brain.memory.retrieve("when is the deploy?", { topK: 3, minScore: 0.25 });
    expect(found).toEqual(RETRIEVE_OK);
    await brain.memory.retrieve("when is the deploy?");
    await brain.memory.retrieve("when is the deploy?", { topK: 7 });
    const bodies = server.received.map((r) => JSON.parse(r.body));
    expect(server.received[0]!.url).toBe("/v1/memory/retrieve");
    expect(bodies).toEqual([
      { query: "when is the deploy?", top_k: 3, min_score: 0.25 },
      { query: "when is the deploy?" },
      { query: "when is the deploy?", top_k: 7 },
    ]);
  });

  it("health and status are GETs to their routes", async () => {
    server.script((req, res) => json(res, 200, req.url === "/v1/optimize/health" ? HEALTH_OK : STATUS_OK));
    const brain = made.make({ baseURL: server.url });
    expect(await brain.optimize.health()).toEqual(HEALTH_OK);
    expect(await brain.status()).toEqual(STATUS_OK);
    expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /v1/optimize/health", "GET /v1/status"]);
  });
});

describe("reading answers leniently", () => {
  it("unknown fields are kept, at every level", async () => {
    server.script((_req, res) =>
      json(res, 200, {
        ...RETRIEVE_OK,
        next_cursor: "abc",
        memories: [{ ...RETRIEVE_OK.memories[0], embedding_model: "use-lite", meta: { ...RETRIEVE_OK.memories[0]!.meta, x: 1 } }],
      }),
    );
    const brain = made.make({ baseURL: server.url });
    const found = (await brain.memory.retrieve("q")) as Record<string, unknown> & typeof RETRIEVE_OK;
    expect(found.next_cursor).toBe("abc");
    expect((found.memories[0] as Record<string, unknown>).embedding_model).toBe("use-lite");
    expect(found.memories[0]!.meta).toMatchObject({ x: 1, source: "chat" });
  });

  it("a new workspace_status, dedup.action or temporal.type value is accepted as a string", async () => {
    server.script((req, res) =>
      req.url === "/v1/status"
        ? json(res, 200, { ...STATUS_OK, workspace_status: "archived" })
        : json(res, 200, {
            ...STORE_OK,
            temporal: { type: "recurring", valid_until: "2030-01-01T00:00:00Z" },
            dedup: { action: "superseded", existing_id: 7 },
          }),
    );
    const brain = made.make({ baseURL: server.url });
    expect((await brain.status()).workspace_status).toBe("archived");
    const stored = await brain.memory.store("x");
    expect(stored.temporal.type).toBe("recurring");
    expect(stored.dedup.action).toBe("superseded");
  });

  it("an answer that is not JSON is a BrainError with the request id", async () => {
    server.script((_req, res) => {
      res.writeHead(200, { "content-type": "text/html", "x-request-id": "req_html" });
      res.end("<html>hello</html>");
    });
    const brain = made.make({ baseURL: server.url });
    const error = (await brain.status().catch((e: unknown) => e)) as BrainError;
    expect(error).toBeInstanceOf(BrainError);
    expect(error.code).toBe("invalid_response");
    expect(error.requestId).toBe("req_html");
    expect(error.message).toContain("req_html");
  });

  it("an answer missing a documented field is a BrainError naming the field", async () => {
    const { workspace_id: _, ...missing } = STATUS_OK;
    server.script((_req, res) => json(res, 200, missing, { "x-request-id": "req_missing" }));
    const brain = made.make({ baseURL: server.url });
    const error = (await brain.status().catch((e: unknown) => e)) as BrainError;
    expect(error.code).toBe("invalid_response");
    expect(error.requestId).toBe("req_missing");
    expect(error.message).toContain("workspace_id");
  });
});

describe("logging", () => {
  it("no log line ever holds the key, through retries, redirects and errors", async () => {
    server.script((req, res, n) => {
      if (req.url === "/v1/status") {
        res.writeHead(301, { location: `/moved/${KEY}/v1/status` });
        res.end();
      } else if (n < 3) json(res, 503, errorBody("store_unavailable", `busy for ${KEY}`));
      else json(res, 401, errorBody("invalid_api_key", `Bearer ${KEY} revoked`));
    });
    const logger = capturingLogger();
    const brain = made.make({ baseURL: server.url, logger, retryBaseMs: 1 });
    const error = (await brain.status().catch((e: unknown) => e)) as BrainError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(logger.lines.length).toBeGreaterThan(3);
    expect(logger.lines.some((l) => l.level === "debug")).toBe(true);
    expect(logger.text()).not.toContain(KEY);
    expect(logger.text()).not.toContain("svc_ws_");
    expect(error.message).not.toContain(KEY);
  });

  it("a key without the usual prefix is redacted too", async () => {
    const oddKey = "legacy-key-1234567890";
    server.script((_req, res) => {
      res.writeHead(301, { location: `/x/${oddKey}` });
      res.end();
    });
    const logger = capturingLogger();
    const brain = made.make({ apiKey: oddKey, baseURL: server.url, logger });
    await brain.status().catch(() => {});
    expect(logger.text()).not.toContain(oddKey);
  });

  it("the default logger writes warnings to stderr, never stdout", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, "write");
    server.script((req, res) => {
      if (req.url === "/v1/status") {
        res.writeHead(308, { location: "/new/v1/status" });
        res.end();
      } else json(res, 200, STATUS_OK);
    });
    const brain = new Brain({ apiKey: KEY, baseURL: server.url });
    try {
      await brain.status();
    } finally {
      await brain.close();
    }
    const written = stderr.mock.calls.map((c) => String(c[0])).join("");
    stderr.mockRestore();
    expect(written).toMatch(/brain-mcp warn: .*moved permanently \(308\).*\/new\/v1\/status/);
    expect(stdout.mock.calls.map((c) => String(c[0])).join("")).not.toContain("brain-mcp");
  });

  it("createStderrLogger keeps only lines at or above its level", () => {
    const lines: string[] = [];
    const logger = createStderrLogger("info", (line) => lines.push(line));
    logger.debug("d");
    logger.info("i", { n: 1 });
    logger.error("e");
    expect(lines).toEqual(['brain-mcp info: i {"n":1}\n', "brain-mcp error: e\n"]);
  });
});

describe("closing", () => {
  it("close() ends the pool; later calls fail with client_closed; closing twice is fine", async () => {
    server.script((_req, res) => json(res, 200, STATUS_OK));
    const brain = new Brain({ apiKey: KEY, baseURL: server.url });
    await brain.status();
    await brain.close();
    await brain.close();
    await expect(brain.status()).rejects.toMatchObject({ code: "client_closed" });
  });

  it("Symbol.asyncDispose closes the client", async () => {
    const brain = new Brain({ apiKey: KEY, baseURL: server.url });
    await brain[Symbol.asyncDispose]();
    await expect(brain.status()).rejects.toMatchObject({ code: "client_closed" });
  });

  it("nothing under src/client imports from src/service", async () => {
    const { readdirSync } = await import("node:fs");
    const root = new URL("../../src/client/", import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    files.push("../index.ts");
    for (const file of files) {
      expect(readFileSync(new URL(file, root), "utf8"), file).not.toMatch(/from\s+["'][^"']*service\//);
    }
    expect(Core).toBeTypeOf("function");
  });
});
