// End to end: the built adapter over stdio, as an agent host runs it, against the real service process on
// 127.0.0.1 over a temp SQLite file (or PostgreSQL under BRAIN_TEST_DATABASE_URL); and two `--embedded` adapters
// sharing one workspace through one SQLite file.
import { mkdtempSync, statSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, runCli, startService, type ServiceHandle } from "../support/service.js";

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean; structuredContent?: any };

function textOf(result: ToolResult): string {
  return result.content.map((c) => c.text ?? "").join("\n");
}

async function connectAdapter(env: Record<string, string>, args: string[] = []) {
  let stderr = "";
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", BRAIN_LOG: "warn", ...env },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  await client.connect(transport);
  const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<ToolResult>;
  return { client, call, stderr: () => stderr };
}

describe("the adapter against the real service", () => {
  let service: ServiceHandle;
  let agent: Awaited<ReturnType<typeof connectAdapter>>;

  beforeAll(async () => {
    service = await startService();
    agent = await connectAdapter({
      BRAIN_API_KEY: service.apiKey,
      BRAIN_BASE_URL: service.baseURL,
      BRAIN_CONFIG: "/nonexistent/config.json",
    });
  });
  afterAll(async () => {
    await agent?.client.close();
    await service?.stop();
  });

  it("lists exactly the four dotted tools to a generic client", async () => {
    const { tools } = await agent.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["brain.health", "brain.recall", "brain.remember", "brain.status"]);
  });

  it("remembers a fact, merges its paraphrase, and recalls it by meaning", async () => {
    const first = await agent.call("brain.remember", {
      text: "Project Atlas stores its data in PostgreSQL 15 on the db-2 host.",
      meta: { source: "e2e" },
    });
    expect(first.isError).toBeFalsy();
    const firstId = first.structuredContent.memory_id;
    expect(first.structuredContent.dedup.action).toBe("stored_new");
    expect(textOf(first)).toContain(firstId);

    const again = await agent.call("brain.remember", { text: "Project Atlas keeps its data in PostgreSQL 15 on the db-2 host." });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent.dedup).toEqual({ action: "merged", existing_id: firstId });
    expect(textOf(again)).toContain(firstId);

    await agent.call("brain.remember", { text: "The user prefers dark mode in every editor." });
    const recall = await agent.call("brain.recall", { query: "which database does Atlas use?", top_k: 3 });
    expect(recall.isError).toBeFalsy();
    expect(recall.structuredContent.memories[0].id).toBe(firstId);
    expect(recall.structuredContent.memories[0].meta.source).toBe("e2e");
    expect(textOf(recall)).toMatch(/1\..*PostgreSQL 15/s);
  });

  it("keeps same-topic facts about another environment apart instead of merging them", async () => {
    const prod = await agent.call("brain.remember", { text: "The production database runs in eu-west-1." });
    const staging = await agent.call("brain.remember", { text: "The staging database runs in eu-west-1." });
    expect(prod.structuredContent.dedup.action).toBe("stored_new");
    expect(staging.structuredContent.dedup.action).toBe("stored_new");
    expect(staging.structuredContent.memory_id).not.toBe(prod.structuredContent.memory_id);
  });

  it("turns a PII rejection into a tool error naming the kind, without the value, and stores nothing", async () => {
    const before = (await agent.call("brain.status")).structuredContent.memory_count;
    const card = "4242 4242 4242 4242";
    const rejected = await agent.call("brain.remember", { text: `My card number is ${card}, expiry 12/29.` });
    expect(rejected.isError).toBe(true);
    expect(textOf(rejected)).toMatch(/credit.card/i);
    expect(textOf(rejected)).not.toContain(card);
    expect(textOf(rejected)).toMatch(/req_[0-9A-Z]{26}/);
    expect(agent.stderr()).not.toContain(card);
    expect(service.stderr()).not.toContain(card);
    const after = (await agent.call("brain.status")).structuredContent.memory_count;
    expect(after).toBe(before);
  });

  it("reports health and status from the store", async () => {
    const health = await agent.call("brain.health");
    expect(health.isError).toBeFalsy();
    expect(health.structuredContent.signals.total_memories).toBeGreaterThanOrEqual(2);
    expect(textOf(health)).toMatch(/quality/i);
    const status = await agent.call("brain.status");
    expect(status.structuredContent.workspace_id).toBe(service.workspaceId);
    expect(status.structuredContent.workspace_status).toBe("active");
    expect(textOf(status)).toContain(service.apiKey.slice(0, 11));
    expect(textOf(status)).not.toContain(service.apiKey);
  });

  it("says the workspace is suspended when an admin suspends it, and recall works again after reactivation", async () => {
    await service.adminJson(["workspace", "set-status", service.workspaceId, "suspended"]);
    const blocked = await agent.call("brain.recall", { query: "database" });
    expect(blocked.isError).toBe(true);
    expect(textOf(blocked)).toMatch(/suspended/i);
    const status = await agent.call("brain.status");
    expect(status.isError).toBeFalsy();
    expect(textOf(status)).toMatch(/suspended/i);
    await service.adminJson(["workspace", "set-status", service.workspaceId, "active"]);
    expect((await agent.call("brain.recall", { query: "database" })).isError).toBeFalsy();
  });

  it("the command line recalls through the same client and rendering", async () => {
    const env = {
      ...process.env,
      BRAIN_API_KEY: service.apiKey,
      BRAIN_BASE_URL: service.baseURL,
      BRAIN_CONFIG: "/nonexistent/config.json",
    };
    const human = await runCli(["recall", "what editor theme does the user like?", "--top-k", "1"], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("dark mode");
    const json = await runCli(["status", "--json"], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).workspace_id).toBe(service.workspaceId);
  });
});

describe("two --embedded adapters on one machine", () => {
  const dir = mkdtempSync(join(tmpdir(), "brain-embedded-"));
  const env = { BRAIN_CONFIG: join(dir, "config", "config.json"), BRAIN_DB: join(dir, "data", "brain.db") };
  let a: Awaited<ReturnType<typeof connectAdapter>>;
  let b: Awaited<ReturnType<typeof connectAdapter>>;

  beforeAll(async () => {
    [a, b] = await Promise.all([connectAdapter(env, ["--embedded"]), connectAdapter(env, ["--embedded"])]);
  });
  afterAll(async () => {
    await a?.client.close();
    await b?.client.close();
  });

  it("share one workspace: what one remembers, the other recalls", async () => {
    const stored = await a.call("brain.remember", { text: "The quarterly board meeting moved to the Porto office." });
    expect(stored.isError).toBeFalsy();
    const recalled = await b.call("brain.recall", { query: "where is the board meeting held?", top_k: 1 });
    expect(recalled.isError).toBeFalsy();
    expect(recalled.structuredContent.memories[0].id).toBe(stored.structuredContent.memory_id);
    const [sa, sb] = [await a.call("brain.status"), await b.call("brain.status")];
    expect(sa.structuredContent.workspace_id).toBe(sb.structuredContent.workspace_id);
  });

  it("keep the local key in embedded.json, mode 0600, apart from config.json", () => {
    const file = join(dir, "config", "embedded.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).api_key).toMatch(/^svc_ws_/);
  });
});
