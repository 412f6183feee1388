// The stdio edge: connects the server to this process's pipes, and owns the process's lifecycle.
// stdout carries MCP messages only; the process ends promptly when stdin ends or on SIGTERM/SIGINT.

import { Console } from "node:console";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createLogger, loadConfig, type AdapterConfig } from "../config/index.js";
import { VERSION } from "../version.js";
import { createServer } from "./server.js";

/** How long answers already being worked on may take once the end is asked for, before they are cancelled. */
const SHUTDOWN_GRACE_MS = 700;
/** The process exits by then whatever is still pending. */
const SHUTDOWN_HARD_LIMIT_MS = 950;

export interface AdapterOptions {
  /** Replaces the configured service (`--embedded`): its URL and its local key. */
  service?: { baseURL: string; apiKey: string; close(): Promise<void> };
  /** Settings already loaded by the caller (else read from the environment and the config file). */
  config?: AdapterConfig;
}

/** Runs the adapter until stdin ends or a signal arrives; then the process exits. */
export async function runStdioAdapter(options: AdapterOptions = {}): Promise<void> {
  routeConsoleToStderr();
  const config: AdapterConfig = options.config ?? loadConfig();
  const apiKey = options.service?.apiKey ?? config.apiKey;
  const baseURL = options.service?.baseURL ?? config.baseURL;
  const secrets = apiKey ? [apiKey] : [];
  const logger = createLogger({ level: config.logLevel, secrets });

  if (!apiKey) {
    logger.warn(`no API key: set BRAIN_API_KEY or run \`brain-mcp config set-key\` (${config.configPath}); every tool call will say so`);
  }
  const openClient = apiKey
    ? async () => {
        const { Brain } = await import("../client/brain.js");
        return new Brain({ apiKey, baseURL, timeout: config.timeoutMs, maxRetries: config.maxRetries, logger });
      }
    : null;

  const brain = createServer({
    openClient,
    baseURL,
    configPath: config.configPath,
    toolNames: config.toolNames,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    callDeadlineMs: config.callDeadlineMs,
    logger,
    version: VERSION,
    secrets,
  });

  let ending = false;
  const end = async (why: string): Promise<void> => {
    if (ending) return;
    ending = true;
    logger.debug(`shutting down: ${why}`);
    setTimeout(() => process.exit(0), SHUTDOWN_HARD_LIMIT_MS).unref();
    await brain.drain(SHUTDOWN_GRACE_MS);
    await brain.cleanup();
    await options.service?.close().catch((error: unknown) => logger.warn("closing the embedded service failed", error));
    // every answer is in stdout's buffer; exit once it has been handed to the pipe
    process.stdout.write("", () => process.exit(0));
  };

  // The SDK's transport does not notice the end of input by itself.
  process.stdin.on("end", () => void end("stdin ended"));
  process.stdin.on("close", () => void end("stdin closed"));
  process.stdout.on("error", () => void end("stdout closed"));
  process.on("SIGTERM", () => void end("SIGTERM"));
  process.on("SIGINT", () => void end("SIGINT"));

  brain.server.onerror = (error) => logger.warn("protocol error", error);
  await brain.server.connect(new StdioServerTransport(process.stdin, process.stdout));
  logger.info(`serving ${baseURL} over stdio (tool names: ${config.toolNames})`);
}

/** A stray console.log (ours or a dependency's) would corrupt the protocol: console goes to stderr. */
export function routeConsoleToStderr(): void {
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  // patch the existing object too: modules may hold a reference to it
  for (const method of ["log", "info", "debug", "trace", "dir", "dirxml", "table", "group", "groupCollapsed", "count", "time", "timeLog", "timeEnd"] as const) {
    (console as unknown as Record<string, unknown>)[method] = (toStderr[method] as (...args: unknown[]) => void).bind(toStderr);
  }
  globalThis.console = toStderr;
}
