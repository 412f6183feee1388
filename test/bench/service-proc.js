// Starts a real `brain-mcp serve` on a free loopback port and, unless given one, makes a workspace and key with
// `brain-mcp admin` on the same store.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bin } from "./lib.js";

/**
 * { databaseUrl } (PostgreSQL) or { dbPath } (SQLite; default a fresh temp file); `credentials` ({ apiKey,
 * workspaceId }) reuses a workspace made earlier (a restart over the same store); `env` is added to the process's;
 * `nodeArgs` go to node before the script (e.g. --cpu-prof); `binPath` runs another build's bin/brain-mcp.js.
 */
export async function startService({ databaseUrl, dbPath, env = {}, credentials, nodeArgs = [], binPath = bin } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "brain-bench-"));
  const db = dbPath ?? join(dir, "brain.db");
  const storeArgs = databaseUrl ? ["--database-url", databaseUrl] : ["--db", db];
  const childEnv = { ...process.env, BRAIN_LOG: "error", ...env };
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, binPath, "serve", "--port", "0", ...storeArgs], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  const url = await new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d;
      const m = out.match(/listening on (https?:\/\/[^\s]+)/);
      if (m) resolve(m[1]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  const readyMs = performance.now() - startedAt;
  const adminJson = (...args) =>
    JSON.parse(execFileSync(process.execPath, [binPath, "admin", ...args, ...storeArgs, "--json"], { env: childEnv }).toString());
  let apiKey = credentials?.apiKey;
  let workspaceId = credentials?.workspaceId;
  if (!apiKey) {
    const ws = adminJson("workspace", "create", "--name", "bench");
    apiKey = adminJson("key", "create", String(ws.workspace_id)).api_key;
    workspaceId = ws.workspace_id;
  }
  return {
    url,
    apiKey,
    workspaceId,
    pid: child.pid,
    dir,
    dbPath: databaseUrl ? undefined : db,
    readyMs,
    adminJson,
    /** What it has printed so far (e.g. BRAIN_LOG=info's lines). */
    output: () => out,
    /** Resident set of the serve process in MB (Linux /proc), or NaN. */
    rssMb() {
      try {
        const status = execFileSync("cat", [`/proc/${child.pid}/status`]).toString();
        return Number(status.match(/VmRSS:\s+(\d+)/)[1]) / 1024;
      } catch {
        return NaN;
      }
    },
    /** CPU time (user + system) the serve process has used, in ms (Linux /proc, 10 ms ticks), or NaN. */
    cpuMs() {
      try {
        const fields = execFileSync("cat", [`/proc/${child.pid}/stat`])
          .toString()
          .split(") ")[1]
          .split(" ");
        return (Number(fields[11]) + Number(fields[12])) * 10;
      } catch {
        return NaN;
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
