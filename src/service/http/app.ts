// The HTTP edge of `brain-mcp serve`: four routes that read like the API table, each behind the same guards.
import { Hono } from "hono";
import { ROUTES } from "../../contract/wire.js";
import type { EdgeDeps, EdgeEnv, RouteName } from "./context.js";
import { errorResponse, serviceError, toServiceError } from "./errors.js";
import { authenticate, route, workspaceState } from "./guards.js";
import { jsonBody } from "./json-body.js";
import { accessLog, InFlight, requestId, webhookSignals } from "./request-log.js";
import { parseIdempotencyKey, parseRetrieveRequest, parseStoreRequest } from "./validation.js";

export interface EdgeApp {
  app: Hono<EdgeEnv>;
  /** Requests being answered right now; shutdown waits for them before closing the store. */
  inFlight: InFlight;
}

export function createApp(deps: EdgeDeps): EdgeApp {
  const { service, log } = deps;
  const inFlight = new InFlight();
  const app = new Hono<EdgeEnv>();

  app.use("*", requestId(deps.newRequestId), accessLog(log, deps.now), inFlight.middleware(), webhookSignals(service));

  const guarded = (name: RouteName) => [route(name), authenticate(service), workspaceState(name)] as const;

  app.post(ROUTES.store.path, ...guarded("store"), jsonBody(), async (c) => {
    const idempotencyKey = parseIdempotencyKey(c.req.header("idempotency-key"));
    const input = parseStoreRequest(c.get("body"));
    return c.json(await service.store(c.get("auth"), input, { idempotencyKey }));
  });

  app.post(ROUTES.retrieve.path, ...guarded("retrieve"), jsonBody(), async (c) => {
    const input = parseRetrieveRequest(c.get("body"));
    return c.json(await service.retrieve(c.get("auth"), input));
  });

  app.get(ROUTES.health.path, ...guarded("health"), async (c) => c.json(await service.health(c.get("auth"))));

  app.get(ROUTES.status.path, ...guarded("status"), async (c) => c.json(await service.status(c.get("auth"))));

  app.notFound((c) => {
    const known = Object.values(ROUTES).filter((r) => r.path === c.req.path);
    if (known.length > 0) {
      const allow = known.map((r) => (r.method === "GET" ? "GET, HEAD" : r.method)).join(", ");
      return errorResponse(
        c,
        serviceError("method_not_allowed", `${c.req.method} is not allowed on ${c.req.path}; use ${allow.split(",")[0]}.`),
        { Allow: allow },
      );
    }
    return errorResponse(
      c,
      serviceError(
        "not_found",
        "No such endpoint. The API offers POST /v1/memory/store, POST /v1/memory/retrieve, GET /v1/optimize/health and GET /v1/status.",
      ),
    );
  });

  app.onError((err, c) => errorResponse(c, toServiceError(err, log, c.get("requestId"))));

  return { app, inFlight };
}

/** The app of `serve --redirect-to URL`: every request answered with 301 to URL + path (+ query), no store. */
export function createRedirectApp(target: string, deps: Pick<EdgeDeps, "log" | "now" | "newRequestId">): Hono<EdgeEnv> {
  const base = target.replace(/\/+$/, "");
  const app = new Hono<EdgeEnv>();
  app.use("*", requestId(deps.newRequestId), accessLog(deps.log, deps.now));
  app.all("*", (c) => {
    const url = new URL(c.req.url);
    return c.body(null, 301, { Location: `${base}${url.pathname}${url.search}` });
  });
  return app;
}
