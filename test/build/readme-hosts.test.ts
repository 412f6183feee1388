// Every host entry in the README (Claude Desktop, Claude Code's `claude mcp add`, Cursor, VS Code, Windsurf) starts
// its server exactly as the entry says, and that server answers an MCP client against a real `serve`: the entry's
// command and arguments (`npx -y brain-mcp` is this checkout's bin/brain-mcp.js, the package not yet published),
// its environment with the README's placeholders replaced by the key and address `serve` printed.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type ServiceHandle } from "../support/service.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BIN = join(ROOT, "bin", "brain-mcp.js");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const SLOW = 180_000;

interface Entry {
  where: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The JSON blocks that configure a server: `mcpServers` (Claude Desktop, Cursor, Windsurf) or `servers` (VS Code). */
function jsonEntries(): Entry[] {
  const entries: Entry[] = [];
  for (const m of README.matchAll(/^```json\n([\s\S]*?)^```$/gm)) {
    if (!/"(mcpServers|servers)"/.test(m[1]!)) continue; // other JSON in the README: answers, export lines
    const line = README.slice(0, m.index).split("\n").length;
    const config = JSON.parse(m[1]!) as {
      mcpServers?: Record<string, Entry & { type?: string }>;
      servers?: Record<string, Entry & { type?: string }>;
    };
    for (const [name, server] of Object.entries(config.mcpServers ?? config.servers ?? {})) {
      if (config.servers) expect(server.type).toBe("stdio");
      entries.push({ where: `README.md:${line} ${name}`, command: server.command, args: server.args, env: server.env ?? {} });
    }
  }
  return entries;
}

/** `claude mcp add [--transport stdio] [--env K=V]... NAME -- COMMAND ARGS...` */
function claudeCodeEntries(): Entry[] {
  return [...README.matchAll(/^claude mcp add (.*)$/gm)].map((m) => {
    const [options, command] = m[1]!.split(" -- ");
    const words = options!.split(/\s+/);
    const env: Record<string, string> = {};
    const rest: string[] = [];
    for (let i = 0; i < words.length; i++) {
      if (words[i] === "--env" || words[i] === "-e") {
        const [key, ...value] = words[++i]!.split("=");
        env[key!] = value.join("=");
      } else if (words[i] === "--transport") expect(words[++i]).toBe("stdio");
      else rest.push(words[i]!);
    }
    expect(rest).toHaveLength(1); // the server's name
    const [bin, ...args] = command!.split(/\s+/);
    return { where: `claude mcp add ${rest[0]}`, command: bin!, args, env };
  });
}

const work = mkdtempSync(join(tmpdir(), "brain-hosts-"));
const home = join(work, "home");
let service: ServiceHandle | undefined;
let url = "";
let key = "";
/** The adapters' environment: this test's own folders, no inherited BRAIN_ settings. */
const isolated = () => ({
  PATH: process.env.PATH ?? "",
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_DATA_HOME: join(home, ".local", "share"),
  BRAIN_EMBEDDER: "lexical",
});

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  service = await startService({ env: { BRAIN_EMBEDDER: "lexical" } });
  url = service.baseURL;
  key = service.apiKey;
}, SLOW);

afterAll(async () => {
  await service?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("the README's host entries", () => {
  const entries = [...jsonEntries(), ...claudeCodeEntries()];

  it("are there for Claude Desktop (both), Claude Code, Cursor, VS Code and Windsurf", () => {
    expect(entries).toHaveLength(6);
    expect(entries.every((e) => e.command === "npx" && e.args[0] === "-y")).toBe(true);
  });

  it.each(entries.map((e) => [e.where, e] as const))(
    "%s starts a server that lists four tools and answers a call",
    async (_where, entry) => {
      // npx -y brain-mcp | brain-mcp-service [args]: this checkout's bin plays both published packages
      expect(["brain-mcp", "brain-mcp-service"]).toContain(entry.args[1]);
      const env = Object.fromEntries(
        Object.entries(entry.env).map(([name, value]) => [
          name,
          value.replace("svc_ws_…", key).replace("${input:brain-api-key}", key).replace("https://brain.example.com", url),
        ]),
      );
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, ...entry.args.slice(2)],
        env: { ...isolated(), ...env },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk));
      const client = new Client({ name: "readme-hosts", version: "1.0.0" });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(4);
        const status = await client.callTool({ name: tools.find((t) => t.name.endsWith("status"))!.name, arguments: {} });
        expect(status.isError, `${JSON.stringify(status)} ${stderr}`).toBeFalsy();
      } finally {
        await client.close();
      }
    },
    SLOW,
  );
});
