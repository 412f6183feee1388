// Request id and access log: the outermost middleware, so every answer (errors and 404s too) carries both.
import type { MiddlewareHandler } from "hono";
import type { MemoryService, ServiceLog } from "../types.js";
import type { EdgeEnv } from "./context.js";
import { newRequestId } from "./request-id.js";

/** Gives every request a fresh `req_<ULID>` id and sends it back as `x-request-id`. */
export function requestId(make: () => string = () => newRequestId()): MiddlewareHandler<EdgeEnv> {
  return async (c, next) => {
    const id = make();
    c.set("requestId", id);
    await next();
    c.res.headers.set("x-request-id", id);
  };
}

/** One JSON line per request: who, what route, how it ended, how long. Never a key, a memory's text or a query. */
export function accessLog(log: ServiceLog, now: () => number = () => performance.now()): MiddlewareHandler<EdgeEnv> {
  return async (c, next) => {
    const started = now();
    await next();
    const status = c.res.status;
    const fields: Record<string, unknown> = {
      request_id: c.get("requestId"),
      method: c.req.method,
      route: c.get("route") ?? null,
      status,
      duration_ms: Math.round((now() - started) * 100) / 100,
      workspace_id: c.get("auth")?.workspace.id ?? null,
    };
    const code = c.get("errorCode");
    if (code !== undefined) fields.error_code = code;
    if (status >= 500) log.error("request", fields);
    else log.info("request", fields);
  };
}

/** Tells the webhook runtime how each request ended: bursts of PII rejections, failed keys and 429s are anomalies. */
export function webhookSignals(service: MemoryService): MiddlewareHandler<EdgeEnv> {
  return async (c, next) => {
    await next();
    const status = c.res.status;
    if (!service.webhooks || (status !== 401 && status !== 422 && status !== 429)) return;
    const bearer = status === 401 ? /^Bearer[ \t]+(\S+)/i.exec(c.req.header("authorization") ?? "")?.[1] : undefined;
    service.webhooks.requestAnswered({ status, code: c.get("errorCode"), workspaceId: c.get("auth")?.workspace.id ?? null, bearer });
  };
}

/** Counts requests being answered, so shutdown can wait for them before closing the store. */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  middleware(): MiddlewareHandler<EdgeEnv> {
    return async (_c, next) => {
      this.count++;
      try {
        await next();
      } finally {
        this.count--;
        if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
      }
    };
  }

  get size(): number {
    return this.count;
  }

  /** Resolves once no request is being answered. */
  drained(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
