// `serve` started while PostgreSQL is down waits for it with backoff for a bounded time, saying so, and serves once
// it is up; past the bound it exits 1 naming the wait (issue 21, item 5).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { call } from "./processes.js";

const BIN = fileURLToPath(new URL("../../bin/brain-mcp.js", import.meta.url));

let cluster: PgCluster;
let url: string;

beforeAll(async () => {
  if (!canStartPostgres()) return;
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  await cluster.halt();
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

/** `serve` on the database with BRAIN_DB_WAIT_SECONDS, its output gathered as it comes. */
function serve(waitSeconds: number) {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0"], {
    env: {
      ...process.env,
      BRAIN_EMBEDDER: "lexical",
      BRAIN_LOG: "warn",
      BRAIN_DATABASE_URL: url,
      BRAIN_DB_WAIT_SECONDS: String(waitSeconds),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (s: string) => (out.stdout += s));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (out.stderr += s));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const until = async (pattern: RegExp, ms: number) => {
    const deadline = Date.now() + ms;
    while (!pattern.test(out.stdout) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    return pattern.exec(out.stdout);
  };
  return { child, out, exited, until };
}

describe.skipIf(!canStartPostgres())("serve started while PostgreSQL is down", () => {
  it("waits the configured time with backoff, saying so, then exits 1 naming the wait", async () => {
    const started = Date.now();
    const s = serve(3);
    const code = await s.exited;
    const took = Date.now() - started;
    expect(code).toBe(1);
    expect(s.out.stdout).toMatch(/unreachable; waiting up to 3 s for it \(BRAIN_DB_WAIT_SECONDS\)/);
    expect(s.out.stdout).toMatch(/still unreachable; retrying in \d\.\d s/);
    expect(s.out.stderr).toMatch(/is unreachable after waiting 3 s \(\d+ attempts; BRAIN_DB_WAIT_SECONDS sets how long\)/);
    expect(took).toBeGreaterThanOrEqual(3_000);
    expect(took).toBeLessThan(30_000);
  }, 60_000);

  it("serves as soon as the database comes up within the wait", async () => {
    const s = serve(60);
    try {
      expect(await s.until(/waiting up to 60 s/, 30_000)).not.toBeNull();
      await cluster.start();
      const listening = await s.until(/listening on (http:\/\/\S+)/, 60_000);
      expect(listening, s.out.stdout + s.out.stderr).not.toBeNull();
      const key = /^(svc_ws_\S+)$/m.exec(s.out.stdout)![1]!;
      const status = await call(listening![1]!, key, "status");
      expect(status.status).toBe(200);
      expect(status.body.healthy).toBe(true);
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
  }, 120_000);
});
