// `brain-mcp serve` as a process: first start, restart, redirect, binding rules, TLS, graceful shutdown, crashes.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { afterAll, describe, expect, it, vi } from "vitest";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, SHUTDOWN_GRACE_MS } from "../../src/contract/limits.js";
import { REQUEST_ID_PATTERN } from "../../src/contract/wire.js";
import { selfSignedCertificate } from "../support/tls.js";
import {
  baseEnv,
  call,
  freshStore,
  memoryIds,
  runCli,
  spawnServe,
  startService,
  TEST_DATABASE_URL,
  type ServiceHandle,
} from "../support/service.js";

// Real processes on a shared 2-core machine: starting one loads the models, which can take seconds under load.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const running: { stop(): Promise<unknown> }[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop().catch(() => undefined)));
});

async function track(handle: Promise<ServiceHandle>): Promise<ServiceHandle> {
  const svc = await handle;
  running.push(svc);
  return svc;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const env = baseEnv;

/** A store whose headers and first bytes are sent now and the rest on `finish()`: in flight until then. */
function storeInFlight(svc: ServiceHandle, text: string): { finish(): void; answered: Promise<{ status: number; json: any }> } {
  const body = JSON.stringify({ text });
  const req = request(new URL("/v1/memory/store", svc.baseURL), {
    method: "POST",
    headers: {
      authorization: `Bearer ${svc.apiKey}`,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
    },
  });
  const answered = new Promise<{ status: number; json: any }>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
  });
  answered.catch(() => undefined); // a connection the server cuts is asserted on where it matters
  req.write(body.slice(0, 10));
  return { finish: () => req.end(body.slice(10)), answered };
}

/** A raw socket that `send`s what it likes; resolves when the server closes it, with what came back and when. */
function rawClient(svc: ServiceHandle, send: (socket: import("node:net").Socket) => void): Promise<{ afterMs: number; received: string }> {
  const { hostname, port } = new URL(svc.baseURL);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => send(socket));
    let received = "";
    socket.on("data", (d) => (received += d));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve({ afterMs: Date.now() - started, received }));
  });
}

/** Calls status back to back until `done` resolves; every answer's status and the slowest answer's time. */
async function statusLoad(svc: ServiceHandle, done: Promise<unknown>): Promise<{ statuses: number[]; slowestMs: number }> {
  let over = false;
  void done.then(() => (over = true));
  const statuses: number[] = [];
  let slowestMs = 0;
  while (!over) {
    const started = Date.now();
    statuses.push((await call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey })).status);
    slowestMs = Math.max(slowestMs, Date.now() - started);
    await sleep(100);
  }
  return { statuses, slowestMs };
}

describe("first start and restart", () => {
  it.skipIf(TEST_DATABASE_URL)(
    "the first start on an empty store makes a workspace and prints its key once; a restart keeps memories and prints no key",
    async () => {
      const first = await track(startService({ noWorkspace: true }));
      const out = first.stdout();
      expect(out).toMatch(/store: SQLite at /);
      const key = /^(svc_ws_[0-9A-Za-z]{32})$/m.exec(out)?.[1];
      expect(key).toBeDefined();
      expect(out).toMatch(/will not be shown again/);
      const stored = await call(first.baseURL, "POST", "/v1/memory/store", {
        key,
        json: { text: "The garden shed key hangs behind the kitchen door." },
      });
      expect(stored.status, stored.text).toBe(200);
      expect(await first.stop()).toEqual({ code: 0, signal: null });

      const second = await track(startService({ dbPath: first.dbPath, noWorkspace: true }));
      expect(second.stdout()).not.toMatch(/svc_ws_/);
      const status = await call(second.baseURL, "GET", "/v1/status", { key });
      expect(status.status).toBe(200);
      expect(status.json.memory_count).toBe(1);
      const found = await call(second.baseURL, "POST", "/v1/memory/retrieve", { key, json: { query: "where is the shed key" } });
      expect(found.json.memories[0].id).toBe(stored.json.memory_id);
      await second.stop();
    },
  );

  it("memories and keys persist across a restart of the service", async () => {
    const first = await track(startService());
    const stored = await call(first.baseURL, "POST", "/v1/memory/store", {
      key: first.apiKey,
      json: { text: "The team retrospective happens every second Thursday." },
    });
    expect(stored.status).toBe(200);
    await first.stop();
    const { storeArgs } = first;
    const { url, child } = await spawnServe(["--port", "0", ...storeArgs], env());
    running.push({ stop: async () => child.kill("SIGTERM") });
    const status = await call(url, "GET", "/v1/status", { key: first.apiKey });
    expect(status.json.workspace_id).toBe(first.workspaceId);
    expect(status.json.memory_count).toBe(1);
    child.kill("SIGTERM");
  });
});

