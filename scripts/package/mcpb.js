#!/usr/bin/env node
// Builds brain-mcp.mcpb, the MCP Bundle Claude Desktop installs with a click: the adapter's bundle (dist/bundle, no
// dependencies) under server/, and a manifest declaring the four tools as the host will see them (recorded from the
// real server) and asking for the API key (sensitive: the host keeps it in the OS keychain) and the service's
// address, handed to the adapter as BRAIN_API_KEY and BRAIN_BASE_URL. Validated and packed by @anthropic-ai/mcpb.
// Usage: npm run build && node scripts/package/mcpb.js [--out DIR]
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const stage = join(root, ".tmp", "mcpb");
const manifestOf = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const mcpb = (...args) => execFileSync(process.execPath, [join(root, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js"), ...args], { cwd: root, encoding: "utf8" });

export async function buildBundle(outDir) {
  const { recordHandshake } = await import(pathToFileURL(join(root, "test", "build", "bundle.js")).href);
  // Claude Desktop names itself claude-ai, so the adapter serves it the underscore names
  const { toolsList } = await recordHandshake();
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, "server"), { recursive: true });
  cpSync(join(root, "dist", "bundle"), join(stage, "server"), { recursive: true });
  writeFileSync(
    join(stage, "server", "index.js"),
    '// The adapter over stdio, as `npx -y brain-mcp` runs it.\nimport { main } from "./brain-mcp.js";\nawait main(process.argv.slice(2));\n',
  );
  writeFileSync(join(stage, "package.json"), '{ "type": "module", "private": true }\n');
  cpSync(join(root, "LICENSE"), join(stage, "LICENSE"));
  const manifest = {
    manifest_version: "0.3",
    name: manifestOf.name,
    display_name: "brain: memory for AI agents",
    version: manifestOf.version,
    description: "Long-term memory for Claude: remember and recall facts through a brain memory service.",
    long_description:
      "Four tools (remember, recall, health, status) over a brain memory service's REST API: a hosted one, or `brain-mcp serve` " +
      "on your own machine. Give the service's address and a workspace API key (svc_ws_…); the key is kept in your " +
      "operating system's keychain.",
    author: { name: "brain-mcp contributors" },
    license: manifestOf.license,
    keywords: ["memory", "mcp", "agents"],
    server: {
      type: "node",
      entry_point: "server/index.js",
      mcp_config: {
        command: "node",
        args: ["${__dirname}/server/index.js"],
        env: { BRAIN_API_KEY: "${user_config.api_key}", BRAIN_BASE_URL: "${user_config.base_url}" },
      },
    },
    tools: toolsList.underscore.tools.map((tool) => ({ name: tool.name, description: tool.description.split("\n")[0] })),
    compatibility: { platforms: ["darwin", "win32", "linux"], runtimes: { node: manifestOf.engines.node } },
    user_config: {
      api_key: {
        type: "string",
        title: "API key",
        description: "Your workspace's key (svc_ws_…), from whoever runs the memory service (`brain-mcp serve` prints one).",
        required: true,
        sensitive: true,
      },
      base_url: {
        type: "string",
        title: "Memory service address",
        description: "Where the memory service answers (https, or http on this machine).",
        required: true,
        default: "http://127.0.0.1:8787",
      },
    },
  };
  writeFileSync(join(stage, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const validated = mcpb("validate", join(stage, "manifest.json"));
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${manifestOf.name}-${manifestOf.version}.mcpb`);
  rmSync(file, { force: true });
  mcpb("pack", stage, file);
  return { file, validated: validated.trim().split("\n").pop(), tools: manifest.tools.map((t) => t.name) };
}

if (fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf("--out");
  const { file, validated, tools } = await buildBundle(at === -1 ? root : process.argv[at + 1]);
  console.log(`mcpb: ${validated}; tools ${tools.join(", ")}`);
  console.log(file);
}
