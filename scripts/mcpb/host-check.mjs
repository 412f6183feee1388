// Runs an unpacked MCP Bundle the way Claude Desktop does: the command, arguments and environment of its manifest's
// server.mcp_config, with ${__dirname} and ${user_config.*} substituted, spoken to over stdio as client `claude-ai`.
// Checks that it lists exactly the manifest's tools, that a memory it remembers comes back from recall, and that a
// wrong key fails with a clear message that does not echo the key.
// Usage: node host-check.mjs BUNDLE_DIR   (env: CHECK_API_KEY, CHECK_BASE_URL: the user configuration to substitute)
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";

const LIMIT_MS = 60_000; // every call; the adapter itself answers within its own call deadline
const dir = resolve(process.argv[2] ?? "");
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const fail = (message) => {
  console.error(`mcpb host-check: ${message}`);
  process.exit(1);
};

/** The host's substitution: `${__dirname}` is the bundle's folder, `${user_config.NAME}` what the user entered. */
function substitute(value, userConfig) {
  return value.replace(/\$\{([^}]+)\}/g, (whole, name) => {
    if (name === "__dirname") return dir;
    const option = /^user_config\.(.+)$/.exec(name)?.[1];
    if (option === undefined) fail(`the manifest uses ${whole}, which no host substitutes`);
    if (!(option in manifest.user_config)) fail(`the manifest uses ${whole}, which user_config does not declare`);
    return String(userConfig[option] ?? manifest.user_config[option].default ?? "");
  });
}

async function connect(userConfig, stderr) {
  const { command, args = [], env = {} } = manifest.server.mcp_config;
  const transport = new StdioClientTransport({
    command: substitute(command, userConfig),
    args: args.map((arg) => substitute(arg, userConfig)),
    env: { ...getDefaultEnvironment(), ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, substitute(v, userConfig)])) },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk) => stderr.push(String(chunk)));
  const client = new Client({ name: "claude-ai", version: "0.1.0" });
  await client.connect(transport, { timeout: LIMIT_MS });
  return client;
}

const text = (result) => (result.content ?? []).map((c) => c.text ?? "").join("\n");
const call = (client, name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: LIMIT_MS });

const apiKey = process.env.CHECK_API_KEY;
const baseURL = process.env.CHECK_BASE_URL;
if (!apiKey || !baseURL) fail("set CHECK_API_KEY and CHECK_BASE_URL");
const sensitive = Object.entries(manifest.user_config)
  .filter(([, option]) => option.sensitive)
  .map(([name]) => name);
if (!sensitive.includes("api_key")) fail("user_config.api_key is not marked sensitive");

const stderr = [];
const client = await connect({ api_key: apiKey, base_url: baseURL }, stderr);
const listed = (await client.listTools(undefined, { timeout: LIMIT_MS })).tools.map((t) => t.name).sort();
const declared = manifest.tools.map((t) => t.name).sort();
if (JSON.stringify(listed) !== JSON.stringify(declared))
  fail(`tools/list gave ${listed.join(", ")}; the manifest declares ${declared.join(", ")}`);
console.log(`mcpb host-check: tools/list as claude-ai: ${listed.join(", ")} (as the manifest declares)`);

const marker = `lighthouse${Date.now().toString(36)}`;
const stored = await call(client, "brain_remember", { text: `The bundle's install notes live in the ${marker} wiki page, kept by Ines.` });
if (stored.isError) fail(`brain_remember failed: ${text(stored)}`);
const recalled = await call(client, "brain_recall", { query: `Where are the bundle's install notes (${marker})?` });
if (recalled.isError || !text(recalled).includes(marker)) fail(`brain_recall did not return the memory: ${text(recalled).slice(0, 300)}`);
console.log("mcpb host-check: brain_remember then brain_recall returned the memory");
await client.close();

// A key the service does not know: the call fails with a sentence, and neither the answer nor stderr carries the key.
const wrongKey = `svc_ws_${"q".repeat(32)}`;
const wrongStderr = [];
const wrong = await connect({ api_key: wrongKey, base_url: baseURL }, wrongStderr);
const refused = await call(wrong, "brain_status", {});
await wrong.close();
if (!refused.isError) fail(`brain_status with an unknown key did not fail: ${text(refused).slice(0, 300)}`);
if ((text(refused) + wrongStderr.join("")).includes(wrongKey)) fail("the adapter echoed the API key");
console.log(`mcpb host-check: an unknown key is refused: ${text(refused).split("\n")[0]}`);
if (stderr.join("").includes(apiKey)) fail("the adapter wrote the API key to stderr");
