// `brain-mcp ui` over real HTTP: the session token, the cookie it becomes, the Host check, read-only answers, and
// JSON that agrees with the service's own API on a store the real `serve` filled. Never a key, its hash or prefix.
// Runs on SQLite, and on PostgreSQL in the service suite's PostgreSQL run (test/postgres/vitest.service.config.ts).
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../src/contract/wire.js";
import { baseEnv, call, freshDatabase, runCli, startService, usageCounts, type ServiceHandle } from "../support/service.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";
import { fillThroughService, MEMORIES, OVERLONG, rawGet, startUi, type UiHandle } from "./support.js";

/** The session's CSRF token, as the page reads it. */
async function csrfToken(): Promise<string> {
  return (await rawGet(ui.port, "/api/session", { cookie: ui.cookie })).json.csrf_token;
}

/** A change as the dashboard's page sends it: POST, its own Origin, the session's cookie and CSRF token. */
async function post(path: string, body?: unknown, headers: Record<string, string> = {}) {
  const sent = {
    cookie: ui.cookie,
    origin: `http://127.0.0.1:${ui.port}`,
    "x-csrf-token": await csrfToken(),
    ...(body === undefined ? {} : { "content-type": "application/json" }),
    ...headers,
  };
  return rawGet(ui.port, path, sent, "POST", body === undefined ? undefined : JSON.stringify(body));
}

let service: ServiceHandle;
let ui: UiHandle;
let stored: Record<string, any>[];
/** Every body the dashboard answered, checked at the end for key material. */
const seen: string[] = [];

/** Webhooks may reach the test receiver on 127.0.0.1; an endpoint is disabled after 2 failures in a row. */
const HOOKS_ENV: NodeJS.ProcessEnv = {
  BRAIN_WEBHOOK_ALLOW_PRIVATE: "1",
  BRAIN_WEBHOOK_DISABLE_AFTER_FAILURES: "2",
  BRAIN_WEBHOOK_DISABLE_AFTER_HOURS: "0",
  BRAIN_WEBHOOK_TIMEOUT_MS: "2000",
};
let receiver: Receiver;

beforeAll(async () => {
  const env = { ...HOOKS_ENV, ...(await freshDatabase("ui_server")) };
  [service, receiver] = await Promise.all([startService({ env }), startReceiver()]);
  stored = await fillThroughService(service);
  ui = await startUi(service.storeArgs, baseEnv(env));
}, 120_000);

afterAll(async () => {
  await ui?.stop();
  await service?.stop();
  await receiver?.close();
});

const ws = () => service.workspaceId;
async function get(path: string, headers: Record<string, string> = {}) {
  const res = await rawGet(ui.port, path, { cookie: ui.cookie, ...headers });
  seen.push(res.text);
  return res;
}

