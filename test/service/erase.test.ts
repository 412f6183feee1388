// Forgetting erases (issue 28): after `admin memory delete`, `admin memory forget` and the dashboard's forget, each
// committed while a `serve` holds the same SQLite store, the forgotten text is in none of the files on disk (the
// store, its WAL, the lexical index's pages) nor in an `admin backup` made afterwards, which is 0600 under umask
// 022. The files are read byte by byte, not through the API. PostgreSQL: test/postgres/erase.test.ts.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../src/contract/wire.js";
import { baseEnv, call, ROOT, startService, TEST_DATABASE_URL, type ServiceHandle } from "../support/service.js";
import { LEXICAL, tempFile } from "../support/export-files.js";
import { rawGet, startUi, type UiHandle } from "../ui/support.js";

/** Each names a made-up person, so no other text shares its words or its rarest trigrams. */
const SECRETS = {
  delete: "Zorblax Quimbyfeather keeps the spare office key under the blue ceramic frog.",
  forget: "Vexmonda Thruckleby prefers her coffee with cardamom and oat milk.",
  dashboard: "Gryphkin Oozleworth moved to a cottage on Wimbrel Lane in April.",
};
/** Trigrams found in one secret only (the lexical index keeps trigrams, lower-cased, not the text). */
const TRIGRAMS = {
  delete: ["zor", "rbl", "uim", "mby", "byf"],
  forget: ["vex", "xmo", "hru", "ckl", "leb"],
  dashboard: ["ryp", "phk", "ozl", "zle", "mbr"],
};
const OTHERS = [
  "The staging database runs on port 5433 behind the office VPN.",
  "Deploys go out every Tuesday after the standup.",
  "The team lunch on Fridays is ordered from the Thai place around the corner.",
];

/** The bytes of the store and its WAL, as a reader of the disk would find them. */
function onDisk(dbPath: string): Buffer {
  return Buffer.concat([dbPath, `${dbPath}-wal`].filter(existsSync).map((p) => readFileSync(p)));
}
const holds = (bytes: Buffer, which: keyof typeof SECRETS) =>
  bytes.includes(SECRETS[which]) || bytes.includes(SECRETS[which].split(" ")[1]!) || TRIGRAMS[which].some((t) => bytes.includes(t));

describe.skipIf(TEST_DATABASE_URL)("forgetting erases from the SQLite files", () => {
  let svc: ServiceHandle;
  let ui: UiHandle;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    svc = await startService({ env: LEXICAL });
    for (const [which, text] of Object.entries(SECRETS)) {
      const res = await call(svc.baseURL, "POST", ROUTES.store.path, { key: svc.apiKey, json: { text } });
      expect(res.status, res.text).toBe(200);
      ids[which] = res.json.memory_id;
    }
    for (const text of OTHERS) await call(svc.baseURL, "POST", ROUTES.store.path, { key: svc.apiKey, json: { text } });
    ui = await startUi(svc.storeArgs, baseEnv(LEXICAL));
  }, 120_000);

  afterAll(async () => {
    await ui?.stop();
    await svc?.stop();
  });

  it("before forgetting, the texts and their trigrams are on disk (what the checks below look for)", () => {
    const bytes = onDisk(svc.dbPath!);
    for (const which of Object.keys(SECRETS) as (keyof typeof SECRETS)[]) {
      expect(bytes.includes(SECRETS[which]), which).toBe(true);
    }
  });

  it("admin memory delete: the text is gone from the store file and the WAL while serve runs", async () => {
    const out = await svc.adminJson(["memory", "delete", ids.delete!]);
    expect(out.deleted).toEqual([{ workspace_id: svc.workspaceId, memory_id: ids.delete }]);
    const bytes = onDisk(svc.dbPath!);
    expect(holds(bytes, "delete")).toBe(false);
    expect(bytes.includes(SECRETS.forget)).toBe(true); // the others are still there
  });

  it("admin memory forget --yes: the text is gone from the files", async () => {
    const out = await svc.adminJson([
      "memory",
      "forget",
      "--workspace",
      svc.workspaceId,
      "--query",
      "Vexmonda Thruckleby coffee",
      "--min-score",
      "0.5",
      "--yes",
    ]);
    expect(out.forgotten).toEqual([ids.forget]);
    expect(holds(onDisk(svc.dbPath!), "forget")).toBe(false);
  });

  it("the dashboard's forget: the text is gone from the files", async () => {
    const session = await rawGet(ui.port, "/api/session", { cookie: ui.cookie });
    const res = await rawGet(
      ui.port,
      `/api/workspaces/${svc.workspaceId}/memories/forget`,
      {
        cookie: ui.cookie,
        origin: `http://127.0.0.1:${ui.port}`,
        "x-csrf-token": session.json.csrf_token,
        "content-type": "application/json",
      },
      "POST",
      JSON.stringify({ ids: [ids.dashboard] }),
    );
    expect(res.status, res.text).toBe(200);
    expect(holds(onDisk(svc.dbPath!), "dashboard")).toBe(false);
  });

  it("a backup made afterwards holds none of the forgotten texts and is 0600 under umask 022", async () => {
    const out = tempFile("after-forget.db");
    const previous = process.umask(0o022);
    try {
      const res = await svc.admin(["backup", "--out", out]);
      expect(res.code, res.stderr).toBe(0);
    } finally {
      process.umask(previous);
    }
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(out);
    for (const which of Object.keys(SECRETS) as (keyof typeof SECRETS)[]) expect(holds(bytes, which), which).toBe(false);
    for (const text of OTHERS) expect(bytes.includes(text)).toBe(true);
    // and the service still finds what is left, lexically too
    const recall = await call(svc.baseURL, "POST", ROUTES.retrieve.path, { key: svc.apiKey, json: { query: "staging database port" } });
    expect(recall.json.memories[0].text).toBe(OTHERS[0]);
  });
});

