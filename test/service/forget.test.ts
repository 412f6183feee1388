// Forgetting through `admin memory delete | forget`, seen through the API of two `serve` processes on one store: a
// forgotten memory is gone from recall in both, from health and status counts at once, from exports made afterwards
// and from idempotent replays; the deletion is a usage event without text. Runs on SQLite, and on PostgreSQL in the
// service suite's PostgreSQL run (test/postgres/vitest.service.config.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../src/contract/wire.js";
import { spawn } from "node:child_process";
import { BIN, baseEnv, call, queryStore, startService, usageCounts, type ServiceHandle } from "../support/service.js";

const TARGET = "Dana moved to a house on Linden Street next to the old bakery last spring.";
const OTHERS = [
  "The staging database is PostgreSQL 15 on db-staging.internal, port 5432.",
  "Production deploys run from the main branch through the release workflow every Tuesday.",
  "The team lunch on Fridays is ordered from the Thai place around the corner.",
];
const QUERY = "where does Dana live?";

let a: ServiceHandle;
let b: ServiceHandle;
let targetId: number;
const idempotencyKey = "forget-test-1";

async function store(service: ServiceHandle, text: string, headers: Record<string, string> = {}) {
  const res = await call(service.baseURL, "POST", ROUTES.store.path, { key: a.apiKey, json: { text }, headers });
  expect(res.status, res.text).toBe(200);
  return res.json;
}
const recallIds = async (service: ServiceHandle, query = QUERY) =>
  (await call(service.baseURL, "POST", ROUTES.retrieve.path, { key: a.apiKey, json: { query, top_k: 50 } })).json.memories.map(
    (m: { id: number }) => m.id,
  );
const healthTotal = async (service: ServiceHandle) =>
  (await call(service.baseURL, "GET", ROUTES.health.path, { key: a.apiKey })).json.signals.total_memories;
const statusCount = async (service: ServiceHandle) =>
  (await call(service.baseURL, "GET", ROUTES.status.path, { key: a.apiKey })).json.memory_count;

beforeAll(async () => {
  a = await startService();
  targetId = (await store(a, TARGET, { "Idempotency-Key": idempotencyKey })).memory_id;
  for (const text of OTHERS) await store(a, text);
  // A second process on the same store, its vector cache warmed with the memory before it is forgotten.
  b = await startService({ dbPath: a.dbPath, noWorkspace: true });
  for (const service of [a, b]) expect(await recallIds(service)).toContain(targetId);
}, 120_000);

afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

