// Starts the REAL `brain-mcp serve` (node bin/brain-mcp.js, from dist/: run `npx tsc -p tsconfig.json` first) on
// a free loopback port over a temp SQLite file, or over PostgreSQL when BRAIN_TEST_DATABASE_URL is set, and makes a
// workspace key with `brain-mcp admin ... --json`.
import { randomBytes } from "node:crypto";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = join(ROOT, "bin", "brain-mcp.js");

/** Set by the postgres helper to run the whole suite against PostgreSQL. */
export const TEST_DATABASE_URL = process.env.BRAIN_TEST_DATABASE_URL || undefined;

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface WorkspaceKey {
  /** Integer ids, as the store assigned them. */
  workspaceId: number;
  apiKey: string;
  keyId: number;
}

export interface ServiceOptions {
  /** SQLite file; a fresh temp file by default. Ignored under BRAIN_TEST_DATABASE_URL. */
  dbPath?: string;
  env?: NodeJS.ProcessEnv;
  /** More `serve` arguments (e.g. --redirect-to). */
  args?: string[];
  /** Skip making a workspace with admin (e.g. to see the first-start key). */
  noWorkspace?: boolean;
}

type AdminArgs = readonly (string | number)[];

export interface ServiceHandle extends WorkspaceKey {
  baseURL: string;
  /** The SQLite file, or undefined under PostgreSQL. */
  dbPath: string | undefined;
  /** Under PostgreSQL, the database this service uses (a fresh one when its env named one). */
  databaseUrl: string | undefined;
  /** The `--db`/env settings this service uses; pass to another startService to share its store. */
  storeArgs: string[];
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** `brain-mcp admin <args>` on this service's store (ids may be passed as numbers). */
  admin(args: AdminArgs, opts?: { input?: string }): Promise<CommandResult>;
  /** `admin <args> --json`, parsed; throws on a non-zero exit. */
  adminJson(args: AdminArgs, opts?: { input?: string }): Promise<Record<string, unknown>>;
  /** A new workspace with its first key. */
  newWorkspace(name?: string): Promise<WorkspaceKey>;
  /** SIGTERM and wait for exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
}

function requireBuild(): void {
  if (!existsSync(join(ROOT, "dist", "cli", "main.js"))) {
    throw new Error("dist/ is missing: run `npx tsc -p tsconfig.json` before these tests");
  }
}

let sandbox: string | undefined;

/**
 * The environment for a service under test: no inherited store settings (BRAIN_DATABASE_URL under
 * BRAIN_TEST_DATABASE_URL), and data/config folders in a temp dir so nothing ever lands in the user's own.
 */
export function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  sandbox ??= mkdtempSync(join(tmpdir(), "brain-home-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BRAIN_LOG: "info",
    XDG_DATA_HOME: join(sandbox, "data"),
    XDG_CONFIG_HOME: join(sandbox, "config"),
  };
  delete env.BRAIN_DB;
  delete env.BRAIN_DATABASE_URL;
  if (TEST_DATABASE_URL) env.BRAIN_DATABASE_URL = TEST_DATABASE_URL;
  return { ...env, ...extra };
}

/** Runs `node bin/brain-mcp.js <args>` to completion. */
export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  requireBuild();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: opts.env ?? baseEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
}

/** The `--db` arguments for a fresh temp SQLite file (none under PostgreSQL, which comes by environment). */
export function freshStore(dbPath?: string): { dbPath: string | undefined; storeArgs: string[] } {
  if (TEST_DATABASE_URL) return { dbPath: undefined, storeArgs: [] };
  const path = dbPath ?? join(mkdtempSync(join(tmpdir(), "brain-service-")), "brain.db");
  return { dbPath: path, storeArgs: ["--db", path] };
}

/**
 * Under PostgreSQL, a database of the caller's own in the test cluster (no other file's `serve` then delivers its
 * webhook events): the environment naming it. Empty on SQLite, where every service has its own file.
 */
export async function freshDatabase(prefix: string): Promise<NodeJS.ProcessEnv> {
  if (!TEST_DATABASE_URL) return {};
  const { default: pg } = await import("pg");
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return { BRAIN_DATABASE_URL: url.toString() };
}

