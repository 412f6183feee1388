import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOfflineJudge, createProviderJudge } from "../../src/service/models/judge/index.js";
import type { Judgement } from "../../src/service/models/types.js";

// A scripted OpenAI-compatible server on 127.0.0.1: each test sets what the next answer is.
type Script = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let script: Script;
let seen: Array<{ url: string; auth: string | undefined; body: Record<string, unknown> }> = [];
let server: Server;
let baseUrl: string;

const KEY = "sk-test-do-not-log-0123456789";
const TEXT = "The design review is due by Friday; Priya owns it.";
const NOW = new Date("2025-03-10T15:30:00Z");

function completion(content: string) {
  return JSON.stringify({ id: "x", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content } }] });
}
const good: Judgement = {
  importance: 8,
  temporal: { type: "time_bound", valid_until: "2025-03-14T23:59:59Z" },
  categories: ["work", "deadline", "task"],
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", auth: req.headers.authorization, body: JSON.parse(body || "{}") });
      script(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen = [];
});

const offline = createOfflineJudge();
function provider(warnings: string[] = [], timeoutMs = 2_000) {
  const judge = createProviderJudge({ BRAIN_JUDGE_URL: baseUrl, BRAIN_JUDGE_MODEL: "judge-test", BRAIN_JUDGE_API_KEY: KEY }, offline, {
    timeoutMs,
    warn: (m) => warnings.push(m),
  });
  if (!judge) throw new Error("expected a provider judge");
  return judge;
}
const offlineAnswer = () => offline.judge(TEXT, NOW, null);

describe("the OpenAI-compatible judge", () => {
  it("is not created when BRAIN_JUDGE_URL is unset", () => {
    expect(createProviderJudge({}, offline)).toBeNull();
    expect(createProviderJudge({ BRAIN_JUDGE_URL: "  " }, offline)).toBeNull();
  });

  it("uses a valid answer and sends model, bearer key, JSON format and the current time", async () => {
    script = (_req, _body, res) => res.writeHead(200, { "content-type": "application/json" }).end(completion(JSON.stringify(good)));
    const warnings: string[] = [];
    expect(await provider(warnings).judge(TEXT, NOW, null)).toEqual(good);
    expect(warnings).toEqual([]);
    const [call] = seen;
    expect(call!.url).toBe("/v1/chat/completions");
    expect(call!.auth).toBe(`Bearer ${KEY}`);
    expect(call!.body.model).toBe("judge-test");
    expect(call!.body.response_format).toEqual({ type: "json_object" });
    expect(JSON.stringify(call!.body.messages)).toContain("2025-03-10T15:30:00Z (Monday)");
  });

  it("normalizes a fenced answer, upper-case labels and a fractional valid_until", async () => {
    const answer = { ...good, temporal: { type: "time_bound", valid_until: "2025-03-14T23:59:59.900Z" }, categories: ["Work", "DEADLINE"] };
    script = (_req, _body, res) => res.writeHead(200).end(completion("```json\n" + JSON.stringify(answer) + "\n```"));
    expect(await provider().judge(TEXT, NOW, null)).toEqual({
      importance: 8,
      temporal: { type: "time_bound", valid_until: "2025-03-14T23:59:59Z" },
      categories: ["work", "deadline"],
    });
  });

  it("a persistent answer always has a null valid_until", async () => {
    const answer = {
      importance: 5,
      temporal: { type: "persistent", valid_until: "2030-01-01T00:00:00Z" },
      categories: ["technical", "code"],
    };
    script = (_req, _body, res) => res.writeHead(200).end(completion(JSON.stringify(answer)));
    expect((await provider().judge(TEXT, NOW, null)).temporal).toEqual({ type: "persistent", valid_until: null });
  });

  const invalid: Array<[string, unknown]> = [
    ["an unknown category", { ...good, categories: ["work", "gossip"] }],
    ["a topic before the domain", { ...good, categories: ["deadline", "work"] }],
    ["a repeated topic", { ...good, categories: ["work", "task", "task"] }],
    ["five categories", { ...good, categories: ["work", "task", "deadline", "meeting", "project"] }],
    ["importance 11", { ...good, importance: 11 }],
    ["importance 7.5", { ...good, importance: 7.5 }],
    ["time_bound without an end", { ...good, temporal: { type: "time_bound", valid_until: null } }],
    ["an end in the past", { ...good, temporal: { type: "time_bound", valid_until: "2024-01-01T00:00:00Z" } }],
    ["an end without a zone", { ...good, temporal: { type: "time_bound", valid_until: "2025-03-14 18:00" } }],
    ["not JSON", "Sure! Here is the answer: importance 8"],
  ];
  for (const [what, answer] of invalid) {
    it(`an answer with ${what} falls back to the offline judge`, async () => {
      script = (_req, _body, res) => res.writeHead(200).end(completion(typeof answer === "string" ? answer : JSON.stringify(answer)));
      const warnings: string[] = [];
      expect(await provider(warnings).judge(TEXT, NOW, null)).toEqual(await offlineAnswer());
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("invalid answer");
    });
  }

  it("a 500 falls back to the offline judge, and the warning holds neither the text nor the key", async () => {
    script = (_req, _body, res) => res.writeHead(500).end(JSON.stringify({ error: { message: `bad ${KEY}` } }));
    const warnings: string[] = [];
    expect(await provider(warnings).judge(TEXT, NOW, null)).toEqual(await offlineAnswer());
    expect(warnings).toEqual([expect.stringContaining("HTTP 500")]);
    expect(warnings.join(" ")).not.toContain(KEY);
    expect(warnings.join(" ")).not.toContain("design review");
  });

  it("a response that is not a chat completion falls back", async () => {
    script = (_req, _body, res) => res.writeHead(200).end("<html>proxy error</html>");
    expect(await provider().judge(TEXT, NOW, null)).toEqual(await offlineAnswer());
  });

  it("a server that never answers times out and falls back", async () => {
    script = () => {}; // hold the request open
    const warnings: string[] = [];
    expect(await provider(warnings, 300).judge(TEXT, NOW, null)).toEqual(await offlineAnswer());
    expect(warnings).toEqual([expect.stringContaining("timed out")]);
  });

  it("an unreachable endpoint falls back", async () => {
    const judge = createProviderJudge({ BRAIN_JUDGE_URL: "http://127.0.0.1:1/v1" }, offline, { timeoutMs: 2_000 })!;
    expect(await judge.judge(TEXT, NOW, null)).toEqual(await offlineAnswer());
  });

  it("sends no Authorization header when no key is set (local Ollama, LM Studio)", async () => {
    script = (_req, _body, res) => res.writeHead(200).end(completion(JSON.stringify(good)));
    const judge = createProviderJudge({ BRAIN_JUDGE_URL: `${baseUrl}/` }, offline)!;
    await judge.judge(TEXT, NOW, null);
    expect(seen[0]!.auth).toBeUndefined();
    expect(seen[0]!.url).toBe("/v1/chat/completions");
  });
});
