// One model where one is enough (issue 27): an idle `serve` holds one model worker; a second starts only while calls
// wait on a busy one, and is closed once idle again. Seen from outside: the process's threads and its log lines.
import { readFileSync } from "node:fs";
import { afterAll, expect, it, vi } from "vitest";
import { call, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const running: ServiceHandle[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
});

/** OS threads of a process: each model worker is one thread of its own. */
const threadsOf = (pid: number) => Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
const count = (s: ServiceHandle, text: string) => s.stderr().split(text).length - 1;

async function until(check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

it.skipIf(process.platform !== "linux")(
  "serve idles on one model worker, starts a second under concurrent load and releases it when idle",
  async () => {
    const env = { BRAIN_EMBEDDER: "semantic", BRAIN_EMBED_WORKERS: "2", BRAIN_EMBED_WORKER_IDLE_MS: "1500", BRAIN_EMBED_CACHE_MB: "0" };
    const s = await startService({ env });
    running.push(s);
    const pid = s.child.pid!;
    const retrieve = (query: string) => call(s.baseURL, "POST", "/v1/memory/retrieve", { key: s.apiKey, json: { query } });
    // Sequential calls, however many, never wait on a busy worker.
    expect(
      (await call(s.baseURL, "POST", "/v1/memory/store", { key: s.apiKey, json: { text: "Staging lives in eu-west-1." } })).status,
    ).toBe(200);
    for (let i = 0; i < 5; i++) expect((await retrieve(`where does staging live, take ${i}?`)).status).toBe(200);
    const idleThreads = threadsOf(pid);
    expect(count(s, "model worker started")).toBe(0);

    // Concurrent load: bursts of distinct queries until the pool grows (the second worker loads while the first serves).
    let busiest = idleThreads;
    for (let round = 0; round < 20 && count(s, "model worker started") === 0; round++) {
      const burst = Array.from({ length: 12 }, (_, i) => retrieve(`round ${round} question ${i}: which region hosts staging?`));
      const watch = setInterval(() => (busiest = Math.max(busiest, threadsOf(pid))), 20);
      const answers = await Promise.all(burst);
      clearInterval(watch);
      for (const a of answers) expect(a.status).toBe(200);
    }
    expect(count(s, "model worker started")).toBe(1);
    busiest = Math.max(busiest, threadsOf(pid));
    expect(busiest).toBeGreaterThan(idleThreads);

    // Idle again: the second worker is released and the process is back to one worker's threads.
    await until(() => count(s, "idle model worker released") === 1);
    await until(() => threadsOf(pid) === idleThreads, 10_000);
    expect((await retrieve("where does staging live?")).json.memories[0].text).toBe("Staging lives in eu-west-1.");
    expect(count(s, "model worker started")).toBe(1);
  },
);
