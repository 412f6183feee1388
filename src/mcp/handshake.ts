// The first answers of a session, before the MCP SDK has loaded: `initialize` and `tools/list` from answers the
// build computed with the real server, then the byte stream goes on to the SDK's own stdio transport.
// Only messages the SDK would certainly accept are answered here; anything else hands over at once, so the SDK
// sees (and answers, or rejects) it exactly as it would have. Loading the SDK and zod is most of a cold start.
// Why it exists (issue 23, `node test/bench/coldstart.js 15`, one run on a quiet machine, load 0.2): spawn to
// tools/list p50 42 ms with it, 100 ms with the SDK alone (the same bundle without the recorded answers), 161 ms for
// the reference server-memory: 0.26× and 0.62× against DESIGN.md's goal of 0.35×. The plain SDK path misses it.

import { EventEmitter } from "node:events";
import type { ToolNameMode } from "../config/env.js";
import { isPlainObject, isRequestId, MESSAGE_MAX_BYTES } from "./input-lines.js";
import { nameStyleFor, type NameStyle } from "./naming.js";

/** What the real server answers, recorded at build time (test/build/bundle.js) from the SDK in use. */
export interface HandshakeAnswers {
  latestProtocolVersion: string;
  supportedProtocolVersions: readonly string[];
  /** The initialize result; its protocolVersion is replaced by the one negotiated per request. */
  initializeResult: Record<string, unknown>;
  /** The tools/list result for each spelling of the tool names. */
  toolsList: Record<NameStyle, unknown>;
}

/** The two streams the SDK's StdioServerTransport is given once it takes over. */
export interface RelayStreams {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
}

export interface HandshakeOptions {
  answers: HandshakeAnswers;
  toolNames: ToolNameMode;
  input: NodeJS.ReadableStream & { pause(): unknown };
  output: NodeJS.WritableStream;
  /** Loads the server and connects it (over the SDK's stdio transport) to these streams. */
  connect(streams: RelayStreams): Promise<void>;
  /** Hears stdin's errors until the SDK's transport listens to them. */
  onInputError(error: unknown): void;
  /** Hears a failed hand-over (the server could not load): nothing can answer after it. */
  onFailure(error: unknown): void;
}

export interface Handshake {
  /** True while messages wait for the SDK to finish loading (they are answered once it has). */
  waiting(): boolean;
  /** Resolves once the SDK has taken over (at once if it never started to). */
  settled(): Promise<void>;
  /** Whether a tools/list was answered here (the caller warms the client up as the server would have). */
  listedTools(): boolean;
}

/** An id no client sends: the SDK's answer to the replayed initialize is recognised by it and dropped. */
const REPLAY_ID = "brain-mcp:replayed-initialize";
const REPLAY_MARK = `"id":${JSON.stringify(REPLAY_ID)}`;
/** A line longer than this without its newline is left to the SDK (input-lines.ts drops longer ones before). */
const LINE_LIMIT = MESSAGE_MAX_BYTES;

type Json = Record<string, unknown>;

export function startHandshake(options: HandshakeOptions): Handshake {
  const { answers, input, output } = options;
  let state: "early" | "loading" | "relaying" = "early";
  let pending: Buffer | undefined;
  let queued: Buffer[] = [];
  const replay: string[] = [];
  let initialized = false;
  let style: NameStyle = "dotted";
  let listed = false;
  let handover: Promise<void> | undefined;
  const relay = new RelayInput(input, () => input.off("data", onData));

  const onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    if (state === "relaying") return void relay.emit("data", bytes);
    if (state === "loading") return void queued.push(bytes);
    pending = pending ? Buffer.concat([pending, bytes]) : bytes;
    while (state === "early") {
      const newline = pending.indexOf(10);
      if (newline === -1) {
        if (pending.length > LINE_LIMIT) handOver();
        return;
      }
      // the SDK's ReadBuffer reads a line the same way
      const line = pending.toString("utf8", 0, newline).replace(/\r$/, "");
      if (!answerEarly(line)) return void handOver();
      pending = pending.subarray(newline + 1);
      if (listed) setImmediate(handOver); // the list is on its way: load the SDK for the calls that follow
    }
  };
  const onInputError = (error: unknown): void => {
    if (state === "relaying") relay.emit("error", error);
    else options.onInputError(error);
  };
  input.on("data", onData);
  input.on("error", onInputError);

  function answerEarly(line: string): boolean {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return false;
    }
    if (!isPlainObject(message)) return false;
    if (!initialized) {
      if (!isCertainInitialize(message)) return false;
      const requested = (message.params as Json).protocolVersion as string;
      const protocolVersion = answers.supportedProtocolVersions.includes(requested) ? requested : answers.latestProtocolVersion;
      style = nameStyleFor(options.toolNames, ((message.params as Json).clientInfo as Json).name as string);
      respond(message.id, { ...answers.initializeResult, protocolVersion });
      // the SDK learns the client's capabilities and name from the same request; its own answer is dropped
      replay.push(JSON.stringify({ ...message, id: REPLAY_ID }));
      initialized = true;
      return true;
    }
    if (message.method === "notifications/initialized" && !("id" in message)) {
      replay.push(line);
      return true;
    }
    if (!listed && isCertainToolsList(message)) {
      respond(message.id, answers.toolsList[style]);
      listed = true;
      return true;
    }
    return false;
  }

  function respond(id: unknown, result: unknown): void {
    // the shape and key order the SDK's Protocol sends
    output.write(JSON.stringify({ result, jsonrpc: "2.0", id }) + "\n");
  }

  function handOver(): void {
    if (state !== "early") return;
    state = "loading";
    if (pending?.length) queued.push(pending);
    pending = undefined;
    handover = options
      .connect({ stdin: relay as unknown as NodeJS.ReadableStream, stdout: withoutReplayAnswer(output) })
      .then(() => {
        for (const line of replay) relay.emit("data", Buffer.from(line + "\n", "utf8"));
        for (const chunk of queued) relay.emit("data", chunk);
        queued = [];
        state = "relaying";
      })
      .catch((error: unknown) => options.onFailure(error));
  }

  return {
    waiting: () => state === "loading" && queued.length > 0,
    settled: () => handover ?? Promise.resolve(),
    listedTools: () => listed,
  };
}

