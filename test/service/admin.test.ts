// `brain-mcp admin`: workspace and key administration on the store, with clear errors for unknown ids and bad args.
import { existsSync } from "node:fs";
import { expect, it, vi } from "vitest";
import { call, freshStore, runCli, startService, TEST_DATABASE_URL } from "../support/service.js";

// Real processes on a shared 2-core machine: starting one loads the models, which can take seconds under load.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

it("workspace create prints one JSON object with the workspace and its first key, or sentences without --json", async () => {
  const { storeArgs } = freshStore();
  const made = await runCli([
    "admin",
    "workspace",
    "create",
    "--name",
    "Acme",
    "--plan",
    "team",
    "--billing-cycle",
    "annual",
    "--json",
    ...storeArgs,
  ]);
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
    expect(
      (await call(svc.baseURL, "POST", "/v1/memory/store", { key: svc.apiKey, json: { text: "The wiki moved to Notion in March." } }))
        .status,
    ).toBe(200);
    const extra = await svc.adminJson(["key", "create", second.workspaceId]);
    await svc.adminJson(["key", "revoke", String(extra.key_id)]);

    const listed = (await svc.adminJson(["workspace", "list"])).workspaces as Record<string, unknown>[];
    const ours = listed.filter((w) => w.workspace_id === svc.workspaceId || w.workspace_id === second.workspaceId);
    expect(ours).toEqual([
      {
        workspace_id: svc.workspaceId,
        name: "primary",
        status: "active",
        plan: "free",
        billing_cycle: "monthly",
        memories: 1,
        live_keys: 1,
      },
      {
        workspace_id: second.workspaceId,
        name: "second",
        status: "active",
        plan: "free",
        billing_cycle: "monthly",
        memories: 0,
        live_keys: 1,
      },
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

it("key import refuses short and predictable keys, naming what is missing and never the key", async () => {
  const svc = await startService();
  try {
    const weak = [
      ["x", /1 character long; an imported key needs at least 24/],
      ["k7Qm2xK9pR4vT1nW8zB3cYd", /23 characters long/],
      ["a".repeat(40), /too predictable/],
      ["svc_ws_abcdefghijklmnopqrstuvwxyz0123", /too predictable/],
      ["brain_live_0123456789abcdef0123456789", /too predictable/],
      ["deadbeef".repeat(5), /too predictable/],
    ] as const;
    for (const [key, message] of weak) {
      const res = await svc.admin(["key", "import", svc.workspaceId, "-"], { input: `${key}\n` });
      expect(res.code, key).toBe(1);
      expect(res.stderr).toMatch(message);
      expect(res.stderr).toContain("nothing was imported");
      expect(res.stderr + res.stdout).not.toContain(key);
      expect((await call(svc.baseURL, "GET", "/v1/status", { key })).status).toBe(401);
    }
  } finally {
    await svc.stop();
  }
});

it("api_key_prefix never shows the whole key, nor more than a third of it", async () => {
  const svc = await startService();
  try {
    const key = "k7Qm2xK9pR4vT1nW8zB3cYd5"; // 24 characters: the shortest importable key
    const imported = await svc.adminJson(["key", "import", svc.workspaceId, "-"], { input: `${key}\n` });
    expect(imported.api_key_prefix).toBe(key.slice(0, 8));
    const res = await call(svc.baseURL, "GET", "/v1/status", { key });
    expect(res.status).toBe(200);
    expect(res.json.api_key_prefix).toBe(key.slice(0, 8));
    expect((await call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey })).json.api_key_prefix).toBe(svc.apiKey.slice(0, 11));
  } finally {
    await svc.stop();
  }
});

it("importing a key another workspace has, or a revoked key, and revoking a revoked key are clear messages", async () => {
  const svc = await startService();
  try {
    const other = await svc.newWorkspace("other");
    const taken = await svc.admin(["key", "import", svc.workspaceId, "-"], { input: `${other.apiKey}\n` });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`this key already opens workspace ${other.workspaceId} (key ${other.keyId})`);
    expect(taken.stderr).not.toMatch(/UNIQUE|duplicate key|constraint/i);
    expect(taken.stderr).not.toContain(other.apiKey);
    expect((await call(svc.baseURL, "GET", "/v1/status", { key: other.apiKey })).json.workspace_id).toBe(other.workspaceId);

    const again = await svc.admin(["key", "import", other.workspaceId, "-"], { input: `${other.apiKey}\n` });
    expect(again.stderr).toContain(`this key is already key ${other.keyId} of workspace ${other.workspaceId}`);

    expect(await svc.adminJson(["key", "revoke", other.keyId])).toMatchObject({ revoked: true });
    const twice = await svc.admin(["key", "revoke", other.keyId]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`API key ${other.keyId} is already revoked`);
    expect((await svc.admin(["key", "revoke", 987654])).stderr).toContain("no API key with id 987654");

    const revived = await svc.admin(["key", "import", other.workspaceId, "-"], { input: `${other.apiKey}\n` });
    expect(revived.code).toBe(1);
    expect(revived.stderr).toContain("this key was revoked");
    expect(revived.stderr).not.toMatch(/UNIQUE|duplicate key|constraint/i);
    expect((await call(svc.baseURL, "GET", "/v1/status", { key: other.apiKey })).status).toBe(401);
  } finally {
    await svc.stop();
  }
});
