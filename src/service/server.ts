// Serves the HTTP edge on a socket (plain or TLS) and shuts down gracefully: stop accepting, finish in-flight
// requests, then close the store.
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { HTTP_SERVER_TIMEOUTS, SHUTDOWN_GRACE_MS } from "../contract/limits.js";
import { createApp, createRedirectApp } from "./http/app.js";
import type { InFlight } from "./http/request-log.js";
import type { MemoryService, ServiceLog } from "./types.js";

export interface ServerOptions {
  /** Required unless `redirectTo` is set. */
  service?: MemoryService;
  host: string;
  port: number;
  /** PEM contents of the certificate chain and private key. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  log: ServiceLog;
  /** Answer every request with 301 to this URL + path (+ query) instead of serving the API. */
  redirectTo?: string;
  /** How long shutdown waits for in-flight requests before cutting connections (default SHUTDOWN_GRACE_MS). */
  shutdownTimeoutMs?: number;
}

export interface RunningServer {
  url: string;
  /** Stops accepting, lets in-flight requests finish, then closes the service (and its store). Idempotent. */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { log } = options;
  let fetch: (request: Request, env: never) => Response | Promise<Response>;
  let inFlight: InFlight | undefined;
  if (options.redirectTo !== undefined) {
    fetch = createRedirectApp(options.redirectTo, { log }).fetch as typeof fetch;
  } else {
    if (options.service === undefined) throw new Error("startServer needs a service unless redirectTo is set");
    const edge = createApp({ service: options.service, log });
    fetch = edge.app.fetch as typeof fetch;
    inFlight = edge.inFlight;
  }
  const listener = getRequestListener(fetch as never);
  // A client that sends its headers or body slowly (or never finishes) is cut off, so it cannot hold a socket forever.
  const limits = HTTP_SERVER_TIMEOUTS;
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key, ...limits }, listener)
    : createHttpServer(limits, listener);
  // Agents keep connections alive between calls; a little longer than common client pools avoids reset races.
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" || address.address.includes(":") ? `[${address.address}]` : address.address;
  const url = `${options.tls ? "https" : "http"}://${host}:${address.port}`;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      const timeoutMs = options.shutdownTimeoutMs ?? SHUTDOWN_GRACE_MS;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive connections would hold close() open; busy ones close after their answer.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      const deadline = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), timeoutMs).unref());
      const drained = Promise.all([stopped, inFlight?.drained()]);
      if ((await Promise.race([drained, deadline])) === "timeout") {
        log.warn("shutdown timed out waiting for requests; closing connections", { in_flight: inFlight?.size ?? 0 });
        server.closeAllConnections();
      }
      clearInterval(sweep);
      await inFlight?.drained();
      await options.service?.close();
    })();
    return closing;
  };

  return { url, close };
}
