#!/usr/bin/env node
// Builds dist/bundle/: the adapter as one esbuild bundle (ESM, split into lazily loaded chunks) over tsc's dist/,
// with the real server's answers to initialize and tools/list recorded, so a session starts before the SDK loads.
// Run after tsc (`npm run build`). bin/brain-mcp.js uses the bundle only while it is newer than dist/cli/main.js.
// The service (dist/service, serve, admin) is never bundled: those imports stay pointing at tsc's files.
import { build } from "esbuild";
import { rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dist = join(root, "dist");
const outdir = join(dist, "bundle");
const entryName = "brain-mcp";

/** Imports that stay outside the bundle (loaded from tsc's dist/ when a command needs them). */
const UNBUNDLED = [join(dist, "cli", "service-entry.js")];

/** The server the handshake is recorded from: no client, no log; only the tool names and version change answers. */
export function recordingServerOptions(toolNames, version) {
  const quiet = { error() {}, warn() {}, info() {}, debug() {} };
  return {
    openClient: null,
    baseURL: "http://127.0.0.1:8787",
    configPath: "config.json",
    toolNames,
    timeoutMs: 1000,
    maxRetries: 0,
    callDeadlineMs: 1000,
    logger: quiet,
    version,
  };
}

/** The server's own answers, taken from the real server over the SDK's in-memory transport. */
export async function recordHandshake() {
  const load = (path) => import(pathToFileURL(join(root, path)).href);
  const [{ createServer }, { InMemoryTransport }, types] = await Promise.all([
    load("dist/mcp/server.js"),
    import("@modelcontextprotocol/sdk/inMemory.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const answersFor = async (toolNames) => {
    const brain = createServer(recordingServerOptions(toolNames, (await load("dist/version.js")).VERSION));
    const [client, server] = InMemoryTransport.createLinkedPair();
    const answers = new Map();
    client.onmessage = (message) => answers.get(message.id)?.(message);
    const ask = (id, method, params) =>
      new Promise((done) => {
        answers.set(id, done);
        void client.send({ jsonrpc: "2.0", id, method, params });
      });
    await brain.server.connect(server);
    await client.start();
    const init = await ask(1, "initialize", {
      protocolVersion: types.LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "build", version: "1" },
    });
    const list = await ask(2, "tools/list", undefined);
    await brain.cleanup();
    if (!init.result || !list.result) throw new Error(`the server did not answer: ${JSON.stringify({ init, list })}`);
    return { initializeResult: init.result, toolsList: list.result };
  };
  const dotted = await answersFor("dotted");
  const underscore = await answersFor("underscore");
  if (JSON.stringify(dotted.initializeResult) !== JSON.stringify(underscore.initializeResult)) {
    throw new Error("the initialize answer depends on the tool names: it cannot be recorded");
  }
  return JSON.parse(
    JSON.stringify({
      latestProtocolVersion: types.LATEST_PROTOCOL_VERSION,
      supportedProtocolVersions: types.SUPPORTED_PROTOCOL_VERSIONS,
      initializeResult: dotted.initializeResult,
      toolsList: { dotted: dotted.toolsList, underscore: underscore.toolsList },
    }),
  );
}

/** Keeps the service and the service commands out: they resolve to tsc's files from dist/bundle/. */
const unbundled = {
  name: "unbundled",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (!UNBUNDLED.includes(target)) return undefined;
      return { path: "./" + relative(outdir, target).split("\\").join("/"), external: true };
    });
  },
};

/** The SDK imports Ajv for elicitation answers only; this server never elicits and passes its own validator. */
const withoutAjv = {
  name: "without-ajv",
  setup(b) {
    b.onResolve({ filter: /validation\/ajv-provider\.js$/ }, () => ({ path: "ajv-provider", namespace: "stub" }));
    b.onLoad({ filter: /^ajv-provider$/, namespace: "stub" }, () => ({
      contents:
        "export class AjvJsonSchemaValidator { constructor() { throw new Error('brain-mcp bundle: Ajv is not bundled; pass a jsonSchemaValidator'); } }",
      loader: "js",
    }));
  },
};

/** undici as the client uses it: Agent and the request API, without fetch, WebSocket, mocks and caches. */
const undiciAgentOnly = {
  name: "undici-agent-only",
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, () => ({ path: "undici", namespace: "shim" }));
    b.onLoad({ filter: /^undici$/, namespace: "shim" }, () => ({
      // what undici's index.js does for these two (Dispatcher.prototype gets request, stream, pipeline, ...)
      contents: [
        'import Agent from "undici/lib/dispatcher/agent.js";',
        'import Dispatcher from "undici/lib/dispatcher/dispatcher.js";',
        'import api from "undici/lib/api/index.js";',
        "Object.assign(Dispatcher.prototype, api);",
        "export { Agent, Dispatcher };",
      ].join("\n"),
      resolveDir: root,
      loader: "js",
    }));
  },
};

export async function bundle() {
  const handshake = await recordHandshake();
  rmSync(outdir, { recursive: true, force: true });
  const mainPath = join(dist, "cli", "main.js").split("\\").join("/");
  const result = await build({
    stdin: {
      contents: [
        `import { main as run } from ${JSON.stringify(mainPath)};`,
        `const handshake = ${JSON.stringify(handshake)};`,
        "export function main(argv, options = {}) { return run(argv, { handshake, ...options }); }",
      ].join("\n"),
      resolveDir: root,
      sourcefile: `${entryName}.js`,
      loader: "js",
    },
    entryNames: entryName,
    chunkNames: "[name]-[hash]",
    outdir,
    bundle: true,
    splitting: true, // dynamic imports stay real ES modules: lazy, and evaluated in zod's own (circular) import order
    format: "esm",
    platform: "node",
    target: "node20",
    minify: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    plugins: [unbundled, withoutAjv, undiciAgentOnly],
    // CommonJS dependencies (undici) call require() for Node built-ins
    banner: { js: 'import{createRequire as __brainRequire}from"node:module";const require=__brainRequire(import.meta.url);' },
  });
  const service = Object.keys(result.metafile.inputs).filter((input) => input.includes("dist/service/"));
  if (service.length) throw new Error(`the service must not be bundled into the adapter: ${service.join(", ")}`);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const result = await bundle();
  const outputs = Object.entries(result.metafile.outputs);
  const bytes = outputs.reduce((sum, [, o]) => sum + o.bytes, 0);
  const entry = join(outdir, `${entryName}.js`);
  console.log(
    `dist/bundle: ${outputs.length} files, ${(bytes / 1024).toFixed(0)} KiB (entry ${(statSync(entry).size / 1024).toFixed(0)} KiB) in ${(performance.now() - started).toFixed(0)} ms`,
  );
}
