// `brain-mcp` dispatch: no arguments runs the MCP stdio adapter; a first word picks a command.
// Only the adapter's own modules load on its path; every command is imported when it is asked for.

import type { HandshakeAnswers } from "../mcp/handshake.js";
import { VERSION } from "../version.js";
import type { ServiceCommands } from "./service.js";

export const USAGE = `brain-mcp ${VERSION}: memory for AI agents

Usage:
  brain-mcp                        run the MCP stdio adapter (what an MCP host launches)
  brain-mcp --embedded             the adapter with a local memory service inside (no key needed;
                                   needs the service package: npm install -g brain-mcp-service)
  brain-mcp serve [options]        run the memory service (REST API; the service package); see \`brain-mcp serve --help\`
  brain-mcp admin ...              manage workspaces and keys; export, import and back up the store
  brain-mcp ui [--port N]          a local dashboard over the service's store; see \`brain-mcp ui --help\`
  brain-mcp remember <text> [--meta JSON] [--json] [--embedded]
  brain-mcp recall <query> [--top-k N] [--min-score X] [--json] [--embedded]
  brain-mcp health [--json] [--embedded]
  brain-mcp status [--json] [--embedded]
  brain-mcp config set-key         read an API key from stdin and save it (file mode 0600)
  brain-mcp config set-url <URL>   save the memory service's address
  brain-mcp config path            print where the config file is
  brain-mcp --version | --help

Environment: BRAIN_API_KEY, BRAIN_BASE_URL, BRAIN_CONFIG, BRAIN_TOOL_NAMES (auto|dotted|underscore),
BRAIN_TIMEOUT (s, 30), BRAIN_MAX_RETRIES (2), BRAIN_CALL_DEADLINE (s, 45), BRAIN_LOG (off|error|warn|info|debug).
The key is never taken from the command line: use BRAIN_API_KEY or \`brain-mcp config set-key\`.
`;

const OPERATIONS = new Set(["remember", "recall", "health", "status", "config"]);

export interface MainOptions {
  /** The bundle's recorded initialize and tools/list answers (test/build/bundle.js), for a faster start. */
  handshake?: HandshakeAnswers;
  /** The service commands, when the caller is the service package (its bin passes its own). */
  service?: () => Promise<ServiceCommands>;
}

export async function main(argv: string[], options: MainOptions = {}): Promise<void> {
  const [command, ...rest] = argv;
  const service = async (what: string) => (options.service ?? (await import("./service.js")).loadServiceCommands)(what);
  try {
    if (command === undefined) return await runAdapter(null, options.handshake);
    if (command === "--embedded") {
      // `brain-mcp --embedded recall x` is `brain-mcp recall x --embedded`
      if (OPERATIONS.has(rest[0]!) && rest[0] !== "config") {
        return exitWith(await (await import("./ops.js")).runOperation(rest[0]!, [...rest.slice(1), "--embedded"], service));
      }
      if (rest.length > 0) return usageError(`--embedded takes no further arguments (got ${rest.join(" ")})`);
      return await runAdapter(await service("brain-mcp --embedded"), options.handshake);
    }
    if (command === "--version" || command === "-v" || command === "version") {
      process.stdout.write(`${VERSION}\n`);
      return;
    }
    if (command === "--help" || command === "-h" || command === "help") {
      process.stdout.write(USAGE);
      return;
    }
    if (command === "serve") return exitWith(await (await service("brain-mcp serve")).runServe(rest));
    if (command === "ui") return exitWith(await (await service("brain-mcp ui")).runUi(rest));
    if (command === "admin") return exitWith(await (await service("brain-mcp admin")).runAdmin(rest));
    if (OPERATIONS.has(command)) return exitWith(await (await import("./ops.js")).runOperation(command, rest, service));
    if (command.startsWith("--api-key")) {
      return usageError(
        "there is no --api-key flag (the command line shows in process lists): set BRAIN_API_KEY or run `brain-mcp config set-key`",
      );
    }
    return usageError(`unknown command or option: ${command}`);
  } catch (error) {
    // A setting the user got wrong (ConfigError) or a failure at start-up: one line, never a stack for the former.
    const name = (error as Error)?.name;
    const plain = name === "ConfigError" || name === "ServiceMissingError";
    process.stderr.write(`brain-mcp: ${plain ? "" : "error: "}${(error as Error)?.message ?? String(error)}\n`);
    process.exitCode = name === "ConfigError" ? 2 : 1;
  }
}

async function runAdapter(embedded: ServiceCommands | null, handshake: HandshakeAnswers | undefined): Promise<void> {
  if (embedded) await keepEmbeddedSmall();
  else await keepAdapterSmall();
  // settings first: a bad one is reported before the SDK loads
  const { createLogger, loadConfig } = await import("../config/index.js");
  // a bad address is explained by every tool call, inside the session (hosts hide stderr), as a missing key is
  const config = loadConfig({ keepBadBaseURL: true });
  const { runStdioAdapter } = await import("../mcp/stdio.js");
  if (!embedded) return runStdioAdapter({ config, handshake });
  const { dirname } = await import("node:path");
  // embedded.json sits beside the config file in use (BRAIN_CONFIG moves both)
  const service = await embedded.startEmbedded({
    configDir: dirname(config.configPath),
    log: createLogger({ level: config.logLevel, prefix: "brain-mcp service" }),
  });
  return runStdioAdapter({ service, config, handshake });
}

/**
 * The adapter runs for a whole host session, often several at once: keep its resident set small (DESIGN.md
 * "Performance goals": 60 MB after 1,000 calls). V8 otherwise grows the young generation to 32 MB under a steady
 * stream of calls, and keeps an optimized copy of undici's HTTP parser (WebAssembly) beside the baseline one.
 * Not for --embedded: the service's embedding model runs in WebAssembly and needs the optimizing compiler.
 */
async function keepAdapterSmall(): Promise<void> {
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString("--semi-space-growth-factor=1");
  setFlagsFromString("--liftoff-only");
}

/**
 * --embedded holds the service and its model too (DESIGN.md: 300 MB): the young generation stays at its first size
 * (-20 MB measured, test/bench/README.md); WebAssembly's optimizing tier is the service's call (service/embedded.ts).
 */
async function keepEmbeddedSmall(): Promise<void> {
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString("--semi-space-growth-factor=1");
}

function exitWith(code: number | void): void {
  if (typeof code === "number" && code !== 0) process.exitCode = code;
}

function usageError(message: string): void {
  process.stderr.write(`brain-mcp: ${message}\nRun \`brain-mcp --help\` for usage.\n`);
  process.exitCode = 2;
}
