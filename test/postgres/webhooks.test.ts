// Webhooks with several service processes on one PostgreSQL: every process works the outbox, and each event reaches
// the endpoint once (deliveries are leased with FOR UPDATE SKIP LOCKED), verified with the standardwebhooks library.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";
import { createWorkspace, runAdmin, startServe, type ServeProcess } from "./processes.js";

const ENV = {
  BRAIN_EMBEDDER: "lexical",
  BRAIN_WEBHOOK_ALLOW_PRIVATE: "1",
  BRAIN_WEBHOOK_POLL_MS: "50",
};
const EVENTS = 60;

describe.skipIf(!canStartPostgres())("three service processes delivering one PostgreSQL's webhooks", () => {
  let cluster: PgCluster;
  let url: string;
  let servers: ServeProcess[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    process.env.BRAIN_WEBHOOK_ALLOW_PRIVATE = "1"; // for `admin webhook add` to a 127.0.0.1 receiver
    cluster = await startPostgres();
    url = await cluster.createDatabase();
    receiver = await startReceiver();
    servers = await Promise.all([0, 1, 2].map(() => startServe(url, { env: ENV })));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await receiver?.close();
    await cluster?.stop();
  });

  it(`${EVENTS} events written at once are each delivered exactly once`, async () => {
    const { workspaceId } = await createWorkspace(url, "fleet");
    const added = JSON.parse(
      await runAdmin(url, ["webhook", "add", "--workspace", String(workspaceId), "--url", `${receiver.url}/fleet`, "--json"]),
    );
    receiver.setSecret(added.secret);
    // Slow answers keep each delivery in flight long enough for the processes to contend for the rest.
    receiver.respond(() => ({ status: 200, delayMs: 30 }));

    // One statement makes EVENTS keys: the trigger writes EVENTS key.created events in its transaction.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      `INSERT INTO api_keys (workspace_id, key_hash, prefix, created_at)
       SELECT $1, md5(random()::text || g), 'svc_ws_fake', (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 1000
         FROM generate_series(1, $2) g`,
      [workspaceId, EVENTS],
    );
    await client.end();

    const got = await receiver.waitFor((m) => m.length >= EVENTS, 60_000);
    await new Promise((r) => setTimeout(r, 1_500)); // a duplicate would arrive by now
    expect(receiver.received).toHaveLength(EVENTS);
    expect(new Set(got.map((m) => m.id)).size).toBe(EVENTS);
    expect(new Set(got.map((m) => m.data.key_id)).size).toBe(EVENTS);
    expect(got.every((m) => m.type === "key.created" && m.verified)).toBe(true);
    expect(servers.every((s) => s.alive())).toBe(true);

    const log = JSON.parse(await runAdmin(url, ["webhook", "deliveries", String(added.id), "--limit", "1000", "--json"]));
    expect(log.deliveries).toHaveLength(EVENTS);
    expect(log.deliveries.every((d: { status: string; attempts: number }) => d.status === "delivered" && d.attempts === 1)).toBe(true);
  }, 120_000);
});
