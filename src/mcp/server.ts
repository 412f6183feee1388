// The MCP server: four tools over one memory client. Transport-free: stdio.ts connects it to a process's pipes.
// The low-level Server is used because the tool names depend on the initialize request (clientInfo).

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool as ToolDeclaration,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { z } from "zod";
import type { ToolNameMode } from "../config/env.js";
import type { Logger } from "../config/logger.js";
import { nameStyleFor, toolName, type NameStyle } from "./naming.js";
import { renderError, type ErrorContext } from "./render-error.js";
import { TOOLS, type MemoryClient, type Tool } from "./tools/index.js";

export interface ServerDeps {
  /**
   * Opens the memory client on first use (its HTTP stack loads after the tool list is answered, not before).
   * Null when no key is configured: every call then explains how to set one.
   */
  openClient: (() => MemoryClient | Promise<MemoryClient>) | null;
  /** Where calls go, and where the key lives: named in error messages. */
  baseURL: string;
  /** The configured address is unusable (why, and what it should look like): every call says so. */
  baseURLProblem?: string;
  configPath: string;
  toolNames: ToolNameMode;
  timeoutMs: number;
  maxRetries: number;
  callDeadlineMs: number;
  logger: Logger;
  version: string;
  /** Never printed (the key in use). */
  secrets?: readonly string[];
  now?: () => number;
}

export interface BrainServer {
  server: Server;
  /** Resolves when every call already started has answered (at most `graceMs`, then they are cancelled). */
  drain(graceMs: number): Promise<void>;
  /** Cancels what is left, closes the server and the client. */
  cleanup(): Promise<void>;
  /** Starts loading the client (done once the tool list has been answered, so the first call does not wait for it). */
  warmUp(): void;
}

export function createServer(deps: ServerDeps): BrainServer {
  const now = deps.now ?? Date.now;
  const server = new Server(
    { name: "brain-mcp", title: "Brain memory", version: deps.version },
    {
      capabilities: { tools: { listChanged: false } },
      // the SDK validates only elicitation answers with it, and this server never elicits: skip building Ajv at start-up
      jsonSchemaValidator: acceptEverything,
      instructions:
        "Long-term memory shared across conversations. Recall before answering about the user, the project or past " +
        "decisions; remember durable facts, preferences and decisions as they come up; never store secrets.",
    },
  );
  const shutdown = new AbortController();
  const onShutdown = fanOut(shutdown.signal);
  const inFlight = new Set<Promise<unknown>>();
  let declarations: Map<NameStyle, ToolDeclaration[]> | undefined;
  let client: Promise<MemoryClient> | undefined;
  let opened: MemoryClient | undefined;
  const openClient = (): Promise<MemoryClient> =>
    (client ??= Promise.resolve()
      .then(deps.openClient!)
      .then((c) => (opened = c)));

  const warmUp = (): void => {
    if (deps.openClient) void openClient().catch(() => {});
  };

  const style = (): NameStyle => nameStyleFor(deps.toolNames, server.getClientVersion()?.name);

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    declarations ??= new Map();
    const current = style();
    let tools = declarations.get(current);
    if (!tools) {
      tools = TOOLS.map((tool) => declare(tool, current));
      declarations.set(current, tools);
      // warm the client up once this answer is on its way, so the first call does not pay for loading it
      setImmediate(warmUp);
    }
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const current = style();
    const tool = TOOLS.find((t) => toolName(t.base, current) === request.params.name);
    if (!tool) {
      const names = TOOLS.map((t) => toolName(t.base, current)).join(", ");
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. This server's tools are ${names}.`);
    }
    const answer = runTool(tool, toolName(tool.base, current), request.params.arguments ?? {}, extra.signal);
    inFlight.add(answer);
    try {
      return await answer;
    } finally {
      inFlight.delete(answer);
    }
  });

  async function runTool(tool: Tool, name: string, args: unknown, cancelled: AbortSignal): Promise<CallToolResult> {
    const parsed = tool.inputSchema.safeParse(args);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message));
      return failure(`Invalid arguments for ${name}: ${problems.join("; ")}.`);
    }
    const context: ErrorContext = {
      operation: tool.base,
      baseURL: deps.baseURL,
      configPath: deps.configPath,
      timeoutMs: deps.timeoutMs,
      callDeadlineMs: deps.callDeadlineMs,
      maxRetries: deps.maxRetries,
      secrets: deps.secrets,
    };
    if (deps.baseURLProblem) return failure(renderError(null, { ...context, badAddress: deps.baseURLProblem }));
    if (!deps.openClient) return failure(renderError(null, { ...context, missingKey: true }));

    const { signal, deadlineExceeded, dispose } = callSignal(deps.callDeadlineMs, cancelled, onShutdown);
    const started = now();
    try {
      const output = await tool.call(await untilAborted(openClient(), signal), parsed.data, { signal });
      deps.logger.debug(`${name} answered in ${now() - started} ms`);
      return {
        content: [{ type: "text", text: tool.render(output) }],
        structuredContent: output as Record<string, unknown>,
      };
    } catch (error) {
      const message = renderError(error, {
        ...context,
        deadlineExceeded: deadlineExceeded(),
        shuttingDown: shutdown.signal.aborted && !deadlineExceeded(),
      });
      deps.logger.info(`${name} failed after ${now() - started} ms: ${message}`);
      return failure(message);
    } finally {
      dispose();
    }
  }

  return {
    server,
    warmUp,
    async drain(graceMs) {
      const settled = Promise.allSettled([...inFlight]);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([settled, late]);
      clearTimeout(timer);
      if (inFlight.size > 0) {
        shutdown.abort(new Error("the adapter is shutting down"));
        await Promise.allSettled([...inFlight]);
      }
      // the answers are sent one microtask after each handler settles
      await new Promise((resolve) => setImmediate(resolve));
    },
    async cleanup() {
      shutdown.abort(new Error("the adapter is shutting down"));
      await server.close().catch(() => {});
      // a client still loading holds no connection: nothing to close
      await opened?.close();
    },
  };
}