describe.skipIf(TEST_DATABASE_URL)("admin memory compact on SQLite", () => {
  it("rewrites a live store (VACUUM, WAL truncated): the memories stay, found as before", async () => {
    const svc = await startService({ env: LEXICAL });
    try {
      const stored = await call(svc.baseURL, "POST", ROUTES.store.path, { key: svc.apiKey, json: { text: OTHERS[0] } });
      expect(stored.status).toBe(200);
      const out = await svc.adminJson(["memory", "compact"]);
      expect(out).toMatchObject({ compacted: true, checkpoint: true });
      expect(statSync(`${svc.dbPath}-wal`).size).toBe(0);
      const recall = await call(svc.baseURL, "POST", ROUTES.retrieve.path, { key: svc.apiKey, json: { query: "staging database port" } });
      expect(recall.json.memories[0].text).toBe(OTHERS[0]);
    } finally {
      await svc.stop();
    }
  });
});

describe.skipIf(TEST_DATABASE_URL)("a store written before forgetting erased", () => {
  it("texts forgotten by an earlier version, left in free pages, are gone once the store is opened", async () => {
    // A 0.3.0 store (test/fixtures/store-0.3.0) whose first memory was deleted as that version did: secure_delete off.
    const dbPath = join(mkdtempSync(join(tmpdir(), "brain-erase-old-")), "store.db");
    copyFileSync(join(ROOT, "test", "fixtures", "store-0.3.0", "store.db"), dbPath);
    const { default: Database } = await import("better-sqlite3");
    const old = new Database(dbPath);
    const text = (old.prepare("SELECT text FROM memories WHERE id = 1").get() as { text: string }).text;
    old.prepare("DELETE FROM memory_vectors WHERE memory_id = 1").run();
    old.prepare("DELETE FROM memories WHERE id = 1").run();
    old.pragma("wal_checkpoint(TRUNCATE)");
    old.close();
    expect(onDisk(dbPath).includes(text)).toBe(true); // what an earlier version left behind

    const svc = await startService({ env: LEXICAL, dbPath, noWorkspace: true });
    try {
      expect(onDisk(dbPath).includes(text)).toBe(false);
      expect(onDisk(dbPath).includes("The production database is PostgreSQL 15 running on db-prod-1.")).toBe(true);
    } finally {
      await svc.stop();
    }
  });
});