describe("the session token", () => {
  it("the printed URL is on 127.0.0.1 and its token is 32 random bytes, base64url", () => {
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(ui.token, "base64url")).toHaveLength(32);
  });

  it("the first visit trades the token for an HttpOnly SameSite=Strict cookie and drops it from the address", async () => {
    const first = await rawGet(ui.port, `/?token=${ui.token}`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe("/");
    const cookie = String(first.headers["set-cookie"]);
    expect(cookie).toContain(`brain_ui_${ui.port}=${ui.token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await get("/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    expect(page.text).toContain('<script type="module" src="/app.js">');
    expect(String(page.headers["content-security-policy"])).toContain("default-src 'none'");
  });

  it("without a token or cookie, the page, the bundle and every JSON endpoint are 401", async () => {
    for (const path of ["/", "/app.js", "/api/workspaces", `/api/workspaces/${ws()}/memories`, `/api/workspaces/${ws()}/health`]) {
      const res = await rawGet(ui.port, path);
      expect(res.status, path).toBe(401);
      expect(res.text).not.toContain("memor"); // no data in a refusal
    }
  });

  it("a wrong token is 403 and sets no cookie; a wrong or foreign cookie is 401", async () => {
    const wrong = await rawGet(ui.port, `/?token=${"A".repeat(43)}`);
    expect(wrong.status).toBe(403);
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    expect((await rawGet(ui.port, "/api/workspaces", { cookie: `brain_ui_${ui.port}=${ui.token.slice(1)}x` })).status).toBe(401);
    // the right token under another port's cookie name is another session's
    expect((await rawGet(ui.port, "/api/workspaces", { cookie: `brain_ui_1=${ui.token}` })).status).toBe(401);
    // a token in the query of a JSON request is checked too, never ignored
    expect((await rawGet(ui.port, `/api/workspaces?token=nope`, { cookie: ui.cookie })).status).toBe(403);
  });

  it("a foreign Host header is refused even with the session's cookie (DNS rebinding); localhost is fine", async () => {
    for (const host of [`evil.example:${ui.port}`, "evil.example", `127.0.0.1:${ui.port + 1}`, `127.0.0.1.evil.example:${ui.port}`]) {
      const res = await rawGet(ui.port, "/api/workspaces", { cookie: ui.cookie, host });
      expect(res.status, host).toBe(403);
      expect(res.text).not.toContain(service.apiKey);
    }
    expect((await rawGet(ui.port, `/?token=${ui.token}`, { host: `evil.example:${ui.port}` })).headers["set-cookie"]).toBeUndefined();
    expect((await get("/api/workspaces", { host: `localhost:${ui.port}` })).status).toBe(200);
  });

  it("reads are GET and changes POST: PUT, PATCH and DELETE are 405", async () => {
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      expect((await rawGet(ui.port, "/api/workspaces", { cookie: ui.cookie }, method)).status).toBe(405);
    }
  });

  it("refuses to listen beyond loopback unless told, before opening any store", async () => {
    const refused = await runCli(["ui", "--host", "0.0.0.0", "--db", "/nonexistent/dir/brain.db"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--allow-remote");
    expect(refused.stdout).toBe("");
    const badPort = await runCli(["ui", "--port", "70000"]);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain("--port must be 0..65535");
  });
});

describe("what the dashboard reads", () => {
  it("lists the workspace with its status, plan, counts and the quality score the service's health gives", async () => {
    const health = await call(service.baseURL, "GET", ROUTES.health.path, { key: service.apiKey });
    const res = await get("/api/workspaces");
    const mine = res.json.workspaces.find((w: any) => w.id === ws());
    expect(mine).toMatchObject({
      name: "primary",
      status: "active",
      plan: "free",
      billing_cycle: "monthly",
      memories: stored.length,
      live_keys: 1,
      writes: stored.length,
      quality_score: health.json.quality_score,
    });
    expect((await get(`/api/workspaces/${ws()}`)).json).toEqual(mine);
  });

  it("searches with the service's own retrieval: the same ranking, scores and similarities, and no recall is counted", async () => {
    const query = "how do we roll back a deploy?";
    const before = await usageCounts(service, ws());
    const search = await get(`/api/workspaces/${ws()}/memories?q=${encodeURIComponent(query)}`);
    expect(search.status).toBe(200);
    const hits = search.json.memories;
    expect(hits[0].text).toBe(MEMORIES[1]);
    // The dashboard is not an agent: its searches leave recall counts, recency and "never retrieved" alone.
    expect(await usageCounts(service, ws())).toEqual(before);
    expect(hits.every((h: any) => h.access_count === 0 && h.last_accessed_at === null)).toBe(true);

    const api = await call(service.baseURL, "POST", ROUTES.retrieve.path, { key: service.apiKey, json: { query, top_k: 50 } });
    expect(hits.map((h: any) => [h.id, h.similarity])).toEqual(api.json.memories.map((m: any) => [m.id, m.similarity]));
    // Scores decay with the time between the two searches (recency), by far less than 1e-5.
    hits.forEach((h: any, i: number) => expect(h.score).toBeCloseTo(api.json.memories[i].score, 5));
  });

  it("filters by category, temporal type, importance and age as the store holds the memories", async () => {
    const domain = stored[0]!.categories[0] as string;
    const withDomain = stored
      .filter((s) => s.categories.includes(domain))
      .map((s) => s.memory_id)
      .sort();
    const byCategory = await get(`/api/workspaces/${ws()}/memories?category=${encodeURIComponent(domain)}`);
    expect(byCategory.json.total).toBe(withDomain.length);
    expect(byCategory.json.memories.map((m: any) => m.id).sort()).toEqual(withDomain);

    const timeBound = stored
      .filter((s) => s.temporal.type === "time_bound")
      .map((s) => s.memory_id)
      .sort();
    expect(timeBound.length).toBeGreaterThan(0);
    const byTemporal = await get(`/api/workspaces/${ws()}/memories?temporal=time_bound`);
    expect(byTemporal.json.memories.map((m: any) => m.id).sort()).toEqual(timeBound);

    const important = stored
      .filter((s) => s.importance >= 7)
      .map((s) => s.memory_id)
      .sort();
    const byImportance = await get(`/api/workspaces/${ws()}/memories?min_importance=7`);
    expect(byImportance.json.memories.map((m: any) => m.id).sort()).toEqual(important);

    expect((await get(`/api/workspaces/${ws()}/memories?age=day`)).json.total).toBe(stored.length);
    expect((await get(`/api/workspaces/${ws()}/memories?age=older-month`)).json.total).toBe(0);

    // a search narrowed by a filter keeps the retrieval's order
    const narrowed = await get(`/api/workspaces/${ws()}/memories?q=deploy&category=${encodeURIComponent(domain)}`);
    expect(narrowed.json.memories.every((m: any) => m.categories.includes(domain))).toBe(true);
    const scores = narrowed.json.memories.map((m: any) => m.score);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
  });

  it("pages the list newest first, 25 at a time", async () => {
    const all = await get(`/api/workspaces/${ws()}/memories`);
    expect(all.json.total).toBe(stored.length);
    const ids = all.json.memories.map((m: any) => m.id);
    expect(ids).toEqual([...stored.map((s) => s.memory_id)].reverse());
    const second = await get(`/api/workspaces/${ws()}/memories?offset=15`);
    expect(second.json.memories.map((m: any) => m.id)).toEqual(ids.slice(15));
  });

  it("opens one memory with its judgement, times and meta", async () => {
    const s = stored[2]!;
    const res = await get(`/api/workspaces/${ws()}/memories/${s.memory_id}`);
    expect(res.json).toMatchObject({
      id: s.memory_id,
      text: MEMORIES[2],
      importance: s.importance,
      categories: s.categories,
      temporal: s.temporal,
      meta: { source: "ui-test" },
      characters: MEMORIES[2].length,
      expired: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
  });

  it("health and its lists agree with the service's health; charts count what was stored and recalled", async () => {
    const api = await call(service.baseURL, "GET", ROUTES.health.path, { key: service.apiKey });
    const health = await get(`/api/workspaces/${ws()}/health`);
    expect(health.json.signals).toEqual(api.json.signals);
    expect(health.json.quality_score).toBe(api.json.quality_score);
    expect(health.json.signals.overlong_memories).toBe(1);
    expect(health.json.recommendations.map((r: any) => r.code)).toContain("overlong_memories");
    const overlong = await get(`/api/workspaces/${ws()}/health/overlong`);
    expect(overlong.json.total).toBe(1);
    expect(overlong.json.memories[0]).toMatchObject({ text: OVERLONG, characters: OVERLONG.length });
    for (const list of ["stale", "never_retrieved"]) {
      const res = await get(`/api/workspaces/${ws()}/health/${list}`);
      expect(res.status).toBe(200);
      expect(res.json.total).toBe(0); // all fresh and younger than 7 days
    }
    expect((await get(`/api/workspaces/${ws()}/health/duplicates`)).json.pairs).toEqual([]);

    const stats = (await get(`/api/workspaces/${ws()}/stats`)).json;
    expect(stats.createdPerDay.reduce((n: number, d: any) => n + d.count, 0)).toBe(stored.length);
    expect(stats.importance.reduce((n: number, d: any) => n + d.count, 0)).toBe(stored.length);
    const labels = stored.flatMap((s) => s.categories);
    expect(stats.categories.reduce((n: number, d: any) => n + d.count, 0)).toBe(labels.length);
    expect(stats.categories[0].count).toBe(Math.max(...stats.categories.map((c: any) => c.count)));
    const { read } = await usageCounts(service, ws());
    expect(stats.recallsPerDay.reduce((n: number, d: any) => n + d.count, 0)).toBe(read);
  });

  it("bad parameters are 400 naming the parameter; unknown workspaces, memories and lists are 404", async () => {
    expect((await get(`/api/workspaces/${ws()}/memories?temporal=forever`)).json.error).toContain("temporal");
    expect((await get(`/api/workspaces/${ws()}/memories?min_importance=11`)).status).toBe(400);
    expect((await get(`/api/workspaces/${ws()}/memories?age=decade`)).json.error).toContain("age");
    expect((await get(`/api/workspaces/${ws()}/memories?offset=-1`)).status).toBe(400);
    expect((await get(`/api/workspaces/${ws()}/memories?q=${"x".repeat(2001)}`)).status).toBe(400);
    expect((await get("/api/workspaces/999999")).status).toBe(404);
    expect((await get("/api/workspaces/999999/memories")).status).toBe(404);
    expect((await get(`/api/workspaces/${ws()}/memories/999999`)).status).toBe(404);
    expect((await get(`/api/workspaces/${ws()}/health/everything`)).status).toBe(404);
    expect((await get("/api/keys")).status).toBe(404);
  });

  it("no answer here ever held the workspace's key, its hash or its prefix", () => {
    const hash = createHash("sha256").update(service.apiKey).digest("hex");
    const all = seen.join("\n");
    expect(seen.length).toBeGreaterThan(20);
    for (const secret of [service.apiKey, hash, service.apiKey.slice(0, 11)]) expect(all).not.toContain(secret);
    expect(ui.stdout() + ui.stderr()).not.toContain(service.apiKey);
  });
});

describe("the workspace owner's controls (POST with the session's Origin and CSRF token)", () => {
  const keysOf = async () => (await rawGet(ui.port, `/api/workspaces/${ws()}/keys`, { cookie: ui.cookie })).json.keys as any[];
  const status = (key: string) => call(service.baseURL, "GET", ROUTES.status.path, { key });

  it("refuses a change without the CSRF token, with a wrong one, from a foreign or no Origin, or under a forged Host; nothing changes", async () => {
    const before = await keysOf();
    const path = `/api/workspaces/${ws()}/keys`;
    const refusals: [string, Record<string, string>][] = [
      ["no CSRF token", { "x-csrf-token": "" }],
      ["a wrong CSRF token", { "x-csrf-token": "A".repeat(43) }],
      ["a foreign Origin", { origin: "http://evil.example" }],
      ["another port's Origin", { origin: `http://127.0.0.1:${ui.port + 1}` }],
      ["no Origin", { origin: "" }],
      ["a forged Host", { host: `evil.example:${ui.port}`, origin: `http://evil.example:${ui.port}` }],
    ];
    for (const [what, headers] of refusals) {
      const res = await post(path, undefined, headers);
      expect(res.status, what).toBe(403);
      expect(res.text, what).not.toContain("svc_");
    }
    // without the cookie a change is not even considered
    expect((await post(path, undefined, { cookie: "" })).status).toBe(401);
    expect(await keysOf()).toEqual(before);
    // a GET never changes anything, whatever it is sent to
    expect((await rawGet(ui.port, `${path}/1/revoke`, { cookie: ui.cookie })).status).toBe(404);
  });

  it("lists the workspace's keys: id, prefix, created, last used, revoked; never a key or its hash", async () => {
    const keys = await keysOf();
    expect(keys).toEqual([
      {
        id: service.keyId,
        prefix: service.apiKey.slice(0, 11),
        created_at: expect.stringMatching(/Z$/),
        last_used_at: expect.stringMatching(/Z$/), // the fill used it
        revoked_at: null,
      },
    ]);
    const text = JSON.stringify(keys);
    expect(text).not.toContain(service.apiKey);
    expect(text).not.toContain(createHash("sha256").update(service.apiKey).digest("hex"));
  });

  it("creates a key shown once, usable at once through the API; revoking it is a 401 at once", async () => {
    const created = await post(`/api/workspaces/${ws()}/keys`);
    expect(created.status).toBe(201);
    expect(created.headers["cache-control"]).toBe("no-store");
    const { key, id } = created.json;
    expect(key).toMatch(/^svc_ws_[0-9A-Za-z]{32}$/);
    expect((await status(key)).status).toBe(200);
    const listed = (await keysOf()).find((k) => k.id === id);
    expect(listed).toMatchObject({ prefix: key.slice(0, 11), revoked_at: null });
    expect(JSON.stringify(await keysOf())).not.toContain(key);

    const revoked = await post(`/api/workspaces/${ws()}/keys/${id}/revoke`);
    expect(revoked.status).toBe(200);
    expect((await status(key)).status).toBe(401);
    expect((await keysOf()).find((k) => k.id === id)!.revoked_at).toMatch(/Z$/);
    // revoked twice, another workspace's key, or an unknown one: 404, and the workspace's own key still works
    expect((await post(`/api/workspaces/${ws()}/keys/${id}/revoke`)).status).toBe(404);
    const other = await service.newWorkspace("someone else");
    expect((await post(`/api/workspaces/${ws()}/keys/${other.keyId}/revoke`)).status).toBe(404);
    expect((await status(other.apiKey)).status).toBe(200);
    expect((await status(service.apiKey)).status).toBe(200);
    // the new key reached no log
    expect(ui.stdout() + ui.stderr() + service.stdout() + service.stderr()).not.toContain(key);
  });

  it("forgets the memories asked: gone from the API's recall and health at once, and from the dashboard", async () => {
    const query = "who is allergic to peanuts?";
    const target = stored[4]!.memory_id;
    const recall = async () =>
      (await call(service.baseURL, "POST", ROUTES.retrieve.path, { key: service.apiKey, json: { query, top_k: 50 } })).json.memories.map(
        (m: any) => m.id,
      );
    expect(await recall()).toContain(target);
    const res = await post(`/api/workspaces/${ws()}/memories/forget`, { ids: [target, 999_999] });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ forgotten: [target] });
    expect(await recall()).not.toContain(target);
    const health = await call(service.baseURL, "GET", ROUTES.health.path, { key: service.apiKey });
    expect(health.json.signals.total_memories).toBe(stored.length - 1);
    expect((await get(`/api/workspaces/${ws()}/memories/${target}`)).status).toBe(404);
    expect((await get(`/api/workspaces/${ws()}/memories`)).json.total).toBe(stored.length - 1);
    expect((await get(`/api/workspaces/${ws()}`)).json.memories).toBe(stored.length - 1);
    expect(ui.stderr()).toContain("dashboard forgot memories");
    expect(ui.stdout() + ui.stderr()).not.toContain("peanuts"); // the forgotten text reached no log
  });

  it("a forget request names 1 to 100 positive integer ids in a JSON body; anything else is 400 and forgets nothing", async () => {
    for (const body of [{}, { ids: [] }, { ids: ["1"] }, { ids: [0] }, { ids: Array.from({ length: 101 }, (_, i) => i + 1) }]) {
      expect((await post(`/api/workspaces/${ws()}/memories/forget`, body)).status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    expect((await post(`/api/workspaces/${ws()}/memories/forget`)).status).toBe(400);
    expect((await get(`/api/workspaces/${ws()}/memories`)).json.total).toBe(stored.length - 1);
  });

  it("shows billable writes and reads per day and per billing cycle, as the service recorded them", async () => {
    const counts = await usageCounts(service, ws());
    const usage = (await get(`/api/workspaces/${ws()}/usage`)).json;
    expect(usage.billing_cycle).toBe("monthly");
    const sum = (rows: any[], kind: "write" | "read") => rows.reduce((n, r) => n + r[kind], 0);
    expect(sum(usage.days, "write")).toBe(counts.write);
    expect(sum(usage.days, "read")).toBe(counts.read);
    expect(counts.write).toBe(stored.length);
    // the billing webhooks' own cycle (anchored at the workspace's creation), counted over the same bounds
    const workspace = (await get(`/api/workspaces/${ws()}`)).json;
    const { billingCycleAt } = await import("../../src/service/webhooks/cycle.js");
    const cycle = billingCycleAt("monthly", Date.parse(workspace.created_at), Date.now());
    const current = usage.cycles.at(-1);
    expect([current.start, current.end]).toEqual([cycle.start, cycle.end]);
    expect(current.start).toBeLessThanOrEqual(Date.now());
    expect(current.end).toBeGreaterThan(Date.now());
    expect([current.write, current.read]).toEqual([counts.write, counts.read]);
    expect((await get("/api/workspaces/999999/usage")).status).toBe(404);
  });
});