describe("store selection", () => {
  it.skipIf(TEST_DATABASE_URL)("with no --db, serve uses BRAIN_DB, else brain.db in the data folder (created)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "brain-store-"));
    const fromEnv = join(dir, "from-env", "memories.db");
    const viaEnv = await spawnServe(["--port", "0"], env({ BRAIN_DB: fromEnv }));
    running.push({ stop: async () => viaEnv.child.kill("SIGTERM") });
    expect(viaEnv.stdout()).toContain(`store: SQLite at ${fromEnv}`);
    expect(existsSync(fromEnv)).toBe(true);
    viaEnv.child.kill("SIGTERM");

    const dataHome = join(dir, "xdg-data");
    const byDefault = await spawnServe(["--port", "0"], env({ XDG_DATA_HOME: dataHome }));
    running.push({ stop: async () => byDefault.child.kill("SIGTERM") });
    const expected = join(dataHome, "brain", "brain.db");
    expect(byDefault.stdout()).toContain(`store: SQLite at ${expected}`);
    expect(existsSync(expected)).toBe(true);
    byDefault.child.kill("SIGTERM");
  });

  it("a database URL wins over a SQLite path, and its password is never printed", async () => {
    const res = await runCli(
      ["serve", "--port", "0", "--db", join(tmpdir(), "unused.db"), "--database-url", "postgres://brain:s3cr3t-pw@127.0.0.1:1/brain"],
      { env: env({ BRAIN_PG_CONNECT_TIMEOUT_MS: "1000" }) },
    );
    expect(res.code).not.toBe(0);
    expect(res.stdout).toContain("store: PostgreSQL at postgres://brain:***@127.0.0.1:1/brain");
    expect(res.stdout + res.stderr).not.toContain("s3cr3t-pw");
  });
});

describe("--redirect-to", () => {
  it("answers every request with 301 to the new URL + path + query, without opening a store", async () => {
    const { url, child } = await spawnServe(
      ["--port", "0", "--redirect-to", "https://brain.example.com/base/", "--db", "/nonexistent/dir/brain.db"],
      env(),
    );
    running.push({ stop: async () => child.kill("SIGTERM") });
    const get = await call(url, "GET", "/v1/status?verbose=1");
    expect(get.status).toBe(301);
    expect(get.headers.get("location")).toBe("https://brain.example.com/base/v1/status?verbose=1");
    expect(get.headers.get("x-request-id")).toMatch(REQUEST_ID_PATTERN);
    const post = await call(url, "POST", "/v1/memory/store", { key: "svc_ws_x", json: { text: "hello" } });
    expect(post.status).toBe(301);
    expect(post.headers.get("location")).toBe("https://brain.example.com/base/v1/memory/store");
    child.kill("SIGTERM");
  });
});

