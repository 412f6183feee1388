// `brain-mcp admin`: workspace and key administration on the store, with clear errors for unknown ids and bad args.
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
  expect(json.workspace_id).toEqual(expect.any(String));
  expect(json.api_key).toMatch(/^svc_ws_[0-9A-Za-z]{32}$/);
  expect(json.api_key_prefix).toBe(json.api_key.slice(0, 11));
  expect(made.stdout.trim().split("\n")).toHaveLength(1);

  const human = await runCli(["admin", "workspace", "create", "--name", "Beta", ...storeArgs]);
  expect(human.code).toBe(0);
  expect(human.stdout).toMatch(/Created workspace \S+ \("Beta"/);
  expect(human.stdout).toMatch(/shown once/);
  expect(human.stdout).toMatch(/^svc_ws_[0-9A-Za-z]{32}$/m);
});

it("unknown ids and bad arguments are clear errors with a non-zero exit", async () => {
  const { storeArgs } = freshStore();
  const cases: [string[], RegExp][] = [
    [["workspace", "set-status", "ws_does_not_exist", "suspended"], /ws_does_not_exist|workspace/i],
    [["key", "create", "ws_does_not_exist"], /ws_does_not_exist|workspace/i],
    [["key", "revoke", "key_does_not_exist"], /key_does_not_exist/],
    [["workspace", "set-status", "ws_x", "frozen"], /active, suspended, limit_reached, deleted/],
    [["workspace", "create"], /--name/],
    [["workspace", "explode"], /unknown command/],
    [["key", "import", "ws_x"], /key import/],
    [["--bogus"], /bogus/],
  ];
  for (const [args, message] of cases) {
    const res = await runCli(["admin", ...args, ...storeArgs]);
    expect(res.code, args.join(" ")).not.toBe(0);
    expect(res.stderr, args.join(" ")).toMatch(message);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  }
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
