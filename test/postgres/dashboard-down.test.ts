// The dashboard over PostgreSQL answers 503 with Retry-After (not 500) while the database is down, and serves again
// once it is back (issue 21, item 6).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canStartPostgres, startPostgres, type PgCluster } from "../support/pg.js";
import { baseEnv } from "../support/service.js";
import { rawGet, startUi, type UiHandle } from "../ui/support.js";
import { runAdmin } from "./processes.js";

let cluster: PgCluster;
let ui: UiHandle;

beforeAll(async () => {
  if (!canStartPostgres()) return;
  cluster = await startPostgres();
  const url = await cluster.createDatabase();
  await runAdmin(url, ["workspace", "create", "--name", "dash"]);
  ui = await startUi([], baseEnv({ BRAIN_DATABASE_URL: url }));
}, 120_000);

afterAll(async () => {
  await ui?.stop();
  await cluster?.stop();
});

describe.skipIf(!canStartPostgres())("the dashboard while PostgreSQL is down", () => {
  it("answers 503 with Retry-After, then 200 once the database is back", async () => {
    const get = () => rawGet(ui.port, "/api/workspaces", { cookie: ui.cookie });
    expect((await get()).status).toBe(200);
    await cluster.halt();
    const down = await get();
    expect(down.status).toBe(503);
    expect(Number(down.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(down.text).toContain("unreachable");
    await cluster.start();
    const deadline = Date.now() + 20_000;
    let back = await get();
    while (back.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      back = await get();
    }
    expect(back.status).toBe(200);
  }, 90_000);
});