describe("binding", () => {
  it("plain HTTP on a non-loopback address is refused unless --insecure-http", async () => {
    const refused = await runCli(["serve", "--host", "0.0.0.0", "--port", "0", ...freshStore().storeArgs], { env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--insecure-http");
    expect(refused.stdout).not.toContain("listening");

    const { url, child } = await spawnServe(["--host", "0.0.0.0", "--port", "0", "--insecure-http", ...freshStore().storeArgs], env());
    running.push({ stop: async () => child.kill("SIGTERM") });
    const port = new URL(url).port;
    const res = await call(`http://127.0.0.1:${port}`, "GET", "/v1/status");
    expect(res.status).toBe(401);
    child.kill("SIGTERM");
  });

  it("serves HTTPS with --tls-cert/--tls-key, also on a non-loopback address", async () => {
    const { dir } = selfSignedCertificate("IP:127.0.0.1");
    const { url, child } = await spawnServe(
      [
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--tls-cert",
        join(dir, "cert.pem"),
        "--tls-key",
        join(dir, "key.pem"),
        ...freshStore().storeArgs,
      ],
      env(),
    );
    running.push({ stop: async () => child.kill("SIGTERM") });
    expect(url).toMatch(/^https:\/\//);
    const dispatcher = new Agent({ connect: { ca: readFileSync(join(dir, "cert.pem")) } });
    const res = await fetch(`https://127.0.0.1:${new URL(url).port}/v1/status`, { dispatcher } as unknown as RequestInit);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    await dispatcher.close();
    child.kill("SIGTERM");
  });
});

describe("shutdown", () => {
  it("SIGTERM stops accepting, finishes the in-flight store, then exits 0, and the memory is kept", async () => {
    const svc = await track(startService());
    const body = JSON.stringify({ text: "The fire drill is scheduled for the last Friday of the month." });
    const url = new URL("/v1/memory/store", svc.baseURL);
    let responseText = "";
    const req = request(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${svc.apiKey}`,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
      },
    });
    const answered = new Promise<number>((resolve, reject) => {
      req.on("response", (res) => {
        res.on("data", (d) => (responseText += d));
        res.on("end", () => resolve(res.statusCode!));
      });
      req.on("error", reject);
    });
    req.write(body.slice(0, 12));
    await sleep(300);
    svc.child.kill("SIGTERM");
    await sleep(300);
    // The listener is closed: a new connection is refused while the old request is still open.
    await expect(fetch(`${svc.baseURL}/v1/status`)).rejects.toThrow();
    req.end(body.slice(12));
    expect(await answered).toBe(200);
    const memoryId = JSON.parse(responseText).memory_id;
    expect(await svc.stop()).toEqual({ code: 0, signal: null });

    const again = await track(startService({ dbPath: svc.dbPath, noWorkspace: true }));
    const status = await call(again.baseURL, "GET", "/v1/status", { key: svc.apiKey });
    expect(status.json.memory_count).toBe(1);
    expect(await memoryIds(again, svc.workspaceId)).toContain(memoryId);
    await again.stop();
  });

  it("SIGTERM under load: every in-flight store answers 200, new connections are refused, and the process exits 0 within the grace period despite a body that never ends", async () => {
    // The load is the point here, not the key's rate limit: a quick machine outruns the default bucket.
    const unlimited = { BRAIN_RATE_LIMIT_RPS: "1000000", BRAIN_RATE_LIMIT_BURST: "1000000" };
    const svc = await track(startService({ env: { BRAIN_EMBEDDER: "lexical", ...unlimited } }));
    const facts = [
      "Ines waters the ferns on Mondays.",
      "The boiler was serviced in March.",
      "Otto keeps the spare router in the attic.",
      "The quarterly audit moved to the Oslo office.",
      "Priya's team owns the billing dashboards.",
      "The van's tyres were replaced last week.",
    ];
    const inFlight = facts.map((text) => storeInFlight(svc, text));
    const neverEnds = storeInFlight(svc, "This body is never finished by its client.");
    // three more clients calling status back to back, until the service stops taking connections
    const loaders = [0, 1, 2].map(async () => {
      const statuses: number[] = [];
      for (;;) {
        try {
          statuses.push((await call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey })).status);
        } catch {
          return statuses; // refused (or cut while closing): never an answer other than 200
        }
      }
    });
    await sleep(500);
    const signalled = Date.now();
    svc.child.kill("SIGTERM");
    await sleep(300);
    await expect(fetch(`${svc.baseURL}/v1/status`)).rejects.toThrow();
    for (const store of inFlight) store.finish();
    const answers = await Promise.all(inFlight.map((store) => store.answered));
    expect(answers.map((a) => a.status)).toEqual(facts.map(() => 200));
    for (const statuses of await Promise.all(loaders)) {
      expect(statuses.length).toBeGreaterThan(0);
      expect(new Set(statuses)).toEqual(new Set([200]));
    }

    expect(await svc.stop()).toEqual({ code: 0, signal: null });
    const tookMs = Date.now() - signalled;
    expect(tookMs).toBeLessThan(SHUTDOWN_GRACE_MS + 3_000);
    await expect(neverEnds.answered).rejects.toThrow(); // its connection was cut at the end of the grace period
    expect(svc.stderr()).toContain("shutdown timed out waiting for requests");
    const kept = await memoryIds(svc, svc.workspaceId);
    for (const a of answers) expect(kept).toContain(a.json.memory_id);
    expect(kept.size).toBe(facts.length);
  });

  it("kill -9 during a stream of writes loses no acknowledged write", async () => {
    const svc = await track(startService());
    const subjects = ["Ana", "Bruno", "Chen", "Dara", "Eli", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kemal", "Lena"];
    const things = [
      "owns a red bicycle",
      "is allergic to peanuts",
      "speaks fluent Portuguese",
      "leads the billing migration",
      "moved to Rotterdam last spring",
      "collects vintage cameras",
      "runs the Tuesday design review",
      "prefers window seats on flights",
      "maintains the CI runners",
      "studies marine biology at night",
    ];
    const acknowledged = new Set<number>();
    let n = 0;
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const i = n++;
        const text = `${subjects[i % subjects.length]} ${things[Math.floor(i / subjects.length) % things.length]} (note ${i}).`;
        try {
          const res = await call(svc.baseURL, "POST", "/v1/memory/store", { key: svc.apiKey, json: { text } });
          if (res.status === 200) acknowledged.add(res.json.memory_id);
        } catch {
          return; // the process is gone
        }
      }
    };
    const writers = [writer(), writer(), writer(), writer()];
    const started = Date.now();
    while (acknowledged.size < 25 && Date.now() - started < 20_000) await sleep(20);
    await svc.kill();
    killed = true;
    await Promise.all(writers);
    expect(acknowledged.size).toBeGreaterThan(0);

    const again = await track(startService({ dbPath: svc.dbPath, noWorkspace: true }));
    const present = await memoryIds(again, svc.workspaceId);
    const lost = [...acknowledged].filter((id) => !present.has(id));
    expect(lost).toEqual([]);
    const status = await call(again.baseURL, "GET", "/v1/status", { key: svc.apiKey });
    expect(status.json.memory_count).toBeGreaterThanOrEqual(acknowledged.size);
    await again.stop();
  });
});

describe("slow clients", () => {
  it("headers trickled forever, a connection that sends nothing and a body that never ends get 408 at their timeouts, while status keeps answering promptly", async () => {
    const svc = await track(startService({ env: { BRAIN_EMBEDDER: "lexical" } }));
    const slowloris = rawClient(svc, (socket) => {
      socket.write("POST /v1/memory/store HTTP/1.1\r\nHost: brain\r\n");
      const drip = setInterval(() => socket.writable && socket.write("X-Drip: 1\r\n"), 500);
      socket.on("close", () => clearInterval(drip));
    });
    const silent = rawClient(svc, () => undefined);
    const unfinishedBody = rawClient(svc, (socket) => {
      socket.write(
        "POST /v1/memory/store HTTP/1.1\r\nHost: brain\r\n" +
          `Authorization: Bearer ${svc.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text": "Half a`,
      );
    });
    const all = Promise.all([slowloris, silent, unfinishedBody]);
    const load = await statusLoad(svc, all);
    const [trickled, nothing, body] = await all;

    for (const cut of [trickled, nothing]) {
      expect(cut.received).toMatch(/^HTTP\/1\.1 408 /);
      expect(cut.afterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 1_000);
      expect(cut.afterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 3_000);
    }
    expect(body.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(body.afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 1_000);
    expect(body.afterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 3_000);

    expect(load.statuses.length).toBeGreaterThan(20);
    expect(new Set(load.statuses)).toEqual(new Set([200]));
    expect(load.slowestMs).toBeLessThan(2_000);
    // the cut-off store is logged as the client's failure, not the store's, and wrote nothing (the log line may follow
    // the client's 408 by a moment: the handler learns of the cut when the socket closes)
    const logged = /"route":"store","status":408,.*"error_code":"request_timeout"/;
    for (const until = Date.now() + 5_000; !logged.test(svc.stderr()) && Date.now() < until; ) await sleep(50);
    expect(svc.stderr()).toMatch(logged);
    expect(svc.stderr()).not.toContain("store_unavailable");
    const status = await call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey });
    expect(status.json.memory_count).toBe(0);
    await svc.stop();
  });
});

describe("missing optional packages", () => {
  // A preload that makes the named packages unresolvable, as after `npm install --omit=optional`.
  function hide(packages: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), "brain-hide-"));
    const list = JSON.stringify(packages);
    writeFileSync(
      join(dir, "hooks.mjs"),
      `const hidden = ${list};
export async function resolve(specifier, context, next) {
  if (hidden.some((p) => specifier === p || specifier.startsWith(p + "/"))) {
    const err = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    err.code = "ERR_MODULE_NOT_FOUND";
    throw err;
  }
  return next(specifier, context);
}`,
    );
    writeFileSync(
      join(dir, "preload.mjs"),
      `import { register, createRequire } from "node:module";
import Module from "node:module";

register(${JSON.stringify(new URL(`file://${join(dir, "hooks.mjs")}`).href)});
const hidden = ${list};
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hidden.some((p) => request === p || request.startsWith(p + "/"))) {
    const err = new Error("Cannot find module '" + request + "'");
    err.code = "MODULE_NOT_FOUND";
    throw err;
  }
  return original.call(this, request, ...rest);
};`,
    );
    return join(dir, "preload.mjs");
  }

  it("serve without hono says exactly what to install and exits non-zero", async () => {
    const preload = hide(["hono", "@hono/node-server"]);
    const res = await runCli(["serve", "--port", "0", ...freshStore().storeArgs], {
      env: env({ NODE_OPTIONS: `--import ${preload}` }),
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("npm install hono @hono/node-server");
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  it.skipIf(TEST_DATABASE_URL)("serve without better-sqlite3 says exactly what to install and exits non-zero", async () => {
    const preload = hide(["better-sqlite3"]);
    const res = await runCli(["serve", "--port", "0", ...freshStore().storeArgs], {
      env: env({ NODE_OPTIONS: `--import ${preload}` }),
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("npm install better-sqlite3");
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});
