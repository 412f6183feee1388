// Processes on one new SQLite file, each told at the same moment to make the first workspace: exactly one does.
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openSqliteStore } from "../../src/service/store/sqlite/index.js";
import { childScripts, tempDir } from "./support.js";

const tmp = tempDir();
let children: Awaited<ReturnType<typeof childScripts>>;

beforeAll(async () => {
  children = await childScripts(resolve(import.meta.dirname, "child-first-workspace.ts"), tmp.dir);
});

afterAll(() => {
  children.stop();
  tmp.cleanup();
});

const startChild = (dbPath: string, tag: string) => children.start(dbPath, tag);

it("four processes making the first workspace of one new file at the same moment make exactly one, with its key", async () => {
  const dbPath = join(tmp.dir, "first.db");
  const racers = ["a", "b", "c", "d"].map((tag) => ({ tag, ...startChild(dbPath, tag) }));
  for (const r of racers) expect(await r.nextLine()).toBe("ready");
  for (const r of racers) r.child.stdin!.write("go\n");
  const made = await Promise.all(racers.map(async (r) => [r.tag, await r.nextLine()] as const));
  const winners = made.filter(([, answer]) => answer === "true").map(([tag]) => tag);
  expect(winners).toHaveLength(1);
  expect(made.filter(([, answer]) => answer === "false")).toHaveLength(3);

  const store = openSqliteStore(dbPath);
  expect(await store.countWorkspaces()).toBe(1);
  // The winner's key belongs to the winner's workspace, the store's first id.
  expect((await store.findKeyByHash(`hash_${winners[0]}`))?.workspace).toMatchObject({ id: 1, name: `default_${winners[0]}` });
  await store.close();
});
