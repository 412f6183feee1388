// The dashboard's HTTP edge: its bundled page (dist/ui/) and JSON under /api/, for one person on this machine. Every
// request must name an allowed Host (no DNS rebinding) and carry the session's token, first in the printed URL, then
// in an HttpOnly SameSite=Strict cookie. Reads are GET; every change is a POST that must also come from the
// dashboard's own Origin and carry this session's CSRF token (header X-CSRF-Token, read from GET /api/session).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono, type Context } from "hono";
import { QUERY_MAX_CHARS, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../../contract/limits.js";
import { isStoreUnavailable } from "../http/errors.js";
import { ServiceError, type ServiceLog } from "../types.js";
import { HEALTH_LISTS } from "./choices.js";
import { parseMemoryRequest, parseOffset, type Dashboard } from "./data.js";
import type { DashboardWebhooks } from "./webhooks.js";
import { WebhookRequestError } from "../webhooks/admin.js";

/** Bytes of randomness in a session token (base64url in the printed URL). */
export const UI_TOKEN_BYTES = 32;

/** The bundled front end, built by test/build/bundle.js next to tsc's output. */
export const UI_ASSETS_DIR = fileURLToPath(new URL("../../ui/", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

// Everything from this origin only: no CDN, no inline script, no framing.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Header carrying the CSRF token on every POST. */
export const CSRF_HEADER = "x-csrf-token";
/** Most memories one forget request may name (a search shows at most TOP_K_MAX). */
export const FORGET_IDS_MAX = 100;
/** Longest webhook URL accepted from the dashboard. */
export const WEBHOOK_URL_MAX = 2_048;
/** Largest POST body read (a forget request's ids, a new webhook endpoint). */
const BODY_MAX_BYTES = 16_384;

export function newUiToken(): string {
  return randomBytes(UI_TOKEN_BYTES).toString("base64url");
}

/** Equal-time comparison of two strings of any length (hashed first, so lengths leak nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export interface UiAppOptions {
  dashboard: Dashboard;
  webhooks: DashboardWebhooks;
  token: string;
  /** The Host header values accepted, e.g. `127.0.0.1:8788` and `localhost:8788`. */
  allowedHosts: readonly string[];
  /** The session cookie's name (per port: browsers share cookies across a host's ports). */
  cookieName: string;
  log: ServiceLog;
  assetsDir?: string;
}

function readAssets(dir: string): Map<string, { body: Buffer; type: string }> {
  const assets = new Map<string, { body: Buffer; type: string }>();
  for (const name of readdirSync(dir)) {
    const type = CONTENT_TYPES[extname(name)];
    if (type) assets.set(`/${name}`, { body: readFileSync(join(dir, name)), type });
  }
  if (!assets.has("/index.html")) throw new Error(`the dashboard's page is missing from ${dir}: run \`npm run build\``);
  return assets;
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A POST's JSON body, at most BODY_MAX_BYTES; undefined when absent, too large or not JSON. */
async function readJson(c: Context): Promise<unknown> {
  if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) return undefined;
  if (Number(c.req.header("content-length") ?? 0) > BODY_MAX_BYTES) return undefined;
  const text = await c.req.text();
  if (Buffer.byteLength(text) > BODY_MAX_BYTES) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `{"ids": [positive integers]}`, 1 to FORGET_IDS_MAX of them; otherwise the message saying what is wrong. */
export function forgetIds(body: unknown): number[] | string {
  const ids = (body as { ids?: unknown } | undefined)?.ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > FORGET_IDS_MAX) {
    return `send a JSON body {"ids": [...]} with 1 to ${FORGET_IDS_MAX} memory ids`;
  }
  if (!ids.every((x) => Number.isSafeInteger(x) && x > 0)) return "memory ids are positive integers";
  return ids as number[];
}

/** `{"url": "https://…", "events": ["lifecycle", "anomaly.auth_failures", …]}` (no events: every event). */
export function newWebhook(body: unknown): { url: string; events: string[] } | string {
  const { url, events = [] } = (body ?? {}) as { url?: unknown; events?: unknown };
  if (typeof url !== "string" || url.trim() === "" || url.length > WEBHOOK_URL_MAX) {
    return `send a JSON body {"url": "https://…", "events": [...]} with a URL of at most ${WEBHOOK_URL_MAX} characters`;
  }
  if (!Array.isArray(events) || !events.every((e) => typeof e === "string")) return "events is a list of categories and event types";
  return { url: url.trim(), events: events as string[] };
}

export function createUiApp(options: UiAppOptions): Hono {
  const { dashboard, webhooks, token, cookieName, log } = options;
  const allowedHosts = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  const allowedOrigins = new Set([...allowedHosts].map((h) => `http://${h}`));
  // Per session: a page that cannot read this origin's answers (same-origin policy) cannot learn it.
  const csrfToken = newUiToken();
  const assets = readAssets(options.assetsDir ?? UI_ASSETS_DIR);
  const app = new Hono();

  const refuse = (c: Context, status: 401 | 403 | 405, message: string) => c.text(message, status, { "Cache-Control": "no-store" });

  app.use("*", async (c, next) => {
    // A page on another site that rebinds its name to 127.0.0.1 still sends its own name as Host.
    if (!allowedHosts.has((c.req.header("host") ?? "").toLowerCase())) return refuse(c, 403, "Forbidden: unexpected Host header.");
    const changing = c.req.method !== "GET" && c.req.method !== "HEAD";
    if (changing && c.req.method !== "POST") return refuse(c, 405, "Reads are GET and changes are POST.");
    const url = new URL(c.req.url);
    const offered = url.searchParams.get("token");
    if (offered !== null) {
      if (!sameSecret(offered, token)) {
        log.warn("dashboard request with a wrong token", { path: url.pathname });
        return refuse(c, 403, "Forbidden: this link's token is not this session's. Open the URL `brain-mcp ui` printed.");
      }
      // Trade the token for a cookie, and take it out of the address bar and history.
      url.searchParams.delete("token");
      c.header("Set-Cookie", `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`);
      c.header("Cache-Control", "no-store");
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    const cookie = readCookie(c.req.header("cookie"), cookieName);
    if (cookie === undefined || !sameSecret(cookie, token)) {
      return refuse(c, 401, "Unauthorized: open the URL `brain-mcp ui` printed (it carries this session's token).");
    }
    if (changing) {
      // A cross-site form or script sends its own Origin (or none) and cannot read the CSRF token.
      const origin = (c.req.header("origin") ?? "").toLowerCase();
      if (!allowedOrigins.has(origin)) {
        log.warn("dashboard change refused: foreign or missing Origin", { path: url.pathname });
        return refuse(c, 403, "Forbidden: changes are accepted only from the dashboard's own page.");
      }
      if (!sameSecret(c.req.header(CSRF_HEADER) ?? "", csrfToken)) {
        log.warn("dashboard change refused: missing or wrong CSRF token", { path: url.pathname });
        return refuse(c, 403, "Forbidden: this change lacks the session's CSRF token; reload the dashboard and try again.");
      }
    }
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Content-Security-Policy", CSP);
    c.header("Cache-Control", "no-store");
  });

  const id = (raw: string | undefined) => (raw !== undefined && /^[1-9][0-9]{0,14}$/.test(raw) ? Number(raw) : null);
  const notFound = (c: Context, what: string) => c.json({ error: `${what} not found` }, 404);
  const badRequest = (c: Context, message: string) => c.json({ error: message }, 400);

  app.get("/api/session", (c) => c.json({ csrf_token: csrfToken }));

  app.get("/api/workspaces", async (c) => c.json({ workspaces: await dashboard.workspaces() }));

  app.get("/api/workspaces/:ws", async (c) => {
    const ws = id(c.req.param("ws"));
    const found = ws === null ? null : await dashboard.workspace(ws);
    return found ? c.json(found) : notFound(c, "workspace");
  });

  // Every route below reads one workspace: an unknown one is a 404, not an empty answer.
  const workspaceOf = async (c: Context): Promise<number | null> => {
    const ws = id(c.req.param("ws"));
    return ws !== null && (await dashboard.hasWorkspace(ws)) ? ws : null;
  };

  app.get("/api/workspaces/:ws/memories", async (c) => {
    const ws = await workspaceOf(c);
    if (ws === null) return notFound(c, "workspace");
    const request = parseMemoryRequest(new URL(c.req.url).searchParams, Date.now());
    if ("error" in request) return badRequest(c, request.error);
    if (request.query !== undefined && request.query.length > QUERY_MAX_CHARS) {
      return badRequest(c, `the search is over ${QUERY_MAX_CHARS} characters`);
    }
    return c.json(await dashboard.memories(ws, request));
  });

  app.get("/api/workspaces/:ws/memories/:id", async (c) => {
    const ws = await workspaceOf(c);
    const memoryId = id(c.req.param("id"));
    const memory = ws === null || memoryId === null ? null : await dashboard.memory(ws, memoryId);
    return memory ? c.json(memory) : notFound(c, "memory");
  });

  app.get("/api/workspaces/:ws/health", async (c) => {
    const ws = await workspaceOf(c);
    return ws === null ? notFound(c, "workspace") : c.json(await dashboard.health(ws));
  });

  app.get("/api/workspaces/:ws/health/:list", async (c) => {
    const ws = await workspaceOf(c);
    if (ws === null) return notFound(c, "workspace");
    const list = c.req.param("list") as (typeof HEALTH_LISTS)[number];
    if (!HEALTH_LISTS.includes(list)) return notFound(c, "list");
    if (list === "duplicates") return c.json({ pairs: await dashboard.duplicates(ws) });
    const offset = parseOffset(c.req.query("offset") ?? null);
    if (offset === null) return badRequest(c, "offset must be a non-negative integer");
    return c.json(await dashboard.healthList(ws, list, offset));
  });

  app.get("/api/workspaces/:ws/stats", async (c) => {
    const ws = await workspaceOf(c);
    return ws === null ? notFound(c, "workspace") : c.json(await dashboard.stats(ws));
  });

  app.get("/api/workspaces/:ws/keys", async (c) => {
    const ws = await workspaceOf(c);
    return ws === null ? notFound(c, "workspace") : c.json({ keys: await dashboard.keys(ws) });
  });

  app.get("/api/workspaces/:ws/usage", async (c) => {
    const ws = await workspaceOf(c);
    const usage = ws === null ? null : await dashboard.usage(ws);
    return usage ? c.json(usage) : notFound(c, "workspace");
  });

  app.post("/api/workspaces/:ws/keys", async (c) => {
    const ws = await workspaceOf(c);
    if (ws === null) return notFound(c, "workspace");
    const created = await dashboard.createKey(ws);
    log.info("dashboard created an API key", { workspace: ws, key_id: created.id });
    return c.json(created, 201);
  });

  app.post("/api/workspaces/:ws/keys/:id/revoke", async (c) => {
    const ws = await workspaceOf(c);
    const keyId = id(c.req.param("id"));
    if (ws === null || keyId === null || !(await dashboard.revokeKey(ws, keyId))) return notFound(c, "live key");
    log.info("dashboard revoked an API key", { workspace: ws, key_id: keyId });
    return c.json({ id: keyId, revoked: true });
  });

  app.post("/api/workspaces/:ws/memories/forget", async (c) => {
    const ws = await workspaceOf(c);
    if (ws === null) return notFound(c, "workspace");
    const ids = forgetIds(await readJson(c));
    if (typeof ids === "string") return badRequest(c, ids);
    const forgotten = await dashboard.forget(ws, ids);
    log.info("dashboard forgot memories", { workspace: ws, asked: ids.length, forgotten: forgotten.length });
    return c.json({ forgotten });
  });

  app.get("/api/workspaces/:ws/webhooks", async (c) => {
    const ws = await workspaceOf(c);
    return ws === null ? notFound(c, "workspace") : c.json({ endpoints: await webhooks.webhooks(ws) });
  });

  app.post("/api/workspaces/:ws/webhooks", async (c) => {
    const ws = await workspaceOf(c);
    if (ws === null) return notFound(c, "workspace");
    const request = newWebhook(await readJson(c));
    if (typeof request === "string") return badRequest(c, request);
    try {
      const added = await webhooks.addWebhook(ws, request);
      // Neither the URL (it may carry a token of the receiver's) nor the secret goes to the log.
      log.info("dashboard added a webhook endpoint", { workspace: ws, endpoint_id: added.id });
      return c.json(added, 201);
    } catch (err) {
      if (err instanceof WebhookRequestError) return badRequest(c, err.message);
      throw err;
    }
  });

  const endpointOf = (c: Context) => id(c.req.param("id"));

  app.get("/api/workspaces/:ws/webhooks/:id/deliveries", async (c) => {
    const ws = await workspaceOf(c);
    const endpointId = endpointOf(c);
    const found = ws === null || endpointId === null ? null : await webhooks.webhookDeliveries(ws, endpointId);
    return found ? c.json(found) : notFound(c, "webhook endpoint");
  });

  app.post("/api/workspaces/:ws/webhooks/:id/:action{remove|enable|rotate-secret|test}", async (c) => {
    const ws = await workspaceOf(c);
    const endpointId = endpointOf(c);
    if (ws === null || endpointId === null) return notFound(c, "webhook endpoint");
    const action = c.req.param("action");
    let answer: Record<string, unknown> | null = null;
    try {
      if (action === "remove") answer = (await webhooks.removeWebhook(ws, endpointId)) ? { id: endpointId, removed: true } : null;
      else if (action === "enable") answer = (await webhooks.enableWebhook(ws, endpointId)) ? { id: endpointId, enabled: true } : null;
      else if (action === "rotate-secret") {
        const secret = await webhooks.rotateWebhookSecret(ws, endpointId);
        answer = secret === null ? null : { id: endpointId, secret };
      } else {
        const outcome = await webhooks.testWebhook(ws, endpointId);
        answer = outcome && { id: endpointId, ...outcome };
      }
    } catch (err) {
      if (err instanceof WebhookRequestError) return badRequest(c, err.message);
      throw err;
    }
    if (answer === null) return notFound(c, "webhook endpoint");
    log.info(`dashboard webhook ${action}`, { workspace: ws, endpoint_id: endpointId });
    return c.json(answer);
  });

  app.all("/api/*", (c) => notFound(c, "route"));

  // The page itself; its views live after `#`, so every other path is a static file or nothing.
  app.get("*", (c) => {
    const path = c.req.path === "/" ? "/index.html" : c.req.path;
    const asset = assets.get(path);
    if (!asset) return c.text("Not found", 404);
    return c.body(new Uint8Array(asset.body), 200, { "Content-Type": asset.type });
  });

  app.onError((err, c) => {
    if (err instanceof ServiceError ? err.code === "store_unavailable" : isStoreUnavailable(err)) {
      log.warn("dashboard: the store is unreachable", { path: c.req.path });
      const retryAfter = String(UNAVAILABLE_RETRY_AFTER_SECONDS);
      return c.json({ error: "the store is unreachable right now; try again in a few seconds" }, 503, { "Retry-After": retryAfter });
    }
    log.error("dashboard request failed", { path: c.req.path, error: err.message });
    return c.json({ error: "the dashboard could not read the store; see the ui command's log" }, 500);
  });

  return app;
}
