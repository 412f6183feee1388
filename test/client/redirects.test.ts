import os from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BrainError } from "../../src/index.js";
import { KEY, STATUS_OK, STORE_OK, brains, capturingLogger, json, startServer, type ScriptedServer } from "./scripted-server.js";

let oldHost: ScriptedServer;
let newHost: ScriptedServer;
const made = brains();
beforeAll(async () => {
  oldHost = await startServer();
  newHost = await startServer();
});
afterEach(() => {
  oldHost.received.length = 0;
  newHost.received.length = 0;
  return made.closeAll();
});
afterAll(() => Promise.all([oldHost.close(), newHost.close()]));

function redirectTo(status: number, location: (url: string) => string) {
  oldHost.script((req, res) => {
    res.writeHead(status, { location: location(req.url), "x-request-id": "req_redirect" });
    res.end();
  });
}

describe("permanent redirects (301, 308) are followed", () => {
  for (const status of [301, 308]) {
    it(`${status} to another loopback port: same method, body, key and Idempotency-Key, and a warning naming the new address`, async () => {
      redirectTo(status, (path) => `${newHost.url}${path}`);
      newHost.script((_req, res) => json(res, 200, STORE_OK));
      const logger = capturingLogger();
      const brain = made.make({ baseURL: oldHost.url, logger });
      await expect(brain.memory.store("The deploy runs on Fridays.", { source: "chat" })).resolves.toMatchObject(STORE_OK);

      expect(oldHost.received).toHaveLength(1);
      expect(newHost.received).toHaveLength(1);
      const [first] = oldHost.received;
      const [moved] = newHost.received;
      expect(moved!.method).toBe("POST");
      expect(moved!.url).toBe("/v1/memory/store");
      expect(moved!.body).toBe(first!.body);
      expect(JSON.parse(moved!.body)).toEqual({ text: "The deploy runs on Fridays.", meta: { source: "chat" } });
      expect(moved!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(moved!.headers["idempotency-key"]).toBe(first!.headers["idempotency-key"]);
      expect(moved!.headers["content-type"]).toBe("application/json");

      const warnings = logger.lines.filter((l) => l.level === "warn");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toContain(`${newHost.url}/v1/memory/store`);
      expect(warnings[0]!.message).toContain(String(status));
    });
  }

  it("a relative Location is resolved against the old address", async () => {
    oldHost.script((req, res) => {
      if (req.url === "/v1/status") {
        res.writeHead(308, { location: "/moved/v1/status" });
        res.end();
      } else json(res, 200, STATUS_OK);
    });
    const brain = made.make({ baseURL: oldHost.url });
    await expect(brain.status()).resolves.toMatchObject({ healthy: true });
    expect(oldHost.received.map((r) => r.url)).toEqual(["/v1/status", "/moved/v1/status"]);
  });

  it("three hops are followed; a fourth is refused", async () => {
    const hopsThen = (hops: number) =>
      oldHost.script((req, res, n) => {
        if (n <= hops) {
          res.writeHead(301, { location: `/hop${n}${req.url.replace(/^\/hop\d+/, "")}` });
          res.end();
        } else json(res, 200, STATUS_OK);
      });
    hopsThen(3);
    const brain = made.make({ baseURL: oldHost.url });
    await expect(brain.status()).resolves.toMatchObject({ healthy: true });
    expect(oldHost.received).toHaveLength(4);

    oldHost.received.length = 0;
    hopsThen(4);
    const error = (await brain.status().catch((e: unknown) => e)) as BrainError;
    expect(error).toBeInstanceOf(BrainError);
    expect(error.code).toBe("too_many_redirects");
    expect(error.message).toContain("more than 3 redirects");
    expect(oldHost.received).toHaveLength(4);
  });

  it("hops do not use up retries", async () => {
    oldHost.script((req, res, n) => {
      if (req.url === "/v1/status") {
        res.writeHead(301, { location: "/new/v1/status" });
        res.end();
      } else if (n < 4) json(res, 503, { error: { code: "store_unavailable" } });
      else json(res, 200, STATUS_OK);
    });
    const brain = made.make({ baseURL: oldHost.url, maxRetries: 2, retryBaseMs: 1 });
    await expect(brain.status()).resolves.toMatchObject({ healthy: true });
  });
});

describe("redirects that are refused", () => {
  it("a 301 to plain http off loopback is refused and the key is not sent there", async () => {
    redirectTo(301, (path) => `http://example.com${path}`);
    const logger = capturingLogger();
    const brain = made.make({ baseURL: oldHost.url, logger });
    const start = performance.now();
    const error = (await brain.memory.store("x").catch((e: unknown) => e)) as BrainError;
    expect(performance.now() - start).toBeLessThan(1000);
    expect(error).toBeInstanceOf(BrainError);
    expect(error.code).toBe("redirect_refused");
    expect(error.statusCode).toBe(301);
    expect(error.requestId).toBe("req_redirect");
    expect(error.message).toContain("http://example.com/v1/memory/store");
    expect(error.message).toMatch(/plain http/);
    expect(error.message).not.toContain(KEY);
    expect(oldHost.received).toHaveLength(1);
    expect(logger.lines.filter((l) => l.level === "warn")).toHaveLength(0);
  });

  const lan = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal);
  it.skipIf(!lan)("a 301 to this machine's own non-loopback address over plain http receives nothing", async () => {
    const offLoopback = await startServer((_r, res) => json(res, 200, STATUS_OK), lan!.address);
    try {
      redirectTo(301, (path) => `${offLoopback.url}${path}`);
      const brain = made.make({ baseURL: oldHost.url });
      await expect(brain.status()).rejects.toMatchObject({ code: "redirect_refused" });
      expect(offLoopback.received).toHaveLength(0);
    } finally {
      await offLoopback.close();
    }
  });

  for (const status of [302, 303, 307, 300]) {
    it(`${status} is not followed`, async () => {
      redirectTo(status, (path) => `${newHost.url}${path}`);
      const brain = made.make({ baseURL: oldHost.url });
      const error = (await brain.status().catch((e: unknown) => e)) as BrainError;
      expect(error).toBeInstanceOf(BrainError);
      expect(error.statusCode).toBe(status);
      expect(error.code).toBe("redirect_not_followed");
      expect(newHost.received).toHaveLength(0);
    });
  }

  it("a 301 without a Location is not followed", async () => {
    oldHost.script((_req, res) => {
      res.writeHead(301);
      res.end();
    });
    const brain = made.make({ baseURL: oldHost.url });
    await expect(brain.status()).rejects.toMatchObject({ code: "redirect_not_followed", statusCode: 301 });
  });
});
