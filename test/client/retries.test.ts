import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import net from "node:net";
import {
  BrainError,
  ConnectionError,
  InternalServerError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from "../../src/index.js";
import { STATUS_OK, STORE_OK, brains, errorBody, json, startServer, type ScriptedServer } from "./scripted-server.js";

let server: ScriptedServer;
const made = brains();
beforeAll(async () => {
  server = await startServer();
});
afterEach(() => {
  server.received.length = 0;
  return made.closeAll();
});
afterAll(() => server.close());

const fast = { retryBaseMs: 1, retryCapMs: 5 };

/** Answers `status` for the first `failures` requests, then `ok`. */
function failThenSucceed(failures: number, status: number, ok: unknown = STATUS_OK, headers: Record<string, string> = {}) {
  server.script((_req, res, n) => {
    if (n <= failures) json(res, status, errorBody("store_unavailable", "busy"), headers);
    else json(res, 200, ok);
  });
}

async function elapsed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T | unknown }> {
  const start = performance.now();
  const value = await run().catch((e: unknown) => e);
  return { ms: performance.now() - start, value };
}

describe("which answers are retried", () => {
  it("503 twice then 200 succeeds on the third attempt", async () => {
    failThenSucceed(2, 503);
    const brain = made.make({ baseURL: server.url, ...fast });
    await expect(brain.status()).resolves.toMatchObject({ healthy: true });
    expect(server.received).toHaveLength(3);
  });

  it("502 and 504 are retried too", async () => {
    for (const status of [502, 504]) {
      server.received.length = 0;
      failThenSucceed(1, status);
      const brain = made.make({ baseURL: server.url, ...fast });
      await expect(brain.status()).resolves.toMatchObject({ healthy: true });
      expect(server.received).toHaveLength(2);
    }
  });

  it("a 503 that never clears ends as ServiceUnavailableError after maxRetries more attempts", async () => {
    failThenSucceed(99, 503);
    const brain = made.make({ baseURL: server.url, maxRetries: 3, ...fast });
    const error = await brain.status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toContain("after 4 attempts");
    expect(server.received).toHaveLength(4);
  });

  it("maxRetries 0 makes exactly one attempt; a per-call maxRetries overrides the client's", async () => {
    failThenSucceed(99, 503);
    const brain = made.make({ baseURL: server.url, maxRetries: 0, ...fast });
    await expect(brain.status()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(server.received).toHaveLength(1);
    await expect(brain.status({ maxRetries: 1 })).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(server.received).toHaveLength(3);
  });

  it("500 is not retried (a store may have been written)", async () => {
    failThenSucceed(99, 500);
    const brain = made.make({ baseURL: server.url, ...fast });
    await expect(brain.memory.store("x")).rejects.toBeInstanceOf(InternalServerError);
    expect(server.received).toHaveLength(1);
  });

  it("422 is not retried", async () => {
    failThenSucceed(99, 422);
    const brain = made.make({ baseURL: server.url, ...fast });
    await expect(brain.memory.store("x")).rejects.toBeInstanceOf(ValidationError);
    expect(server.received).toHaveLength(1);
  });

  it("429 is not retried: the caller decides, with retryAfter", async () => {
    failThenSucceed(99, 429);
    const brain = made.make({ baseURL: server.url, ...fast });
    await expect(brain.status()).rejects.toMatchObject({ statusCode: 429 });
    expect(server.received).toHaveLength(1);
  });
});

describe("idempotency", () => {
  it("a store sends one Idempotency-Key across all its attempts", async () => {
    failThenSucceed(2, 503, STORE_OK);
    const brain = made.make({ baseURL: server.url, ...fast });
    await brain.memory.store("The deploy runs on Fridays.");
    const keys = server.received.map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it("each store gets its own key; a given key is sent as is", async () => {
    failThenSucceed(0, 503, STORE_OK);
    const brain = made.make({ baseURL: server.url, ...fast });
    await brain.memory.store("one");
    await brain.memory.store("two");
    await brain.memory.store("three", undefined, { idempotencyKey: "my-key-1" });
    const keys = server.received.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe("my-key-1");
  });

  it("reads carry no Idempotency-Key", async () => {
    failThenSucceed(0, 503);
    const brain = made.make({ baseURL: server.url, ...fast });
    await brain.status();
    expect(server.received[0]!.headers["idempotency-key"]).toBeUndefined();
  });
});

describe("backoff", () => {
  it("waits base * 2^n with full jitter: at the top of the range, 40 + 80 ms before the third attempt", async () => {
    failThenSucceed(2, 503);
    const brain = made.make({ baseURL: server.url, retryBaseMs: 40, retryCapMs: 1000, random: () => 1 });
    const { ms } = await elapsed(() => brain.status());
    expect(ms).toBeGreaterThanOrEqual(115);
    expect(ms).toBeLessThan(600);
  });

  it("never waits longer than the cap", async () => {
    failThenSucceed(3, 503);
    const brain = made.make({ baseURL: server.url, maxRetries: 3, retryBaseMs: 40, retryCapMs: 50, random: () => 1 });
    const { ms } = await elapsed(() => brain.status());
    // 40 + 50 + 50 (capped from 80 and 160)
    expect(ms).toBeGreaterThanOrEqual(135);
    expect(ms).toBeLessThan(600);
  });

  it("jitter at the bottom of the range retries at once", async () => {
    failThenSucceed(2, 503);
    const brain = made.make({ baseURL: server.url, retryBaseMs: 2000, random: () => 0 });
    const { ms } = await elapsed(() => brain.status());
    expect(ms).toBeLessThan(1000);
  });

  it("a 503's Retry-After is honoured instead of the backoff", async () => {
    failThenSucceed(1, 503, STATUS_OK, { "retry-after-ms": "150" });
    const brain = made.make({ baseURL: server.url, retryBaseMs: 1, random: () => 0 });
    const { ms } = await elapsed(() => brain.status());
    expect(ms).toBeGreaterThanOrEqual(145);
    expect(ms).toBeLessThan(800);
  });

  it("a 503's Retry-After is bounded", async () => {
    failThenSucceed(1, 503, STATUS_OK, { "retry-after": "3600" });
    const brain = made.make({ baseURL: server.url, retryAfterMaxMs: 50 });
    const { ms, value } = await elapsed(() => brain.status());
    expect(value).toMatchObject({ healthy: true });
    expect(ms).toBeLessThan(800);
  });
});

describe("timeouts and network failures", () => {
  it("a service that never answers ends as TimeoutError after the timeout", async () => {
    server.script(() => {});
    const brain = made.make({ baseURL: server.url, timeout: 200, maxRetries: 0 });
    const { ms, value } = await elapsed(() => brain.status());
    expect(value).toBeInstanceOf(TimeoutError);
    const error = value as TimeoutError;
    expect(error.statusCode).toBeNull();
    expect(error.code).toBe("timeout");
    expect(error.message).toContain("200 ms");
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(ms).toBeLessThan(1500);
  });

  it("a timed-out attempt is retried, and the retry can succeed", async () => {
    server.script((_req, res, n) => {
      if (n > 1) json(res, 200, STATUS_OK);
    });
    const brain = made.make({ baseURL: server.url, timeout: 150, ...fast });
    await expect(brain.status()).resolves.toMatchObject({ healthy: true });
    expect(server.received).toHaveLength(2);
  });

  it("a per-call timeout overrides the client's", async () => {
    server.script(() => {});
    const brain = made.make({ baseURL: server.url, timeout: 30_000, maxRetries: 0 });
    await expect(brain.status({ timeout: 100 })).rejects.toBeInstanceOf(TimeoutError);
  });

  it("a refused port is a ConnectionError with no status", async () => {
    const port = await freePort();
    const brain = made.make({ baseURL: `http://127.0.0.1:${port}`, ...fast });
    const error = (await brain.status().catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.statusCode).toBeNull();
    expect(error.requestId).toBeNull();
    expect(error.code).toBe("connection_error");
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain("3 attempts");
  });

  it("a reset socket is retried, then a ConnectionError", async () => {
    server.script((_req, _res, _n, raw) => raw.socket.destroy());
    const brain = made.make({ baseURL: server.url, maxRetries: 2, ...fast });
    await expect(brain.memory.store("x")).rejects.toBeInstanceOf(ConnectionError);
    expect(server.received).toHaveLength(3);
  });

  it("a reset socket followed by an answer succeeds", async () => {
    server.script((_req, res, n, raw) => (n === 1 ? raw.socket.destroy() : json(res, 200, STORE_OK)));
    const brain = made.make({ baseURL: server.url, ...fast });
    await expect(brain.memory.store("x")).resolves.toMatchObject({ memory_id: 1 });
    expect(server.received).toHaveLength(2);
  });
});

describe("the caller's signal: one deadline across all attempts", () => {
  it("a deadline (AbortSignal.timeout) that passes during retries ends the call as TimeoutError", async () => {
    failThenSucceed(99, 503);
    const brain = made.make({ baseURL: server.url, maxRetries: 10, retryBaseMs: 60, retryCapMs: 60, random: () => 1 });
    const { ms, value } = await elapsed(() => brain.status({ signal: AbortSignal.timeout(200) }));
    expect(value).toBeInstanceOf(TimeoutError);
    expect((value as TimeoutError).message).toContain("deadline");
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(ms).toBeLessThan(1000);
    expect(server.received.length).toBeLessThan(6);
  });

  it("aborting during a backoff sleep stops at once", async () => {
    failThenSucceed(99, 503);
    const brain = made.make({ baseURL: server.url, retryBaseMs: 5000, random: () => 1 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new DOMException("deadline", "TimeoutError")), 100);
    const { ms, value } = await elapsed(() => brain.status({ signal: controller.signal }));
    expect(value).toBeInstanceOf(TimeoutError);
    expect(ms).toBeLessThan(1000);
    expect(server.received).toHaveLength(1);
  });

  it("aborting during an attempt stops it at once", async () => {
    server.script(() => {});
    const brain = made.make({ baseURL: server.url, timeout: 30_000 });
    const { ms, value } = await elapsed(() => brain.status({ signal: AbortSignal.timeout(100) }));
    expect(value).toBeInstanceOf(TimeoutError);
    expect(ms).toBeLessThan(1000);
    expect(server.received).toHaveLength(1);
  });

  it("an abort for any other reason is a BrainError saying the call was cancelled", async () => {
    server.script(() => {});
    const brain = made.make({ baseURL: server.url });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = (await brain.status({ signal: controller.signal }).catch((e: unknown) => e)) as BrainError;
    expect(error).toBeInstanceOf(BrainError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(error.code).toBe("cancelled");
    expect(error.message).toContain("cancelled");
  });

  it("an already aborted signal sends nothing", async () => {
    // A server of its own: the previous test's abandoned request can still land on the shared one under load.
    const own = await startServer();
    try {
      const brain = made.make({ baseURL: own.url });
      await expect(brain.status({ signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "cancelled" });
      await new Promise((r) => setTimeout(r, 50)); // anything sent would have arrived by now
      expect(own.received).toHaveLength(0);
    } finally {
      await own.close();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
