// `brain-mcp admin`: workspace and key administration on the store, with clear errors for unknown ids and bad args.
import { existsSync } from "node:fs";
import { expect, it, vi } from "vitest";
import { call, freshStore, runCli, startService, TEST_DATABASE_URL } from "../support/service.js";

// Real processes on a shared 2-core machine: starting one loads the models, which can take seconds under load.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

it("workspace create prints one JSON object with the workspace and its first key, or sentences without --json", async () => {
  const { storeArgs } = freshStore();
  const made = await runCli(["admin", "workspace", "create", "--name", "Acme", "--plan", "team", "--billing-cycle", "annual", "--json", ...storeArgs]);
  expect(made.code, made.stderr).toBe(0);
  const json = JSON.parse(made.stdout);
  expect(json).toMatchObject({ name: "Acme", plan: "team", billing_cycle: "annual", status: "active" });
  expect(Number.isSafeInteger(json.workspace_id) && json.workspace_id > 0).toBe(true);
  expect(Number.isSafeInteger(json.key_id) && json.key_id > 0).toBe(true);
  expect(json.api_key).toMatch(/^svc_ws_[0-9A-Za-z]{32}$/);
  expect(json.api_key_prefix).toBe(json.api_key.slice(0, 11));
  expect(made.stdout.trim().split("\n")).toHaveLength(1);

  const human = await runCli(["admin", "workspace", "create", "--name", "Beta", ...storeArgs]);
  expect(human.code).toBe(0);
  expect(human.stdout).toMatch(/Created workspace \d+ \("Beta"/);
  expect(human.stdout).toMatch(/shown once/);
  expect(human.stdout).toMatch(/^svc_ws_[0-9A-Za-z]{32}$/m);
});

it("unknown ids and bad arguments are clear errors with a non-zero exit", async () => {
  const { storeArgs } = freshStore();
  const cases: [string[], RegExp][] = [
    [["workspace", "set-status", "987654", "suspended"], /workspace 987654/i],
    [["key", "create", "987654"], /workspace 987654/i],
    [["key", "revoke", "987654"], /no API key with id 987654/],
    [["workspace", "set-status", "1", "frozen"], /active, suspended, limit_reached, deleted/],
    [["workspace", "create"], /--name/],
    [["workspace", "explode"], /unknown command/],
    [["key", "import", "1"], /key import/],
    [["--bogus"], /bogus/],
  ];
  for (const [args, message] of cases) {
    const res = await runCli(["admin", ...args, ...storeArgs]);
    expect(res.code, args.join(" ")).not.toBe(0);
    expect(res.stderr, args.join(" ")).toMatch(message);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  }
});

it("an id that is not a positive integer is a usage error (exit 2) naming the argument, before the store is opened", async () => {
  const { storeArgs, dbPath } = freshStore();
  const cases: [string[], RegExp][] = [
    [["workspace", "set-status", "ws_01HZX", "suspended"], /WORKSPACE_ID must be a positive integer, not "ws_01HZX"/],
    [["key", "create", "1.5"], /WORKSPACE_ID must be a positive integer/],
    [["key", "create", "0"], /WORKSPACE_ID must be a positive integer/],
    [["key", "revoke", "key_01HZX"], /KEY_ID must be a positive integer, not "key_01HZX"/],
    [["key", "import", "x1", "-"], /WORKSPACE_ID must be a positive integer/],
    [["reembed", "--workspace", "abc"], /--workspace must be a positive integer/],
  ];
  for (const [args, message] of cases) {
    const res = await runCli(["admin", ...args, ...storeArgs]);
    expect(res.code, args.join(" ")).toBe(2);
    expect(res.stderr, args.join(" ")).toMatch(message);
    expect(res.stderr).toMatch(/^usage: brain-mcp admin/m);
  }
  if (dbPath) expect(existsSync(dbPath)).toBe(false);
});

it("set-status and key commands change what the API answers", async () => {
  const svc = await startService();
  try {
    const status = () => call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey });
    const set = await svc.adminJson(["workspace", "set-status", svc.workspaceId, "limit_reached"]);
    expect(set).toMatchObject({ workspace_id: svc.workspaceId, status: "limit_reached" });
    expect((await status()).json.workspace_status).toBe("limit_reached");
    const key = await svc.adminJson(["key", "create", svc.workspaceId]);
    expect(key).toMatchObject({ workspace_id: svc.workspaceId, api_key: expect.stringMatching(/^svc_ws_/) });
    expect((await call(svc.baseURL, "GET", "/v1/status", { key: String(key.api_key) })).status).toBe(200);
    expect(await svc.adminJson(["key", "revoke", String(key.key_id)])).toMatchObject({ revoked: true });
    expect((await call(svc.baseURL, "GET", "/v1/status", { key: String(key.api_key) })).status).toBe(401);
    const reembedded = await svc.adminJson(["reembed", "--workspace", svc.workspaceId]);
    expect(reembedded).toMatchObject({ workspace_id: svc.workspaceId, reembedded: 0 });
  } finally {
    await svc.stop();
  }
});

it("workspace list shows every workspace with its memories and live keys, and never a key", async () => {
  const svc = await startService();
  try {
    const second = await svc.newWorkspace("second");
    expect((await call(svc.baseURL, "POST", "/v1/memory/store", { key: svc.apiKey, json: { text: "The wiki moved to Notion in March." } })).status).toBe(200);
    const extra = await svc.adminJson(["key", "create", second.workspaceId]);
    await svc.adminJson(["key", "revoke", String(extra.key_id)]);

    const listed = (await svc.adminJson(["workspace", "list"])).workspaces as Record<string, unknown>[];
    const ours = listed.filter((w) => w.workspace_id === svc.workspaceId || w.workspace_id === second.workspaceId);
    expect(ours).toEqual([
      { workspace_id: svc.workspaceId, name: "primary", status: "active", plan: "free", billing_cycle: "monthly", memories: 1, live_keys: 1 },
      { workspace_id: second.workspaceId, name: "second", status: "active", plan: "free", billing_cycle: "monthly", memories: 0, live_keys: 1 },
    ]);

    const human = await svc.admin(["workspace", "list"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`${svc.workspaceId}  "primary"  active, plan free, 1 memory, 1 live key`);
    expect(human.stdout).toContain(`${second.workspaceId}  "second"  active, plan free, 0 memories, 1 live key`);
    expect(human.stdout + JSON.stringify(listed)).not.toMatch(/svc_ws_/);
  } finally {
    await svc.stop();
  }
});

// Under BRAIN_TEST_DATABASE_URL the store is shared with the other tests, so never empty.
it.skipIf(TEST_DATABASE_URL)("workspace list on an empty store says how to make one", async () => {
  const { storeArgs } = freshStore();
  const res = await runCli(["admin", "workspace", "list", ...storeArgs]);
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toMatch(/No workspaces yet/);
});
