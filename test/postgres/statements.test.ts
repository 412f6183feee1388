// The statements a request sends to PostgreSQL, counted in the real `serve` process (test/bench/pg-path-hook.js counts
// every `Client.query`, one message and one reply each, while each request is open), so that a change adding round
// trips to the request path fails here. Issue 27 (`pgstmt`): a retrieve sends 4 (the key with its rate token; the
// lexical search with the index's new rows; the lexical matches' rows; the dense channel's other rows), a new store
// with an Idempotency-Key 6 (key; the pre-check beside the model; BEGIN, lock, the idempotency check and the index's
// new rows in one message; the near memories' rows; the insert; the usage event and the idempotency record with
// COMMIT). Before (0b4c8f1): 5 and 9.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { call, startServe, type ServeProcess } from "./processes.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HOOK = fileURLToPath(new URL("../bench/pg-path-hook.js", import.meta.url));

/** Statements the process sends on its own timers (pg-path-hook.js keeps each statement's first 70 characters). */
const BACKGROUND = /^WITH t AS \(SELECT \* FROM unnest|webhook|^UPDATE api_keys SET last_used_at/;

interface Counted {
  url: string;
  status: number;
  sql: string[];
}

describe.skipIf(!canStartPostgres())("statements per request on PostgreSQL", () => {
  let cluster: PgCluster;
  let server: ServeProcess;
  let key: string;
  let dir: string;
  let out: string;

  beforeAll(async () => {
    cluster = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), "pg-statements-"));
    out = join(dir, "requests.jsonl");
    writeFileSync(out, "");
    server = await startServe(await cluster.createDatabase(), {
      env: {
        NODE_OPTIONS: `--import ${HOOK}`,
        PG_PATH_OUT: out,
        PG_PATH_FROM: ROOT,
        BRAIN_LOG: "error",
        BRAIN_WEBHOOK_POLL_MS: "3600000",
      },
    });
    key = server.apiKey!;
  });

  afterAll(async () => {
    await server?.stop();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const pause = () => new Promise((resolve) => setTimeout(resolve, 150)); // the read bookkeeping's flush goes between
  /** Sends one request and returns the statements it sent while it was open. */
  const lines = () =>
    readFileSync(out, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Counted);
  const counted = async (route: "store" | "retrieve", body: unknown, headers: Record<string, string> = {}) => {
    const before = lines().length;
    const res = await call(server.url, key, route, body, headers);
    expect(res.status).toBe(200);
    await pause(); // the hook writes its line as the response ends; the flush goes before the next request
    const after = lines().slice(before);
    expect(after.map((r) => r.url)).toEqual([`/v1/memory/${route}`]);
    // Work of the process's own timers that may land while a request is open (under load a timer runs late) is not
    // the request's: the read bookkeeping's flush, the webhook worker's polls, a key's last-use mark.
    const sql = after[0]!.sql.filter((s) => !BACKGROUND.test(s));
    return { body: res.body, request: { ...after[0]!, sql } };
  };

  it("sends 4 statements for a retrieve and 6 for a new store with an Idempotency-Key; a merge and a replay no more", async () => {
    const facts = [
      "The deploy pipeline runs on GitHub Actions for every tag.",
      "I prefer dark roast coffee in the morning.",
      "Our staging database is PostgreSQL 16 on a small VM.",
      "The team meets on Thursdays at ten to plan the week.",
    ];
    for (const text of facts) await counted("store", { text });
    await counted("retrieve", { query: "when does the team meet?" }); // the index is cached from here on

    const stored = await counted("store", { text: "The office plants are watered every Monday morning." }, { "idempotency-key": "new-1" });
    expect(stored.body.dedup.action).toBe("stored_new");
    expect(stored.request.sql.length, stored.request.sql.join("\n")).toBeLessThanOrEqual(6);
    expect(stored.request.sql.filter((s) => s.startsWith("BEGIN"))).toHaveLength(1);
    expect(stored.request.sql.filter((s) => s === "COMMIT")).toHaveLength(0); // it rides with the last writes

    const replay = await counted("store", { text: "The office plants are watered every Monday morning." }, { "idempotency-key": "new-1" });
    expect(replay.body.memory_id).toBe(stored.body.memory_id);
    expect(replay.request.sql.length, replay.request.sql.join("\n")).toBeLessThanOrEqual(2); // key, the pre-check: answered before any lock

    const merged = await counted(
      "store",
      { text: "I prefer dark roast coffee in the morning, strong and black." },
      { "idempotency-key": "merge-1" },
    );
    expect(merged.body.dedup.action).toBe("merged");
    // key, pre-check, lock+reads, rows, update, usage+record+COMMIT
    expect(merged.request.sql.length, merged.request.sql.join("\n")).toBeLessThanOrEqual(6);

    for (const query of ["how do I take my coffee?", "what database runs staging?", "when are the plants watered?"]) {
      const found = await counted("retrieve", { query, top_k: 3 });
      expect(found.body.count).toBeGreaterThan(0);
      expect(found.request.sql.length, found.request.sql.join("\n")).toBeLessThanOrEqual(4);
      // the index's new rows ride with the lexical search: no refresh of their own
      expect(found.request.sql.filter((s) => /^SELECT id, rev, embedder_id/.test(s))).toHaveLength(0);
    }
  });
});