describe("webhooks in the workspace's settings", () => {
  const hooks = () => `/api/workspaces/${ws()}/webhooks`;
  const endpoints = async (workspace = ws()) => (await get(`/api/workspaces/${workspace}/webhooks`)).json.endpoints as any[];
  const deliveries = async (id: number) => (await get(`${hooks()}/${id}/deliveries`)).json.deliveries as any[];
  const secrets: string[] = [];
  let endpointId: number;

  it("adds an endpoint and shows its secret once; a test event reaches the receiver signed with it and is logged delivered", async () => {
    const added = await post(hooks(), { url: receiver.url, events: ["lifecycle", "anomaly.auth_failures"] });
    expect(added.status).toBe(201);
    expect(added.headers["cache-control"]).toBe("no-store");
    const { id, secret } = added.json;
    expect(added.json).toMatchObject({
      workspace_id: ws(),
      url: receiver.url,
      events: ["lifecycle", "anomaly.auth_failures"],
      disabled: false,
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    secrets.push(secret);
    endpointId = id;
    const listed = await endpoints();
    expect(listed).toEqual([expect.objectContaining({ id, url: receiver.url, disabled: false, failure_streak: 0 })]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    receiver.setSecret(secret);
    const tested = await post(`${hooks()}/${id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.json).toMatchObject({ id, delivered: true, status_code: 204 });
    const [message] = await receiver.waitFor((all) => all.some((m) => m.id === tested.json.msg_id));
    expect(message).toMatchObject({ id: tested.json.msg_id, type: "webhook.test" });
    expect(message!.data).toMatchObject({ workspace_id: ws(), endpoint_id: id });
    expect(message!.verified).toBe(true);
    const log = await deliveries(id);
    expect(log[0]).toMatchObject({
      msg_id: tested.json.msg_id,
      type: "webhook.test",
      status: "delivered",
      attempts: 1,
      last_status_code: 204,
    });
  });

  it("rotates the secret: shown once, and the next delivery is signed with the new secret, not the old", async () => {
    const rotated = await post(`${hooks()}/${endpointId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const { secret } = rotated.json;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(secrets[0]);
    secrets.push(secret);
    const tested = await post(`${hooks()}/${endpointId}/test`);
    expect(tested.json.delivered).toBe(true);
    const message = receiver.received.find((m) => m.id === tested.json.msg_id)!;
    expect(message.verified).toBe(false); // the receiver knows only the old secret so far
    receiver.setSecret(secret);
    expect(message.verified).toBe(true);
    expect(JSON.stringify(await endpoints())).not.toContain(secret);
  });

  it("a receiver that fails is shown failing, then disabled; a test is refused until it is enabled again", async () => {
    receiver.respond(() => ({ status: 500 }));
    try {
      const failed = await post(`${hooks()}/${endpointId}/test`);
      expect(failed.status).toBe(200);
      expect(failed.json).toMatchObject({ id: endpointId, delivered: false });
      expect(failed.json.error).toContain("500");
      await post(`${hooks()}/${endpointId}/test`);
      expect((await endpoints())[0]).toMatchObject({ id: endpointId, disabled: true, disabled_reason: expect.any(String) });
      const refused = await post(`${hooks()}/${endpointId}/test`);
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatch(/disabled/);
      expect((await deliveries(endpointId)).filter((d) => d.last_status_code === 500).length).toBeGreaterThanOrEqual(2);
    } finally {
      receiver.respond(() => ({ status: 204 }));
    }
    expect((await post(`${hooks()}/${endpointId}/enable`)).json).toEqual({ id: endpointId, enabled: true });
    expect((await endpoints())[0]).toMatchObject({ disabled: false, failure_streak: 0 });
    expect((await post(`${hooks()}/${endpointId}/test`)).json.delivered).toBe(true);
  });

  it("refuses a bad URL, an unsafe target or an unknown event with a 400 that says why, and adds nothing", async () => {
    const before = await endpoints();
    const cases: [unknown, RegExp][] = [
      [{ url: "ftp://127.0.0.1/hook" }, /must be https/],
      [{ url: "not a url" }, /not a valid absolute URL/],
      [{ url: "https://user:pass@127.0.0.1/hook" }, /user name or password/],
      [{ url: "http://93.184.215.14/hook" }, /plain http is allowed only to private addresses/],
      [{ url: receiver.url, events: ["lifecycle", "nope"] }, /unknown webhook category or event type "nope"/],
      [{ url: receiver.url, events: "lifecycle" }, /list of categories/],
      [{ events: ["lifecycle"] }, /send a JSON body/],
      [{ url: `https://example.com/${"a".repeat(2_100)}` }, /at most 2048 characters/],
    ];
    for (const [body, message] of cases) {
      const res = await post(hooks(), body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.json.error).toMatch(message);
      expect(res.text).not.toContain("pass@"); // a credential in a refused URL is not echoed
    }
    expect((await post(hooks())).status).toBe(400);
    expect(await endpoints()).toEqual(before);
  });

  it("another workspace's endpoint is, from this workspace, no endpoint: every action is 404 and changes nothing", async () => {
    const other = await service.newWorkspace("hooks elsewhere");
    const theirs = await post(`/api/workspaces/${other.workspaceId}/webhooks`, { url: receiver.url });
    expect(theirs.status).toBe(201);
    const id = theirs.json.id;
    for (const action of ["test", "rotate-secret", "enable", "remove"]) {
      expect((await post(`${hooks()}/${id}/${action}`)).status, action).toBe(404);
    }
    expect((await get(`${hooks()}/${id}/deliveries`)).status).toBe(404);
    expect((await endpoints(other.workspaceId)).map((e) => e.id)).toEqual([id]);
    expect((await endpoints()).map((e) => e.id)).not.toContain(id);
    // unknown endpoints and unknown actions
    expect((await post(`${hooks()}/999999/test`)).status).toBe(404);
    expect((await post(`${hooks()}/${endpointId}/explode`)).status).toBe(404);
    // a change needs the CSRF token here as everywhere
    expect((await post(`${hooks()}/${endpointId}/remove`, undefined, { "x-csrf-token": "" })).status).toBe(403);
  });

  it("removes an endpoint with its delivery log; no secret reached a log or another answer", async () => {
    expect((await post(`${hooks()}/${endpointId}/remove`)).json).toEqual({ id: endpointId, removed: true });
    expect((await endpoints()).map((e) => e.id)).not.toContain(endpointId);
    expect((await get(`${hooks()}/${endpointId}/deliveries`)).status).toBe(404);
    expect((await post(`${hooks()}/${endpointId}/remove`)).status).toBe(404);
    const logs = ui.stdout() + ui.stderr() + service.stdout() + service.stderr();
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(secret.slice("whsec_".length));
      for (const text of seen) expect(text).not.toContain(secret);
    }
    expect(ui.stderr()).toContain("dashboard added a webhook endpoint");
  });
});
