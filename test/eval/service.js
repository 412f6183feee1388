// Starts the real service (`brain-mcp serve`) and makes workspace keys with `brain-mcp admin`, as an operator
// would, so the evaluation measures what a client of the public API meets.
import { spawn, execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const BIN = fileURLToPath(new URL("../../bin/brain-mcp.js", import.meta.url));

/**
 * One service process over a fresh SQLite file; `close()` stops it and removes the file. `bin` runs another
 * checkout's build (test/eval/locomo measures other branches with it).
 */
export async function startService(env, { bin = BIN } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "brain-eval-"));
  const db = path.join(dir, "brain.db");
  const childEnv = { ...process.env, ...env, BRAIN_LOG: "error", BRAIN_RATE_LIMIT_RPS: "100000", BRAIN_RATE_LIMIT_BURST: "100000" };
  // The first workspace is made by admin, so serve does not print a key of its own.
  await run(process.execPath, [bin, "admin", "workspace", "create", "--name", "eval-first", "--db", db, "--json"], { env: childEnv });
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--db", db], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = out.match(/listening on (\S+)/);
      if (match) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${stderr.slice(-2000)}`)));
  });

  async function workspace(name) {
    const { stdout } = await run(process.execPath, [bin, "admin", "workspace", "create", "--name", name, "--db", db, "--json"], {
      env: childEnv,
    });
    const created = JSON.parse(stdout);
    return { id: created.workspace_id, ...client(url, created.api_key) };
  }

  async function close() {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
    rmSync(dir, { recursive: true, force: true });
  }
  return { url, db, workspace, close };
}

/** The four operations over HTTP for one workspace key. */
function client(baseUrl, apiKey) {
  async function call(method, route, body) {
    const response = await fetch(baseUrl + route, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json().catch(() => null);
    return { status: response.status, body: json };
  }
  return {
    store: (text, meta) => call("POST", "/v1/memory/store", meta ? { text, meta } : { text }),
    /** No min_score unless given: the service's default applies, as for an agent. */
    retrieve: (query, topK = 5, minScore) =>
      call("POST", "/v1/memory/retrieve", minScore === undefined ? { query, top_k: topK } : { query, top_k: topK, min_score: minScore }),
    status: () => call("GET", "/v1/status"),
  };
}

/** Runs `task` over `items` with at most `limit` in flight, keeping order. */
export async function mapLimit(items, limit, task) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await task(items[i], i);
      }
    }),
  );
  return out;
}
