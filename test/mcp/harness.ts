// Test support for the adapter: a scripted memory service on 127.0.0.1, and the built adapter spawned over stdio.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const BIN = fileURLToPath(new URL("../../bin/brain-mcp.js", import.meta.url));
/** A key shaped like a real one: no output, log or error may ever contain it. */
export const KEY = "svc_ws_TestKey0123456789abcdefghijkLMNO";

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Never answer (for timeouts). */
  hang?: boolean;
  /** Answer after this long. */
  delayMs?: number;
}

export interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
  body: unknown;
}

/** A memory service whose answers each test scripts, per route ("POST /v1/memory/store"). */
export class ScriptedService {
  readonly seen: SeenRequest[] = [];
  private replies = new Map<string, (req: SeenRequest) => Reply>();
  private server: Server;
  private hanging = new Set<import("node:http").ServerResponse>();
  url = "";

  constructor() {
    this.server = createServer(async (req, res) => {
      const body = await readBody(req);
      const seen: SeenRequest = { method: req.method!, path: req.url!, authorization: req.headers.authorization, body };
      this.seen.push(seen);
      const script = this.replies.get(`${req.method} ${req.url}`);
      const reply: Reply = script ? script(seen) : { status: 404, body: errorBody("not_found", "no such route") };
      if (reply.hang) {
        this.hanging.add(res);
        return;
      }
      if (reply.delayMs) await new Promise((done) => setTimeout(done, reply.delayMs));
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", "x-request-id": REQUEST_ID, ...reply.headers });
      res.end(JSON.stringify(reply.body ?? {}));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((done) => this.server.listen(0, "127.0.0.1", done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  on(route: string, reply: Reply | ((req: SeenRequest) => Reply)): void {
    this.replies.set(route, typeof reply === "function" ? reply : () => reply);
  }

  reset(): void {
    this.replies.clear();
    this.seen.length = 0;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }
}

export const REQUEST_ID = "req_01J00000000000000000000000";

export function errorBody(code: string, message: string, extra: Record<string, unknown> = {}): unknown {
  return { error: { type: "x", code, message, request_id: REQUEST_ID, ...extra } };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/** A temp folder for a config file that nobody else reads. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "brain-mcp-test-"));
}

/** The environment a child sees: nothing from the developer's own config or key. */
export function isolatedEnv(extra: Record<string, string | undefined>): Record<string, string> {
  const home = tempDir();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    BRAIN_CONFIG: join(home, "no-config.json"),
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export interface Adapter {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns the built adapter and completes the MCP handshake as `clientName`. */
export async function connectAdapter(env: Record<string, string>, clientName = "vitest"): Promise<Adapter> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN], env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: clientName, version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export interface RawRun {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  send(message: unknown): void;
  /** Resolves with the response to request `id`. */
  response(id: number): Promise<any>;
}

/** Spawns the adapter with raw pipes, to see every byte it writes to stdout. */
export function spawnRaw(env: Record<string, string>): RawRun {
  const child = spawn(process.execPath, [BIN], { env, stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  let buffer = "";
  let stderr = "";
  const waiters = new Map<number, (message: any) => void>();
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      try {
        const message = JSON.parse(line);
        if (message.id !== undefined) waiters.get(message.id)?.(message);
      } catch {
        /* a non-JSON line: the purity test reports it */
      }
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((done) =>
    child.on("exit", (code, signal) => done({ code, signal, at: Date.now() })),
  );
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    send: (message) => child.stdin!.write(JSON.stringify(message) + "\n"),
    response: (id) => new Promise((done) => waiters.set(id, done)),
  };
}

export async function handshake(run: RawRun, clientName = "raw-test"): Promise<void> {
  run.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: clientName, version: "1" } },
  });
  await run.response(0);
  run.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? "").join("\n");
}

// Answers as the reference service sends them (src/contract/wire.ts).
export const fixtures = {
  storeNew: {
    status: "ok",
    memory_id: 101,
    workspace_id: 123,
    importance: 7,
    temporal: { type: "persistent", valid_until: null },
    categories: ["work", "preference"],
    dedup: { action: "stored_new", existing_id: null },
  },
  storeMerged: {
    status: "ok",
    memory_id: 9,
    workspace_id: 123,
    importance: 8,
    temporal: { type: "persistent", valid_until: null },
    categories: ["personal", "preference"],
    dedup: { action: "merged", existing_id: 9 },
  },
  storeTimeBound: {
    status: "ok",
    memory_id: 102,
    workspace_id: 123,
    importance: 6,
    temporal: { type: "time_bound", valid_until: "2030-07-01T00:00:00Z" },
    categories: ["work", "deadline", "project"],
    dedup: { action: "stored_new", existing_id: null },
  },
  recall: {
    memories: [
      memory(1, "The user prefers dark mode in every editor.", 0.91, { importance: 6 }),
      memory(2, "The launch review is on Friday.", 0.55, {
        importance: 8,
        meta: { temporal: { type: "time_bound", valid_until: "2030-01-10T17:00:00Z" }, categories: ["work", "meeting"] },
      }),
      memory(3, "The user was travelling in Lisbon last week.", 0.12, {
        expired: true,
        meta: { temporal: { type: "time_bound", valid_until: "2024-01-01T00:00:00Z" }, categories: ["personal", "travel"] },
      }),
    ],
    count: 3,
  },
  recallEmpty: { memories: [], count: 0 },
  health: {
    quality_score: 82.5,
    signals: {
      total_memories: 120,
      stale_memories: 4,
      duplicate_memories: 2,
      overlong_memories: 1,
      never_retrieved_memories: 30,
      open_recommendations: 2,
    },
    recommendations: [
      { code: "merge_duplicates", message: "Merge the duplicate memories.", count: 2 },
      { code: "review_stale", message: "Review or remove stale memories.", count: 4 },
    ],
    generated_at: "2030-01-01T12:00:00Z",
  },
  status: (workspace_status: string) => ({
    healthy: true,
    workspace_id: 123,
    workspace_name: "Acme agents",
    workspace_status,
    plan_name: "team",
    billing_cycle: "monthly",
    api_key_id: 4,
    api_key_prefix: "svc_ws_Test",
    memory_count: 120,
    server_time: "2030-01-01T12:00:00Z",
    version: "0.1.0",
  }),
};

function memory(id: number, text: string, score: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    text,
    score,
    similarity: score,
    importance: 5,
    expired: false,
    meta: { temporal: { type: "persistent", valid_until: null }, categories: ["personal", "preference"] },
    created_at: "2029-12-01T00:00:00Z",
    last_accessed_at: null,
    access_count: 0,
    ...extra,
  };
}