/** Spawns `serve` and resolves once it prints its listening line; rejects with its output if it exits first. */
export async function spawnServe(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; url: string; stdout: () => string; stderr: () => string }> {
  requireBuild();
  const child = spawn(process.execPath, [BIN, "serve", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const url = await new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`serve did not start in 60 s\nstdout: ${out}\nstderr: ${err}`));
    }, 60_000);
    child.stdout!.on("data", (d) => {
      out += d;
      const match = /listening on (https?:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]!);
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  return { child, url, stdout: () => out, stderr: () => err };
}

export async function startService(options: ServiceOptions = {}): Promise<ServiceHandle> {
  const { dbPath, storeArgs } = freshStore(options.dbPath);
  const env = baseEnv(options.env);
  const { child, url, stdout, stderr } = await spawnServe(["--port", "0", ...storeArgs, ...(options.args ?? [])], env);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once("exit", (code, signal) => r({ code, signal })),
  );

  const admin = (args: AdminArgs, opts: { input?: string } = {}) =>
    runCli(["admin", ...args.map(String), ...storeArgs], { env, input: opts.input });
  const adminJson = async (args: AdminArgs, opts: { input?: string } = {}) => {
    const result = await admin([...args, "--json"], opts);
    if (result.code !== 0) throw new Error(`admin ${args.join(" ")} failed (${result.code}): ${result.stderr}`);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const newWorkspace = async (name = "test"): Promise<WorkspaceKey> => {
    const made = await adminJson(["workspace", "create", "--name", name]);
    return { workspaceId: made.workspace_id as number, apiKey: String(made.api_key), keyId: made.key_id as number };
  };

  let first: WorkspaceKey = { workspaceId: 0, apiKey: "", keyId: 0 };
  try {
    if (!options.noWorkspace) first = await newWorkspace("primary");
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }

  return {
    ...first,
    baseURL: url,
    dbPath,
    databaseUrl: env.BRAIN_DATABASE_URL,
    storeArgs,
    child,
    stdout,
    stderr,
    admin,
    adminJson,
    newWorkspace,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Reads the store directly (SQLite file or PostgreSQL), to check what the API cannot show. */
export async function queryStore<T = Record<string, unknown>>(
  handle: Pick<ServiceHandle, "dbPath"> & Partial<Pick<ServiceHandle, "databaseUrl">>,
  sql: { sqlite: string; pg: string },
  params: unknown[] = [],
): Promise<T[]> {
  if (TEST_DATABASE_URL) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: handle.databaseUrl ?? TEST_DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(sql.pg, params)).rows as T[];
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(handle.dbPath!, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql.sqlite).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** Usage events recorded for a workspace, by kind. */
export async function usageCounts(
  handle: Pick<ServiceHandle, "dbPath"> & Partial<Pick<ServiceHandle, "databaseUrl">>,
  workspaceId: number,
): Promise<{ write: number; read: number }> {
  const rows = await queryStore<{ kind: string; n: number | string }>(
    handle,
    {
      sqlite: "SELECT kind, count(*) AS n FROM usage_events WHERE workspace_id = ? GROUP BY kind",
      pg: "SELECT kind, count(*) AS n FROM usage_events WHERE workspace_id = $1 GROUP BY kind",
    },
    [workspaceId],
  );
  const counts = { write: 0, read: 0 };
  for (const row of rows) if (row.kind === "write" || row.kind === "read") counts[row.kind] = Number(row.n);
  return counts;
}

/** The ids of a workspace's memories as the store holds them. */
export async function memoryIds(
  handle: Pick<ServiceHandle, "dbPath"> & Partial<Pick<ServiceHandle, "databaseUrl">>,
  workspaceId: number,
): Promise<Set<number>> {
  const rows = await queryStore<{ id: number | string }>(
    handle,
    {
      sqlite: "SELECT id FROM memories WHERE workspace_id = ?",
      pg: "SELECT id FROM memories WHERE workspace_id = $1",
    },
    [workspaceId],
  );
  return new Set(rows.map((r) => Number(r.id))); // a bigint comes back from pg as a string
}

/** A raw HTTP call (no client library): status, headers, parsed JSON (or null) and text. */
export async function call(
  baseURL: string,
  method: string,
  path: string,
  opts: { key?: string; json?: unknown; body?: RequestInit["body"]; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${baseURL}${path}`, { method, headers, body, redirect: "manual" });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}
