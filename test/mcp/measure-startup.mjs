// Prints the median time from spawning the built adapter to its tools/list answer (run: node test/mcp/measure-startup.mjs [runs]).
// A measurement, not a test: numbers depend on the machine and its load.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/brain-mcp.js", import.meta.url));
const runs = Number(process.argv[2] ?? 10);

function once(command, args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BRAIN_API_KEY: "svc_ws_measure", BRAIN_LOG: "off" },
      stdio: ["pipe", "pipe", "inherit"],
    });
    let buffer = "";
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      for (const line of buffer.split("\n").slice(0, -1)) {
        const message = JSON.parse(line);
        if (message.id === 1) {
          resolve(performance.now() - started);
          child.stdin.end();
        }
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    });
    child.on("error", reject);
    const send = (m) => child.stdin.write(JSON.stringify(m) + "\n");
    send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "measure", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  });
}

function nodeBaseline() {
  return new Promise((resolve) => {
    const started = performance.now();
    spawn(process.execPath, ["-e", "0"]).on("exit", () => resolve(performance.now() - started));
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const adapter = [];
const bare = [];
for (let i = 0; i < runs; i++) {
  adapter.push(await once(process.execPath, [BIN]));
  bare.push(await nodeBaseline());
}
console.log(
  `brain-mcp spawn -> tools/list answer: median ${median(adapter).toFixed(0)} ms over ${runs} runs (min ${Math.min(...adapter).toFixed(0)}, max ${Math.max(...adapter).toFixed(0)})`,
);
console.log(`node -e 0 (spawn -> exit), same runs: median ${median(bare).toFixed(0)} ms`);