/** What the SDK transport reads from: the bytes stdin delivers after the hand-over. */
class RelayInput extends EventEmitter {
  constructor(
    private readonly input: { pause(): unknown },
    private readonly detach: () => void,
  ) {
    super();
  }

  /** The transport pauses its input when it closes: stop reading stdin, as it would have. */
  pause(): this {
    this.detach();
    this.input.pause();
    return this;
  }
}

/** stdout for the SDK, minus its answer to the replayed initialize (the client already has one). */
function withoutReplayAnswer(output: NodeJS.WritableStream): NodeJS.WritableStream {
  let dropped = false;
  const relay = {
    write(chunk: string, ...rest: unknown[]): boolean {
      if (!dropped && typeof chunk === "string" && chunk.includes(REPLAY_MARK)) {
        dropped = true;
        return true;
      }
      return (output.write as (...args: unknown[]) => boolean)(chunk, ...rest);
    },
    once(event: string, listener: (...args: unknown[]) => void) {
      output.once(event, listener);
      return relay;
    },
  };
  return relay as unknown as NodeJS.WritableStream;
}

// Conservative checks: each accepts only what the SDK's schemas (JSONRPCMessageSchema, InitializeRequestSchema,
// ListToolsRequestSchema) certainly accept; whatever they turn away is the SDK's to answer.

function isCertainInitialize(message: Json): boolean {
  if (!isRequest(message, "initialize") || !isPlainObject(message.params)) return false;
  const params = message.params;
  if (!onlyKeys(params, ["protocolVersion", "capabilities", "clientInfo"])) return false;
  if (typeof params.protocolVersion !== "string") return false;
  const info = params.clientInfo;
  if (!isPlainObject(info) || typeof info.name !== "string" || typeof info.version !== "string") return false;
  if (!onlyKeys(info, ["name", "version", "title", "websiteUrl", "description"])) return false;
  for (const key of ["title", "websiteUrl", "description"]) if (key in info && typeof info[key] !== "string") return false;
  return isCertainCapabilities(params.capabilities);
}

function isCertainCapabilities(capabilities: unknown): boolean {
  if (!isPlainObject(capabilities)) return false;
  if (!onlyKeys(capabilities, ["roots", "sampling", "elicitation", "experimental", "extensions"])) return false;
  const { roots, sampling, elicitation, experimental, extensions } = capabilities;
  if (roots !== undefined) {
    if (!isPlainObject(roots) || !onlyKeys(roots, ["listChanged"])) return false;
    if ("listChanged" in roots && typeof roots.listChanged !== "boolean") return false;
  }
  if (sampling !== undefined) {
    if (!isPlainObject(sampling) || !onlyKeys(sampling, ["context", "tools"])) return false;
    if (!Object.values(sampling).every(isPlainObject)) return false;
  }
  if (elicitation !== undefined) {
    if (!isPlainObject(elicitation) || !onlyKeys(elicitation, ["form", "url"])) return false;
    const { form, url } = elicitation;
    if (form !== undefined && !(isPlainObject(form) && onlyKeys(form, []))) return false;
    if (url !== undefined && !(isPlainObject(url) && onlyKeys(url, []))) return false;
  }
  for (const record of [experimental, extensions]) {
    if (record !== undefined && !(isPlainObject(record) && Object.values(record).every(isPlainObject))) return false;
  }
  return true;
}

function isCertainToolsList(message: Json): boolean {
  if (!isRequest(message, "tools/list")) return false;
  const params = message.params;
  if (params === undefined) return true;
  if (!isPlainObject(params) || !onlyKeys(params, ["cursor", "_meta"])) return false;
  if ("cursor" in params && typeof params.cursor !== "string") return false;
  if ("_meta" in params) {
    const meta = params._meta;
    if (!isPlainObject(meta) || !onlyKeys(meta, ["progressToken"])) return false;
    if ("progressToken" in meta && !isRequestId(meta.progressToken)) return false;
  }
  return true;
}

function isRequest(message: Json, method: string): boolean {
  return (
    message.jsonrpc === "2.0" &&
    message.method === method &&
    isRequestId(message.id) &&
    onlyKeys(message, ["jsonrpc", "id", "method", "params"])
  );
}

function onlyKeys(value: Json, allowed: readonly string[]): boolean {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) return false;
  return true;
}
