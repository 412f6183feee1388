// `brain-mcp ui` cuts a connection that never finishes its headers, as the service does (issue 21, item 6): the
// same HEADERS_TIMEOUT_MS, a 408, and the socket closed.
import { connect } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { HEADERS_TIMEOUT_MS } from "../../src/contract/limits.js";
import { baseEnv, startService, type ServiceHandle } from "../support/service.js";
import { rawGet, startUi, type UiHandle } from "./support.js";

let service: ServiceHandle;
let ui: UiHandle;

beforeAll(async () => {
  service = await startService();
  ui = await startUi(service.storeArgs, baseEnv());
}, 120_000);

afterAll(async () => {
  await ui?.stop();
  await service?.stop();
});

it("a connection with unfinished headers gets 408 and is closed at the service's header timeout", async () => {
  const started = Date.now();
  const socket = connect(ui.port, "127.0.0.1");
  let answer = "";
  socket.setEncoding("utf8").on("data", (d: string) => (answer += d));
  socket.on("connect", () => socket.write(`GET /api/workspaces HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\nX-Slow: `));
  await new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const took = Date.now() - started;
  expect(answer).toMatch(/^HTTP\/1\.1 408/);
  expect(took).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 1_000);
  expect(took).toBeLessThan(HEADERS_TIMEOUT_MS + 5_000);
  // The dashboard goes on answering.
  expect((await rawGet(ui.port, "/api/workspaces", { cookie: ui.cookie })).status).toBe(200);
}, 60_000);
