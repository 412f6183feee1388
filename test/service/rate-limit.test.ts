// Per-key token bucket (BRAIN_RATE_LIMIT_RPS / BRAIN_RATE_LIMIT_BURST): 429 rate_limited with Retry-After.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { REQUEST_ID_PATTERN } from "../../src/contract/wire.js";
import { call, startService, type ServiceHandle } from "../support/service.js";

// Real processes on a shared 2-core machine: starting one loads the models, which can take seconds under load.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let svc: ServiceHandle;
beforeAll(async () => {
  svc = await startService({ env: { BRAIN_RATE_LIMIT_RPS: "0.5", BRAIN_RATE_LIMIT_BURST: "3" } });
});
afterAll(async () => {
  await svc?.stop();
});

it("a key over its burst gets 429 rate_limited with Retry-After and retry_after in seconds; other keys are unaffected", async () => {
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await call(svc.baseURL, "GET", "/v1/status", { key: svc.apiKey }));
  expect(answers.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
  const limited = answers[3]!;
  expect(limited.status).toBe(429);
  expect(limited.json.error).toMatchObject({ type: "rate_limit_error", code: "rate_limited" });
  expect(limited.json.error.request_id).toBe(limited.headers.get("x-request-id"));
  expect(limited.headers.get("x-request-id")).toMatch(REQUEST_ID_PATTERN);
  const header = limited.headers.get("retry-after");
  expect(header).toMatch(/^\d+$/);
  expect(Number(header)).toBeGreaterThanOrEqual(1);
  expect(limited.json.error.retry_after).toBe(Number(header));
  expect(answers[4]!.status).toBe(429);

  const other = await svc.newWorkspace("other");
  expect((await call(svc.baseURL, "GET", "/v1/status", { key: other.apiKey })).status).toBe(200);
});
