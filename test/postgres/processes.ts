// Real `brain-mcp serve` and `brain-mcp admin` processes over a PostgreSQL database, for the scale-out tests.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/brain-mcp.js", import.meta.url));

export interface ServeProcess {
  url: string;
  pid: number;
  /** The key `serve` printed when it created the first workspace, else null. */
  apiKey: string | null;
  /** Everything the process wrote to stdout so far (its startup sentences). */
  stdout(): string;
  /** Everything the process wrote to stderr so far (JSON log lines). */
  stderr(): string;
  alive(): boolean;
  /** SIGKILL: no graceful shutdown, like a crashed machine. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

export interface ServeOptions {
  env?: Record<string, string>;
}

/** Starts `brain-mcp serve` on a free loopback port with BRAIN_DATABASE_URL, resolved once it is listening. */
export async function startServe(databaseUrl: string, opts: ServeOptions = {}): Promise<ServeProcess> {
  const child: ChildProcess = spawn(process.execPath, [BIN, "serve", "--port", "0"], {
    env: { ...process.env, BRAIN_LOG: "info", ...opts.env, BRAIN_DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (err += s));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 60 s:\n${out}\n${err.slice(-2000)}`)), 60_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening:\n${out}\n${err.slice(-2000)}`));
    });
  });

  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    url,
    pid: child.pid!,
    apiKey: /^(svc_ws_\S+)$/m.exec(out)?.[1] ?? null,
    stdout: () => out,
    stderr: () => err,
    alive,
    async kill() {
      if (alive()) child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (alive()) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `brain-mcp admin workspace create` on the database: a new workspace and its first key. */
export async function createWorkspace(databaseUrl: string, name: string): Promise<{ workspaceId: number; apiKey: string }> {
  const out = await runAdmin(databaseUrl, ["workspace", "create", "--name", name, "--json"]);
  const json = JSON.parse(out) as { workspace_id: number; api_key: string };
  return { workspaceId: json.workspace_id, apiKey: json.api_key };
}

export async function runAdmin(databaseUrl: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, [BIN, "admin", ...args], {
    env: { ...process.env, BRAIN_LOG: "warn", BRAIN_DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (err += s));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`brain-mcp admin ${args.join(" ")} exited ${code}: ${err}`);
  return out;
}

/** One raw HTTP call (no retries), for asserting on statuses the client library would hide. */
export async function call(
  baseUrl: string,
  apiKey: string,
  route: "store" | "retrieve" | "health" | "status",
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const paths = { store: "/v1/memory/store", retrieve: "/v1/memory/retrieve", health: "/v1/optimize/health", status: "/v1/status" };
  const res = await fetch(baseUrl + paths[route], {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/**
 * Texts that share no word and almost no letter trigram, so no embedder folds two of them together: the tests that
 * use them are about concurrency and durability, not about dedup quality (which test/service and test/eval cover).
 */
export function unrelatedTexts(count: number, seed = 1): string[] {
  let state = seed >>> 0 || 1;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const used = new Set<string>();
  const word = () => {
    for (;;) {
      const length = 7 + Math.floor(next() * 4);
      let w = "";
      for (let i = 0; i < length; i++) w += letters[Math.floor(next() * letters.length)];
      if (!used.has(w)) {
        used.add(w);
        return w;
      }
    }
  };
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 6 }, word);
    return `${words[0]![0]!.toUpperCase()}${words[0]!.slice(1)} ${words.slice(1).join(" ")}.`;
  });
}
