import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BrainError,
  InternalServerError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServiceUnavailableError,
  ValidationError,
} from "../../src/index.js";
import { KEY, brains, errorBody, json, startServer, type ScriptedServer } from "./scripted-server.js";

let server: ScriptedServer;
const made = brains();
beforeAll(async () => {
  server = await startServer();
});
afterEach(() => made.closeAll());
afterAll(() => server.close());

async function failure(status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  let sentId = "";
  server.script((_req, res) => {
    const body = errorBody(code, `the service says ${code}`, extra);
    sentId = body.error.request_id;
    json(res, status, body, { "x-request-id": sentId, ...headers });
  });
  const brain = made.make({ baseURL: server.url, maxRetries: 0 });
  const error = await brain.memory.store("The deploy runs on Fridays.").then(
    () => expect.unreachable("the call should fail"),
    (e: unknown) => e as BrainError,
  );
  return { error, sentId };
}

describe("each error status becomes its own class, with code and request id", () => {
  const table: [number, string, new (...args: never[]) => BrainError][] = [
    [401, "invalid_api_key", AuthenticationError],
    [403, "workspace_suspended", PermissionError],
    [403, "workspace_deleted", PermissionError],
    [403, "workspace_limit_reached", PermissionError],
    [404, "not_found", NotFoundError],
    [422, "invalid_request", ValidationError],
    [422, "text_too_long", ValidationError],
    [422, "idempotency_key_reused", ValidationError],
    [400, "invalid_request", ValidationError],
    [413, "payload_too_large", ValidationError],
    [415, "unsupported_media_type", ValidationError],
    [429, "rate_limited", RateLimitError],
    [500, "internal_error", InternalServerError],
    [502, "bad_gateway", ServiceUnavailableError],
    [503, "store_unavailable", ServiceUnavailableError],
    [504, "gateway_timeout", ServiceUnavailableError],
  ];
  for (const [status, code, Class] of table) {
    it(`${status} ${code} is a ${Class.name}`, async () => {
      const { error, sentId } = await failure(status, code);
      expect(error).toBeInstanceOf(Class);
      expect(error).toBeInstanceOf(BrainError);
      expect(error.name).toBe(Class.name);
      expect(error.statusCode).toBe(status);
      expect(error.code).toBe(code);
      expect(error.requestId).toBe(sentId);
      expect(error.message).toContain(sentId);
      expect(error.message).toContain(code);
      expect(error.message).toContain("POST /v1/memory/store");
      expect(error.body).toMatchObject({ error: { code } });
    });
  }

  it("another 4xx (405) is a plain BrainError", async () => {
    const { error } = await failure(405, "method_not_allowed");
    expect(error.constructor).toBe(BrainError);
    expect(error.statusCode).toBe(405);
    expect(error.code).toBe("method_not_allowed");
  });

  it("a 5xx other than 502/503/504 (e.g. 507) is an InternalServerError", async () => {
    const { error } = await failure(507, "insufficient_storage");
    expect(error).toBeInstanceOf(InternalServerError);
  });
});

describe("pii rejection", () => {
  it("a 422 pii_detected carries the kinds found as piiTypes", async () => {
    const { error } = await failure(422, "pii_detected", { pii_types: ["credit_card", "email"] });
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.piiTypes).toEqual(["credit_card", "email"]);
  });
});

describe("rate limiting: retryAfter in seconds", () => {
  it("comes from the Retry-After header", async () => {
    const { error } = await failure(429, "rate_limited", { retry_after: 9 }, { "retry-after": "3" });
    expect((error as RateLimitError).retryAfter).toBe(3);
  });

  it("comes from retry-after-ms first, when present", async () => {
    const { error } = await failure(429, "rate_limited", {}, { "retry-after-ms": "1500", "retry-after": "3" });
    expect((error as RateLimitError).retryAfter).toBe(1.5);
  });

  it("falls back to the body's retry_after", async () => {
    const { error } = await failure(429, "rate_limited", { retry_after: 2 });
    expect((error as RateLimitError).retryAfter).toBe(2);
  });

  it("reads an HTTP-date Retry-After as seconds from now", async () => {
    const at = new Date(Date.now() + 10_000).toUTCString();
    const { error } = await failure(429, "rate_limited", {}, { "retry-after": at });
    const retryAfter = (error as RateLimitError).retryAfter!;
    expect(retryAfter).toBeGreaterThan(7);
    expect(retryAfter).toBeLessThanOrEqual(10);
  });

  it("is null when the service gave none", async () => {
    const { error } = await failure(429, "rate_limited");
    expect((error as RateLimitError).retryAfter).toBeNull();
  });
});

describe("error bodies that are not the documented shape", () => {
  it("a proxy's HTML 502 is still a ServiceUnavailableError, with the text as body", async () => {
    server.script((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>Bad Gateway</html>");
    });
    const brain = made.make({ baseURL: server.url, maxRetries: 0 });
    const error = (await brain.status().catch((e: unknown) => e)) as BrainError;
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.code).toBeNull();
    expect(error.requestId).toBeNull();
    expect(error.body).toBe("<html>Bad Gateway</html>");
    expect(error.message).toContain("GET /v1/status failed with 502");
  });

  it("the request id comes from the body when the header is missing", async () => {
    server.script((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "invalid_api_key", message: "bad key", request_id: "req_fromthebody" } }));
    });
    const brain = made.make({ baseURL: server.url });
    const error = (await brain.status().catch((e: unknown) => e)) as BrainError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.requestId).toBe("req_fromthebody");
  });

  it("an error message that echoes the key never shows it", async () => {
    server.script((_req, res) => json(res, 401, errorBody("invalid_api_key", `key ${KEY} (Bearer ${KEY}) is revoked`)));
    const brain = made.make({ baseURL: server.url });
    const error = (await brain.status().catch((e: unknown) => e)) as BrainError;
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain("***");
  });
});
