// The stdio edge: connects the server to this process's pipes, and owns the process's lifecycle.
// stdout carries MCP messages only; the process ends promptly when stdin ends or on SIGTERM/SIGINT.

import { Console } from "node:console";
import { createLogger, loadConfig, type AdapterConfig } from "../config/index.js";
import { VERSION } from "../version.js";
import { startHandshake, type Handshake, type HandshakeAnswers, type RelayStreams } from "./handshake.js";
import { InputLines, MESSAGE_MAX_BYTES, invalidRequestAnswer, tooLargeAnswer } from "./input-lines.js";
import type { BrainServer } from "./server.js";

/** How long answers already being worked on may take once the end is asked for, before they are cancelled. */
const SHUTDOWN_GRACE_MS = 700;
/** The process exits by then whatever is still pending. */
const SHUTDOWN_HARD_LIMIT_MS = 950;

export interface AdapterOptions {
  /** Replaces the configured service (`--embedded`): its URL and its local key. */
  service?: { baseURL: string; apiKey: string; close(): Promise<void> };
  /** Settings already loaded by the caller (else read from the environment and the config file). */
  config?: AdapterConfig;
  /** Recorded answers (the bundle's): initialize and tools/list are answered while the SDK loads. */
  handshake?: HandshakeAnswers;
}

/** Runs the adapter until stdin ends or a signal arrives; then the process exits. */
export async function runStdioAdapter(options: AdapterOptions = {}): Promise<void> {
  routeConsoleToStderr();
  const config: AdapterConfig = options.config ?? loadConfig();
  const apiKey = options.service?.apiKey ?? config.apiKey;
  const baseURL = options.service?.baseURL ?? config.baseURL;
  const secrets = apiKey ? [apiKey] : [];
  const logger = createLogger({ level: config.logLevel, secrets });

  // --embedded replaces the address, so only the adapter's own can be wrong
  const baseURLProblem = options.service ? undefined : config.baseURLProblem;
  if (baseURLProblem) logger.warn(`${baseURLProblem} Every tool call will say so.`);
  else if (!apiKey) {
    logger.warn(`no API key: set BRAIN_API_KEY or run \`brain-mcp config set-key\` (${config.configPath}); every tool call will say so`);
  }
  const openClient =
    apiKey && !baseURLProblem
      ? async () => {
          const [{ Brain }, { createStderrLogger }] = await Promise.all([import("../client/brain.js"), import("../client/logger.js")]);
          // below BRAIN_LOG=debug, the client's own no-op tells it to skip building (and redacting) debug lines per call
          const quietDebug = config.logLevel === "debug" ? logger : { ...logger, debug: createStderrLogger("off").debug };
          return new Brain({ apiKey, baseURL, timeout: config.timeoutMs, maxRetries: config.maxRetries, logger: quietDebug });
        }
      : null;

  let brain: BrainServer | undefined;
  // the SDK and the tools (zod) load here: with recorded answers, after the first tools/list is answered
  const connect = async (streams: RelayStreams): Promise<void> => {
    const [{ createServer }, { StdioServerTransport }] = await Promise.all([
      import("./server.js"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
    ]);
    brain = createServer({
      openClient,
      baseURL,
      baseURLProblem,
      configPath: config.configPath,
      toolNames: config.toolNames,
      timeoutMs: config.timeoutMs,
      maxRetries: config.maxRetries,
      callDeadlineMs: config.callDeadlineMs,
      logger,
      version: VERSION,
      secrets,
    });
    brain.server.onerror = (error) => logger.warn("protocol error", error);
    const transport = new StdioServerTransport(streams.stdin as typeof process.stdin, streams.stdout as typeof process.stdout);
    const send = transport.send.bind(transport);
    transport.send = (message) => send(withoutCodePrefix(message));
    await brain.server.connect(transport);
    logger.info(`serving ${baseURL} over stdio (tool names: ${config.toolNames})`);
  };

  let handshake: Handshake | undefined;
  let ending = false;
  const end = async (why: string): Promise<void> => {
    if (ending) return;
    ending = true;
    logger.debug(`shutting down: ${why}`);
    setTimeout(() => process.exit(0), SHUTDOWN_HARD_LIMIT_MS).unref();
    // messages that arrived while the SDK loaded are answered like any in flight
    if (handshake?.waiting()) await handshake.settled();
    await brain?.drain(SHUTDOWN_GRACE_MS);
    await brain?.cleanup();
    await options.service?.close().catch((error: unknown) => logger.warn("closing the embedded service failed", error));
    // every answer is in stdout's buffer; exit once it has been handed to the pipe (nothing more is written)
    if (process.stdout.writableLength === 0) process.exit(0);
    process.stdout.once("drain", () => process.exit(0));
  };

  // Oversized and malformed requests are answered here, before the handshake or the SDK reads them.
  const input = new InputLines(process.stdin, {
    onTooLarge(bytes, id) {
      logger.warn(`dropped a message of ${bytes} bytes: over the ${MESSAGE_MAX_BYTES} byte limit`);
      if (id !== undefined) process.stdout.write(tooLargeAnswer(id));
    },
    onInvalid(id, problem) {
      logger.warn(`refused request ${JSON.stringify(id)}: ${problem}`);
      process.stdout.write(invalidRequestAnswer(id, problem));
    },
  });
  const stdin = input as unknown as typeof process.stdin;

  // The SDK's transport does not notice the end of input by itself.
  process.stdin.on("end", () => void end("stdin ended"));
  process.stdin.on("close", () => void end("stdin closed"));
  process.stdout.on("error", () => void end("stdout closed"));
  process.on("SIGTERM", () => void end("SIGTERM"));
  process.on("SIGINT", () => void end("SIGINT"));

  if (!options.handshake) return connect({ stdin, stdout: process.stdout });
  handshake = startHandshake({
    answers: options.handshake,
    toolNames: config.toolNames,
    input: stdin,
    output: process.stdout,
    connect: async (streams) => {
      await connect(streams);
      // the server warms its client up when it answers tools/list; here that answer was the handshake's
      if (handshake?.listedTools()) brain?.warmUp();
    },
    onInputError: (error) => logger.warn("protocol error", error),
    onFailure: (error) => {
      process.stderr.write(`brain-mcp: error: ${(error as Error)?.message ?? String(error)}\n`);
      process.exit(1);
    },
  });
}

/**
 * The SDK's McpError puts "MCP error <code>: " in front of its message and a client's SDK adds it again on receipt
 * ("MCP error -32602: MCP error -32602: Unknown tool"): the wire carries the code once, in `code`.
 */
export function withoutCodePrefix<T>(message: T): T {
  const error = (message as { error?: { code?: unknown; message?: unknown } }).error;
  if (!error || typeof error.message !== "string") return message;
  const prefix = `MCP error ${String(error.code)}: `;
  if (!error.message.startsWith(prefix)) return message;
  return { ...message, error: { ...error, message: error.message.slice(prefix.length) } };
}

/** A stray console call (ours or a dependency's) would corrupt the protocol: console goes to stderr. */
export function routeConsoleToStderr(): void {
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  // patch the existing object too: modules may hold a reference to it
  for (const method of [
    "log",
    "info",
    "debug",
    "trace",
    "dir",
    "dirxml",
    "table",
    "group",
    "groupCollapsed",
    "count",
    "time",
    "timeLog",
    "timeEnd",
  ] as const) {
    (console as unknown as Record<string, unknown>)[method] = (toStderr[method] as (...args: unknown[]) => void).bind(toStderr);
  }
  globalThis.console = toStderr;
}
