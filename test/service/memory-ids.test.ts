// Memory ids reveal nothing about other workspaces (issue 21, item 9): a workspace's consecutive ids are not a
// count of what everyone wrote in between. They stay positive integers, unique, and retrieve finds them by id.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { call, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let svc: ServiceHandle;

beforeAll(async () => {
  svc = await startService();
});

afterAll(async () => {
  await svc?.stop();
});

const FACTS = [
  "Our staging cluster runs in the Frankfurt region.",
  "Maya prefers morning stand-ups before nine.",
  "The invoice template lives in the finance drive.",
  "Jonas is allergic to peanuts.",
  "The mobile release train leaves every second Tuesday.",
  "Backups of the CRM run nightly at two.",
  "The office wifi is called Larkspur.",
  "Priya owns the onboarding checklist.",
];

it("a workspace's memory ids do not count the memories other workspaces store in between", async () => {
  const other = await svc.newWorkspace("neighbour");
  const store = (key: string, text: string) => call(svc.baseURL, "POST", "/v1/memory/store", { key, json: { text } });
  const first = await store(svc.apiKey, FACTS[0]!);
  for (const text of FACTS.slice(1, 6)) expect((await store(other.apiKey, text)).status).toBe(200);
  const second = await store(svc.apiKey, FACTS[6]!);

  const ids = [first.json.memory_id, second.json.memory_id] as number[];
  for (const id of ids) expect(Number.isSafeInteger(id) && id > 0).toBe(true);
  expect(second.json.memory_id - first.json.memory_id).not.toBe(6); // what a shared sequence would have shown

  const found = await call(svc.baseURL, "POST", "/v1/memory/retrieve", { key: svc.apiKey, json: { query: FACTS[6], top_k: 3 } });
  expect(found.json.memories.map((m: { id: number }) => m.id)).toContain(second.json.memory_id);
});
