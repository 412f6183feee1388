// The SQLite file deleted under a running `serve` (issue 21, item 8): the service notices, reports unhealthy and
// refuses writes with 503 rather than acknowledging writes no one will ever read. SQLite only.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, startService, TEST_DATABASE_URL, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let svc: ServiceHandle;

beforeAll(async () => {
  if (!TEST_DATABASE_URL) svc = await startService();
});

afterAll(async () => {
  await svc?.stop();
});

describe.skipIf(TEST_DATABASE_URL !== undefined)("the SQLite file deleted under a running serve", () => {
  it("reports unhealthy and refuses writes with 503 store_unavailable, never acknowledging a lost write", async () => {
    const store = (text: string) => call(svc.baseURL, "POST", "/v1/memory/store", { key: svc.apiKey, json: { text } });
    expect((await store("The greenhouse door sticks in cold weather.")).status).toBe(200);
    expect((await call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey })).json.healthy).toBe(true);

    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${svc.dbPath}${suffix}`, { force: true });

    const refused = await store("The compost bin is behind the shed.");
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe("store_unavailable");
    expect(refused.json.error.message).toContain("deleted or replaced");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const status = await call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey });
    expect(status.status).toBe(200);
    expect(status.json.healthy).toBe(false);
  });
});
