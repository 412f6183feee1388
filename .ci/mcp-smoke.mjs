// Speaks just enough MCP over stdio to prove an installed adapter starts and lists exactly its four tools.
// Usage: node mcp-smoke.mjs <path to brain-mcp bin>
import { spawn } from "node:child_process";

const bin = process.argv[2];
const child = spawn(bin, [], { stdio: ["pipe", "pipe", "inherit"], env: process.env });
const timer = setTimeout(() => {
  console.error("mcp-smoke: no answer within 30 s");
  child.kill("SIGKILL");
  process.exit(1);
}, 30_000);

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

const send = (message) => child.stdin.write(JSON.stringify(message) + "\n");
const request = (id, method, params) =>
  new Promise((resolve) => {
    pending.set(id, resolve);
    send({ jsonrpc: "2.0", id, method, params });
  });

const init = await request(1, "initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "ci-smoke", version: "1.0.0" },
});
if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
send({ jsonrpc: "2.0", method: "notifications/initialized" });
const list = await request(2, "tools/list", {});
const names = (list.result?.tools ?? []).map((t) => t.name).sort();
clearTimeout(timer);
child.stdin.end();
if (names.length !== 4) {
  console.error(`mcp-smoke: expected 4 tools, got ${JSON.stringify(names)}`);
  process.exit(1);
}
console.log(`mcp-smoke: ${names.join(", ")}`);
await new Promise((resolve) => {
  const t = setTimeout(() => (child.kill("SIGKILL"), resolve()), 5_000);
  child.once("exit", () => (clearTimeout(t), resolve()));
});