function declare(tool: Tool, style: NameStyle): ToolDeclaration {
  return {
    name: toolName(tool.base, style),
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema, { target: "draft-7", io: "input" }) as ToolDeclaration["inputSchema"],
    outputSchema: z.toJSONSchema(tool.outputSchema, { target: "draft-7", io: "output" }) as ToolDeclaration["outputSchema"],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

const acceptEverything: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/** Abort listeners on one shared signal, one per call. */
interface FanOut {
  signal: AbortSignal;
  /** Runs `listener` when the signal aborts; the returned function stops that. */
  listen(listener: () => void): () => void;
}

/**
 * One listener on `signal` that calls every registered one: the adapter's shutdown signal is shared by every call in
 * flight, and an AbortSignal warns (MaxListenersExceededWarning) past ten listeners of its own.
 */
function fanOut(signal: AbortSignal): FanOut {
  const listeners = new Set<() => void>();
  signal.addEventListener("abort", () => listeners.forEach((listener) => listener()), { once: true });
  return {
    signal,
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * One call's signal: aborted by its deadline (with a TimeoutError, as AbortSignal.timeout does), by the host's
 * cancellation of this call, or by the adapter's shutdown, with its reason. AbortSignal.any over AbortSignal.timeout
 * did the same, but left a timer and a dependent signal behind for every call (Node 20), which costs time per call
 * and memory over many.
 */
function callSignal(deadlineMs: number, cancelled: AbortSignal, shutdown: FanOut) {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
  }, deadlineMs).unref();
  const stops: (() => void)[] = [];
  if (shutdown.signal.aborted) controller.abort(shutdown.signal.reason);
  else if (cancelled.aborted) controller.abort(cancelled.reason);
  else {
    const onCancel = () => controller.abort(cancelled.reason);
    cancelled.addEventListener("abort", onCancel, { once: true });
    stops.push(() => cancelled.removeEventListener("abort", onCancel));
    stops.push(shutdown.listen(() => controller.abort(shutdown.signal.reason)));
  }
  return {
    signal: controller.signal,
    deadlineExceeded: () => expired,
    dispose() {
      clearTimeout(timer);
      for (const stop of stops) stop();
    },
  };
}

/** `work`, unless `signal` aborts first (then its reason is thrown, as the client would). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
