// A real node:http server on 127.0.0.1 whose answers each test scripts, recording every request it receives.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Script = (req: Received, res: http.ServerResponse, n: number, raw: http.IncomingMessage) => void;

export interface ScriptedServer {
  url: string;
  port: number;
  received: Received[];
  script(handler: Script): void;
  close(): Promise<void>;
}

export async function startServer(handler: Script = (_r, res) => json(res, 200, {}), host = "127.0.0.1"): Promise<ScriptedServer> {
  let current = handler;
  const received: Received[] = [];
  const server = http.createServer((raw, res) => {
    let body = "";
    raw.setEncoding("utf8");
    raw.on("data", (chunk: string) => (body += chunk));
    raw.on("end", () => {
      const req = { method: raw.method ?? "", url: raw.url ?? "", headers: raw.headers, body };
      received.push(req);
      current(req, res, received.length, raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    received,
    script(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let counter = 0;
/** A request id shaped like the service's: req_ + 26 characters. */
export function requestId(): string {
  return `req_${String(++counter).padStart(26, "0")}`;
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", "x-request-id": requestId(), ...headers });
  res.end(JSON.stringify(body));
}

export function errorBody(code: string, message: string, extra: Record<string, unknown> = {}) {
  return { error: { type: "test_error", code, message, request_id: requestId(), ...extra } };
}

export const STATUS_OK = {
  workspace_id: 1,
  workspace_name: "test",
  workspace_status: "active",
  plan_name: "free",
  billing_cycle: "monthly",
  api_key_id: 1,
  api_key_prefix: "svc_ws_abcd",
  healthy: true,
  server_time: "2025-01-01T00:00:00Z",
  memory_count: 3,
  version: "0.1.0",
};

export const STORE_OK = {
  status: "ok",
  memory_id: 1,
  workspace_id: 1,
  dedup: { action: "stored_new", existing_id: null },
  importance: 7,
  categories: ["work", "project"],
  temporal: { type: "persistent", valid_until: null },
};

export const RETRIEVE_OK = {
  memories: [
    {
      id: 1,
      text: "The deploy runs on Fridays.",
      score: 0.82,
      similarity: 0.9,
      importance: 6,
      expired: false,
      meta: { source: "chat", temporal: { type: "persistent", valid_until: null }, categories: ["work", "process"] },
      created_at: "2025-01-01T00:00:00Z",
      last_accessed_at: null,
      access_count: 0,
    },
  ],
  count: 1,
};

export const HEALTH_OK = {
  quality_score: 91.5,
  signals: {
    total_memories: 10,
    stale_memories: 1,
    duplicate_memories: 0,
    overlong_memories: 0,
    never_retrieved_memories: 2,
    open_recommendations: 1,
  },
  recommendations: [{ code: "stale", message: "1 memory is stale", count: 1 }],
  generated_at: "2025-01-01T00:00:00Z",
};

/** A key shaped like a real one, to check it never leaks. */
export const KEY = "svc_ws_0123456789abcdefghijABCDEFGHIJ";

import { Brain } from "../../src/client/brain.js";
import type { InternalClientOptions } from "../../src/client/core.js";
import type { LogFields, Logger } from "../../src/client/logger.js";

/** Brains made in a test file, closed together in afterEach/afterAll. */
export function brains() {
  const made: Brain[] = [];
  return {
    make(options: InternalClientOptions): Brain {
      const brain = new Brain({ apiKey: KEY, logger: silentLogger(), ...options });
      made.push(brain);
      return brain;
    },
    async closeAll(): Promise<void> {
      await Promise.all(made.splice(0).map((b) => b.close()));
    },
  };
}

export interface CapturedLine {
  level: keyof Logger;
  message: string;
  fields?: LogFields;
}

/** A logger that keeps every line (debug included) for assertions. */
export function capturingLogger(): Logger & { lines: CapturedLine[]; text(): string } {
  const lines: CapturedLine[] = [];
  const at = (level: keyof Logger) => (message: string, fields?: LogFields) => lines.push({ level, message, fields });
  return {
    lines,
    text: () => JSON.stringify(lines),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  };
}

export function silentLogger(): Logger {
  const none = () => {};
  return { debug: none, info: none, warn: none, error: none };
}
