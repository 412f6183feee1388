#!/usr/bin/env node
// The README's first command: the whole product on the embedded default, as an agent meets it.
// Starts `brain-mcp --embedded` (the adapter with the service inside, over SQLite) over stdio with the MCP SDK's
// client, calls the four tools the way an agent would, and prints what the agent reads.
// Everything lives in a fresh temporary folder unless BRAIN_DEMO_DIR names one to keep.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const keep = process.env.BRAIN_DEMO_DIR;
const dir = keep ?? mkdtempSync(join(tmpdir(), "brain-demo-"));

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(root, "bin", "brain-mcp.js"), "--embedded"],
  env: {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dir,
    BRAIN_CONFIG: join(dir, "config", "config.json"),
    BRAIN_DB: join(dir, "data", "brain.db"),
    BRAIN_LOG: "warn",
  },
  stderr: "inherit",
});
const client = new Client({ name: "brain-demo", version: "1.0.0" });

function show(title, result) {
  const text = result.content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
  const mark = result.isError ? "  (tool error)" : "";
  console.log(`\n── ${title}${mark}\n${text}`);
}

async function call(name, args, title) {
  const result = await client.callTool({ name, arguments: args });
  show(title ?? `${name} ${JSON.stringify(args)}`, result);
  return result;
}

const started = Date.now();
await client.connect(transport);
const { tools } = await client.listTools();
console.log(`brain-mcp --embedded: ${tools.length} tools: ${tools.map((t) => t.name).join(", ")}`);
const name = (suffix) => tools.find((t) => t.name.endsWith(suffix)).name;

await call(name("status"), {}, "status: which workspace is this?");
const memories = [
  "The user prefers concise answers with code examples in TypeScript.",
  "Project Atlas stores its data in PostgreSQL 15 on the db-2 host.",
  "We decided to ship releases every Tuesday after the team sync.",
  "Maria Lopez is the customer contact at Northwind for the renewal.",
  "I'm working from the Lisbon office until Friday.",
  "The staging deploy pipeline runs the integration tests before promoting a build.",
];
for (const text of memories) await call(name("remember"), { text }, `remember: ${text}`);
await call(
  name("remember"),
  { text: "The user likes concise answers that include TypeScript code examples." },
  "remember a paraphrase of the first memory (merges instead of duplicating)",
);
await call(
  name("remember"),
  { text: "My card is 4242 4242 4242 4242, exp 12/29." },
  "remember a secret (the service refuses it; nothing is stored)",
);
await call(name("recall"), { query: "which database does Atlas use?" }, "recall: which database does Atlas use?");
await call(name("recall"), { query: "how should I format my replies to this user?", top_k: 2 }, "recall: how should I format my replies?");
// MiniLM links this question to the preference only weakly (cosine about 0.2, score about 0.04): under the default
// min_score it is left out, so an agent that wants weak matches too asks with min_score 0 (test/eval/README.md).
await call(
  name("recall"),
  { query: "how should I format my replies to this user?", top_k: 2, min_score: 0 },
  "recall: how should I format my replies? (min_score 0: weak matches too)",
);
await call(name("recall"), { query: "who do we talk to at Northwind?", top_k: 1 }, "recall: who do we talk to at Northwind?");
await call(name("recall"), { query: "recipe for sourdough bread", min_score: 0.3 }, "recall: recipe for sourdough bread (never stored)");
await call(name("health"), {}, "health: how good is this memory?");

await client.close();
console.log(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s. Data: ${keep ? dir : "(temporary, removed)"}`);
if (!keep) rmSync(dir, { recursive: true, force: true });
