// More than ten tool calls at once (a fleet agent fanning out) are all answered, and the adapter's stderr stays free
// of Node's MaxListenersExceededWarning: the calls share one shutdown signal, listened to once (issue 21, item 7).
import { afterAll, beforeAll, expect, it } from "vitest";
import { connectAdapter, fixtures, isolatedEnv, KEY, ScriptedService, textOf } from "./harness.js";

let service: ScriptedService;

beforeAll(async () => {
  service = await new ScriptedService().start();
});

afterAll(async () => {
  await service?.stop();
});

it("answers 25 concurrent tool calls with no listener warning on stderr", async () => {
  service.on("GET /v1/status", { body: fixtures.status("active"), delayMs: 300 });
  const adapter = await connectAdapter(isolatedEnv({ BRAIN_API_KEY: KEY, BRAIN_BASE_URL: service.url, BRAIN_LOG: "warn" }));
  try {
    const results = await Promise.all(Array.from({ length: 25 }, () => adapter.client.callTool({ name: "brain.status", arguments: {} })));
    for (const result of results) {
      expect(result.isError ?? false, textOf(result)).toBe(false);
    }
    await new Promise((r) => setTimeout(r, 200)); // a warning is written on the next tick
    expect(adapter.stderr()).not.toMatch(/MaxListenersExceeded|memory leak/);
  } finally {
    await adapter.close();
  }
});
