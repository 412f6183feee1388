// Speaks just enough MCP over stdio to prove an installed adapter starts and lists exactly its four tools, and with
// --calls that a memory it remembers comes back from recall (against BRAIN_BASE_URL, or the service --embedded starts).
// Usage: node mcp-smoke.mjs [--calls] <command> [its arguments...]
import { spawn } from "node:child_process";

const args = process.argv.slice(2);
const calls = args[0] === "--calls";
const [bin, ...binArgs] = calls ? args.slice(1) : args;
const LIMIT_S = 180; // --embedded loads the model first; a loaded CI machine is slow
const child = spawn(bin, binArgs, { stdio: ["pipe", "pipe", "inherit"], env: process.env, shell: process.platform === "win32" });
const fail = (message) => {
  console.error(`mcp-smoke: ${message}`);
  child.kill("SIGKILL");
  process.exit(1);
};
const timer = setTimeout(() => fail(`no answer within ${LIMIT_S} s`), LIMIT_S * 1000);

const pending = new Map();
let buffered = "";
child.stdout.setEncoding("utf8");
child.stdout.on("data", (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, newline).trim();
    buffered = buffered.slice(newline + 1);
    if (!line) continue;
    const message = JSON.parse(line); // stdout must be MCP protocol only
    pending.get(message.id)?.(message);
  }
});
child.once("exit", (code) => fail(`the adapter exited (${code}) before answering`));

const send = (message) => child.stdin.write(JSON.stringify(message) + "\n");
let nextId = 1;
const request = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    send({ jsonrpc: "2.0", id, method, params });
  });

const init = await request("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "ci-smoke", version: "1.0.0" },
});
if (init.error) fail(`initialize failed: ${JSON.stringify(init.error)}`);
send({ jsonrpc: "2.0", method: "notifications/initialized" });
const list = await request("tools/list", {});
const names = (list.result?.tools ?? []).map((t) => t.name).sort();
if (names.length !== 4) fail(`expected 4 tools, got ${JSON.stringify(names)}`);
console.log(`mcp-smoke: ${names.join(", ")}`);

if (calls) {
  const tool = (base) => names.find((name) => name.endsWith(base));
  const call = async (base, argumentsOf) => {
    const answer = await request("tools/call", { name: tool(base), arguments: argumentsOf });
    const text = (answer.result?.content ?? []).map((c) => c.text).join("\n");
    if (answer.error || answer.result?.isError) fail(`${tool(base)} failed: ${JSON.stringify(answer.error) ?? text}`);
    return text;
  };
  const marker = `harbour${Date.now().toString(36)}`;
  await call("remember", { text: `The release checklist lives in the ${marker} wiki page, owned by Priya.` });
  const recalled = await call("recall", { query: `Where is the release checklist (${marker})?` });
  if (!recalled.includes(marker)) fail(`recall did not return the remembered memory: ${recalled.slice(0, 300)}`);
  console.log("mcp-smoke: remember then recall returned the memory");
}
clearTimeout(timer);
child.removeAllListeners("exit");
child.stdin.end();
await new Promise((resolve) => {
  const t = setTimeout(() => (child.kill("SIGKILL"), resolve()), 5_000);
  child.once("exit", () => (clearTimeout(t), resolve()));
});