describe("admin memory delete", () => {
  it("forgets a memory everywhere: recall in both processes, health and status counts, exports made afterwards", async () => {
    // Reads are counted in batches (bookkeeping.ts); health writes each process's pending ones first.
    for (const service of [a, b]) await healthTotal(service);
    const before = await usageCounts(a, a.workspaceId);
    const deleted = await a.adminJson(["memory", "delete", targetId]);
    expect(deleted).toEqual({ deleted: [{ workspace_id: a.workspaceId, memory_id: targetId }], not_found: [] });
    expect(await usageCounts(a, a.workspaceId)).toEqual(before); // forgetting bills nothing

    for (const service of [a, b]) {
      expect(await recallIds(service)).not.toContain(targetId);
      expect(await healthTotal(service)).toBe(OTHERS.length);
      expect(await statusCount(service)).toBe(OTHERS.length);
    }
    const exported = await a.admin(["export", "--workspace", a.workspaceId]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(OTHERS[0]);
    expect(exported.stdout).not.toContain("Linden");

    // a deletion is recorded, as an event without text
    const events = await queryStore<{ kind: string; memory_id: number | string }>(a, {
      sqlite: "SELECT * FROM usage_events WHERE kind = 'delete'",
      pg: "SELECT * FROM usage_events WHERE kind = 'delete'",
    });
    expect(events.map((e) => Number(e.memory_id))).toEqual([targetId]);
    expect(JSON.stringify(events)).not.toContain("Linden");
  });

  it("nothing of the text is left in the store, and a replay of the store that made it is a new request", async () => {
    const rows = await queryStore(a, {
      sqlite: "SELECT text FROM memories WHERE text LIKE '%Linden%'",
      pg: "SELECT text FROM memories WHERE text LIKE '%Linden%'",
    });
    expect(rows).toEqual([]);
    const answers = await queryStore<{ response: string }>(a, {
      sqlite: "SELECT response FROM idempotency",
      pg: "SELECT response FROM idempotency_keys",
    });
    expect(answers.map((r) => JSON.parse(r.response).memory_id)).not.toContain(targetId);
    // The first answer (naming the forgotten memory) is gone: the same request again is stored anew.
    const replay = await store(b, TARGET, { "Idempotency-Key": idempotencyKey });
    expect(replay.memory_id).not.toBe(targetId);
    expect(await a.adminJson(["memory", "delete", replay.memory_id])).toMatchObject({ not_found: [] });
  });

  it("an unknown id, or one of another workspace, is reported and nothing else is touched", async () => {
    const other = await a.newWorkspace("other");
    const res = await a.admin(["memory", "delete", "999999", "--workspace", other.workspaceId, "--json"]);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toEqual({ deleted: [], not_found: [999999] });
    const someone = (await recallIds(a, "staging database"))[0];
    const wrongWorkspace = await a.admin(["memory", "delete", someone, "--workspace", other.workspaceId, "--json"]);
    expect(wrongWorkspace.code).toBe(1);
    expect(await healthTotal(a)).toBe(OTHERS.length);
    const unknown = await a.admin(["memory", "erase", "1"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("expected: memory delete MEMORY_ID…");
    const bad = await a.admin(["memory", "delete", "mem_1"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("MEMORY_ID must be a positive integer");
  });
});

// Each of these runs `admin memory forget`, which loads the sentence model in a process of its own (WebAssembly in
// a clone: 25 s at load 15), so each has the time of that load and its work.
describe("admin memory forget", { timeout: 90_000 }, () => {
  const forget = (extra: (string | number)[]) =>
    a.admin(["memory", "forget", "--workspace", a.workspaceId, "--query", "the staging database server", "--min-score", "0.5", ...extra]);

  it("without a terminal and without --yes, shows what it would forget and forgets nothing", async () => {
    const res = await forget([]);
    expect(res.code).toBe(2);
    expect(res.stdout).toContain("Would forget 1 memory");
    expect(res.stdout).toContain("db-staging.internal");
    expect(res.stderr).toContain("--yes");
    expect(await healthTotal(a)).toBe(OTHERS.length);
  });

  it("with --yes, forgets what it found, in every process", async () => {
    const staging = (await recallIds(b, "staging database"))[0];
    const res = await forget(["--yes", "--json"]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ workspace_id: a.workspaceId, forgotten: [staging] });
    for (const service of [a, b]) {
      expect(await recallIds(service, "staging database")).not.toContain(staging);
      expect(await healthTotal(service)).toBe(OTHERS.length - 1);
    }
    // Scores are recall's own, relative to the best match: asked again, the forgotten memory is not among them.
    const again = await forget([]);
    expect(again.stdout).not.toContain("db-staging");
  });

  /** `admin memory forget …` on a pseudo-terminal (util-linux `script`), answering `answer` once it asks. */
  function onTerminal(query: string, answer: string): Promise<{ code: number | null; output: string }> {
    const args = ["admin", "memory", "forget", "--workspace", String(a.workspaceId), "--query", query, ...a.storeArgs];
    const command = [process.execPath, BIN, ...args].map((x) => `'${x.replace(/'/g, "'\\''")}'`).join(" ");
    const child = spawn("script", ["-qec", command, "/dev/null"], { env: baseEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    let answered = false;
    child.stdout.on("data", (d) => {
      output += d;
      if (!answered && output.includes("[y/N]")) {
        answered = true;
        child.stdin.write(`${answer}\r`);
      }
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    return new Promise((resolve) =>
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      }),
    );
  }

  it("on a terminal, lists what it found and asks: no forgets nothing, yes forgets them", async () => {
    const query = "where is the Friday team lunch ordered from?";
    const lunch = (await recallIds(a, query))[0];
    const no = await onTerminal(query, "n");
    expect(no.code, no.output).toBe(1);
    expect(no.output).toContain("Thai place");
    expect(no.output).toContain(`Forget this memory of workspace ${a.workspaceId}?`);
    expect(no.output).toContain("[y/N]");
    expect(no.output).toContain("Nothing forgotten.");
    expect(await recallIds(a, query)).toContain(lunch);
    const yes = await onTerminal(query, "y");
    expect(yes.code, yes.output).toBe(0);
    expect(yes.output).toContain("Forgot 1 memory");
    expect(await recallIds(b, query)).not.toContain(lunch);
  });

  it("refuses a missing query or workspace and a bad --min-score before opening anything", async () => {
    const noQuery = await a.admin(["memory", "forget", "--workspace", a.workspaceId]);
    expect(noQuery.code).toBe(2);
    expect(noQuery.stderr).toContain("--query");
    const noWorkspace = await a.admin(["memory", "forget", "--query", "x"]);
    expect(noWorkspace.code).toBe(2);
    const badScore = await a.admin(["memory", "forget", "--workspace", a.workspaceId, "--query", "x", "--min-score", "2"]);
    expect(badScore.code).toBe(2);
    expect(badScore.stderr).toContain("--min-score");
  });
});
