// startEmbedded (the adapter's --embedded): one local workspace key in embedded.json, shared by adapters that start
// together, over one SQLite file; logs never on stdout.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, statSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, expect, it, vi } from "vitest";
import Database from "better-sqlite3";
import { baseEnv, call, ROOT } from "../support/service.js";
import { copyOldSqliteStore, readAnswers } from "../support/store-0.1.0.js";

// Real processes on a shared 2-core machine: starting one loads the models, which can take seconds under load.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

const SCRIPT = `
import { startEmbedded } from ${JSON.stringify(join(ROOT, "dist", "service", "embedded.js"))};
import { createJsonLog } from ${JSON.stringify(join(ROOT, "dist", "service", "process", "json-log.js"))};
const embedded = await startEmbedded({ configDir: process.argv[1], dataDir: process.argv[2], log: createJsonLog(process.stderr, "info") });
process.stdout.write(JSON.stringify({ baseURL: embedded.baseURL, apiKey: embedded.apiKey }) + "\\n");
process.stdin.on("end", async () => { await embedded.close(); process.exit(0); });
process.stdin.resume();
`;

interface Adapter {
  child: ChildProcess;
  baseURL: string;
  apiKey: string;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<number | null>;
}

function startAdapter(configDir: string, dataDir: string): Promise<Adapter> {
  // Embedded always uses SQLite, so no database URL here even when the suite runs on PostgreSQL.
  const env = baseEnv({ BRAIN_LOG: "debug" });
  delete env.BRAIN_DATABASE_URL;
  const child = spawn(process.execPath, ["--input-type=module", "-e", SCRIPT, configDir, dataDir], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("\n")) {
        const { baseURL, apiKey } = JSON.parse(out.split("\n")[0]!);
        resolve({
          child,
          baseURL,
          apiKey,
          stdout: () => out,
          stderr: () => err,
          stop: () =>
            new Promise((r) => {
              child.once("exit", (code) => r(code));
              child.stdin!.end();
            }),
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`embedded exited ${code}: ${err}`)));
  });
}

it("two adapters started together share one workspace through one SQLite file, and a restart reuses the key", async () => {
  const configDir = join(mkdtempSync(join(tmpdir(), "brain-embedded-")), "config");
  const dataDir = join(mkdtempSync(join(tmpdir(), "brain-embedded-data-")), "data");
  const [a, b] = await Promise.all([startAdapter(configDir, dataDir), startAdapter(configDir, dataDir)]);
  expect(a.apiKey).toBe(b.apiKey);
  expect(a.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(a.baseURL).not.toBe(b.baseURL);

  const file = join(configDir, "embedded.json");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(file, "utf8")).api_key).toBe(a.apiKey);

  const stored = await call(a.baseURL, "POST", "/v1/memory/store", {
    key: a.apiKey,
    json: { text: "Both adapters see the dentist appointment on Monday." },
  });
  expect(stored.status, stored.text).toBe(200);
  const seenByB = await call(b.baseURL, "GET", "/v1/status", { key: b.apiKey });
  expect(seenByB.json.memory_count).toBe(1);
  const db = new Database(join(dataDir, "embedded.db"), { readonly: true }); // not serve's brain.db
  expect(db.prepare("SELECT count(*) AS n FROM workspaces").get()).toEqual({ n: 1 });
  db.close();

  // stdout carries only what the host process writes itself; the service logs to stderr.
  expect(a.stdout().trim().split("\n")).toHaveLength(1);
  expect(await a.stop()).toBe(0);
  expect(await b.stop()).toBe(0);

  const again = await startAdapter(configDir, dataDir);
  expect(again.apiKey).toBe(a.apiKey);
  // a restart loads its workspace's index (and runs the model once) before the host's first recall
  const deadline = Date.now() + 20_000;
  while (!again.stderr().includes('"vector index loaded"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const loaded = again
    .stderr()
    .split("\n")
    .find((line) => line.includes('"vector index loaded"'));
  expect(JSON.parse(loaded!)).toMatchObject({ memories: 1 });
  expect((await call(again.baseURL, "GET", "/v1/status", { key: again.apiKey })).json.memory_count).toBe(1);
  await again.stop();
});

it("an embedded setup of 0.1.0 (its store and its embedded.json with a text workspace id) keeps its key and memories", async () => {
  const dbPath = copyOldSqliteStore();
  const { keys } = await readAnswers();
  const configDir = mkdtempSync(join(tmpdir(), "brain-embedded-010-"));
  const old = { workspace_id: "ws_01M87VJ5AP3X17QD4BCDAMH5D0", api_key: keys.first, db_path: dbPath };
  writeFileSync(join(configDir, "embedded.json"), JSON.stringify(old), { mode: 0o600 });

  const adapter = await startAdapter(configDir, dirname(dbPath));
  expect(adapter.apiKey).toBe(keys.first);
  const status = await call(adapter.baseURL, "GET", "/v1/status", { key: adapter.apiKey });
  expect(status.json).toMatchObject({ workspace_id: 1, api_key_id: 1, memory_count: 7 });
  await adapter.stop();
  const db = new Database(dbPath, { readonly: true });
  expect(db.prepare("SELECT count(*) AS n FROM workspaces").get()).toEqual({ n: 2 }); // none made
  db.close();
});
