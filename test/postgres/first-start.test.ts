// `brain-mcp serve` processes over PostgreSQL: several starting at once on an empty database make one "default"
// workspace (one of them prints its key); a database that stops for a moment is logged, never with the password.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pg from "pg";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { call, startServe, type ServeProcess } from "./processes.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ENV = { BRAIN_EMBEDDER: "lexical" };
const KEY_LINE = /^svc_ws_[0-9A-Za-z]{32}$/gm;

let cluster: PgCluster;
const serves: ServeProcess[] = [];

beforeAll(async () => {
  if (canStartPostgres()) cluster = await startPostgres();
});

afterAll(async () => {
  await Promise.all(serves.map((s) => s.stop()));
  await cluster?.stop();
});

async function countRows(url: string): Promise<{ workspaces: number; keys: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT (SELECT count(*) FROM workspaces)::int AS workspaces, (SELECT count(*) FROM api_keys)::int AS keys",
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

describe.skipIf(!canStartPostgres())("serve over PostgreSQL", () => {
  it("three serves starting at once on an empty database make one workspace; exactly one prints its key", async () => {
    const url = await cluster.createDatabase();
    const started = await Promise.all([0, 1, 2].map(() => startServe(url, { env: ENV })));
    serves.push(...started);

    expect(await countRows(url)).toEqual({ workspaces: 1, keys: 1 });
    const printed = started.map((s) => s.stdout().match(KEY_LINE) ?? []);
    expect(printed.map((keys) => keys.length).sort()).toEqual([0, 0, 1]);
    for (const [i, keys] of printed.entries()) {
      if (keys.length === 0) expect(started[i]!.stdout()).not.toMatch(/svc_ws_|API key|created workspace/);
    }
    const key = printed.flat()[0]!;
    for (const s of started) {
      const status = await call(s.url, key, "status");
      expect(status.status).toBe(200);
      expect(status.body.workspace_name).toBe("default");
    }
  });

  it("a database stopped for a moment is logged as a warning on stderr, without the URL's password, and served again", async () => {
    const password = "Pw-serve-s3cret-7f3a";
    const withPassword = new URL(await cluster.createDatabase());
    withPassword.password = password; // the test cluster trusts loopback: the password is carried, never checked
    const serve = await startServe(withPassword.toString(), { env: ENV });
    serves.push(serve);
    const key = serve.apiKey!;
    expect((await call(serve.url, key, "status")).status).toBe(200);

    await cluster.halt();
    const down = await call(serve.url, key, "health");
    expect(down.status).toBe(503);
    await cluster.start();
    let up = await call(serve.url, key, "health");
    for (let i = 0; i < 5 && up.status !== 200; i++) up = await call(serve.url, key, "health");
    expect(up.status).toBe(200);

    const lines = serve
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { level: string; msg: string });
    const warnings = lines.filter((l) => l.level === "warn" && /postgres/.test(l.msg));
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(lines.some((l) => l.level === "info" && l.msg === "postgres reachable again")).toBe(true);
    expect(serve.stderr()).not.toContain(password);
    expect(serve.stdout()).not.toContain(password);
  });
});
