// A missing or damaged model file stops `serve` at start with a message naming the file: never a service that
// listens with half a model. BRAIN_MODEL_DIR points the real process at a damaged copy of the shipped model folder.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { baseEnv, ROOT, runCli } from "../support/service.js";

// each start loads ONNX Runtime before it meets the damaged file
vi.setConfig({ testTimeout: 60_000 });

const SHIPPED = join(ROOT, "dist", "service", "models", "embed", "data", "minilm");
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** The shipped model folder with `name` damaged by `damage` (a real copy of it; the other files linked). */
function damagedCopy(name: string, damage: (file: string) => void): { dir: string; file: string; dbPath: string } {
  const root = mkdtempSync(join(tmpdir(), "brain-models-"));
  roots.push(root);
  const dir = join(root, "minilm");
  mkdirSync(dir);
  for (const shipped of readdirSync(SHIPPED)) {
    if (shipped === name) copyFileSync(join(SHIPPED, shipped), join(dir, shipped));
    else symlinkSync(join(SHIPPED, shipped), join(dir, shipped));
  }
  const file = join(dir, name);
  damage(file);
  return { dir, file, dbPath: join(root, "brain.db") };
}

function serveWith(copy: { dir: string; dbPath: string }) {
  // always SQLite (also in the PostgreSQL run of this suite): these tests are about the model, not the store
  const env = baseEnv({ BRAIN_MODEL_DIR: copy.dir, BRAIN_DATABASE_URL: undefined });
  return runCli(["serve", "--port", "0", "--db", copy.dbPath], { env });
}

function workspacesIn(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM workspaces").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Refused as it should be: exit 1, the file named, never listening, no stack trace, no first workspace made. */
async function expectRefusedNaming(copy: { dir: string; file: string; dbPath: string }, reason: RegExp) {
  const res = await serveWith(copy);
  expect(res.code, res.stderr).toBe(1);
  expect(res.stderr).toContain(copy.file);
  expect(res.stderr).toMatch(reason);
  expect(res.stdout).not.toContain("listening");
  expect(res.stdout).not.toMatch(/svc_ws_/);
  expect(res.stderr).not.toMatch(/\n\s+at /);
  expect(workspacesIn(copy.dbPath)).toBe(0);
}

describe("serve with a damaged model file", () => {
  it("the shipped model folder holds the files these tests damage", () => {
    expect(readdirSync(SHIPPED)).toEqual(expect.arrayContaining(["model.onnx", "tokenizer.json", "tokenizer_config.json"]));
  });

  it("a missing model.onnx: serve exits 1 at start naming the file, and makes no workspace", async () => {
    await expectRefusedNaming(
      damagedCopy("model.onnx", (file) => rmSync(file)),
      /is missing/,
    );
  });

  it("a truncated model.onnx: serve exits 1 at start naming the file as not loadable", async () => {
    const copy = damagedCopy("model.onnx", (file) => truncateSync(file, Math.floor(statSync(file).size / 3)));
    await expectRefusedNaming(copy, /is not a loadable ONNX model/);
  });

  it("a model.onnx overwritten with an HTML error page: serve exits 1 at start naming the file", async () => {
    const copy = damagedCopy("model.onnx", (file) => writeFileSync(file, "<html><body>502 Bad Gateway</body></html>\n"));
    await expectRefusedNaming(copy, /is not a loadable ONNX model/);
  });

  it("a tokenizer.json cut short: serve exits 1 at start naming the file", async () => {
    const copy = damagedCopy("tokenizer.json", (file) => truncateSync(file, 1000));
    await expectRefusedNaming(copy, /could not be read/);
  });

  it("a tokenizer_config.json that is not JSON: serve exits 1 at start naming that file", async () => {
    const copy = damagedCopy("tokenizer_config.json", (file) => writeFileSync(file, "{ not json"));
    await expectRefusedNaming(copy, /could not be read/);
  });

  it("a BRAIN_MODEL_DIR that does not exist: serve exits 1 at start naming the file it looked for", async () => {
    const copy = damagedCopy("model.onnx", () => undefined);
    rmSync(copy.dir, { recursive: true });
    await expectRefusedNaming(copy, /is missing/);
  });
});
