// Stdin, one whole line at a time, minus two kinds of line the SDK would mishandle: a line over MESSAGE_MAX_BYTES
// (over its own 10 MiB buffer it closes the transport, and the adapter with it) and a request whose id can be read but
// whose shape cannot (it drops those silently, and the host waits for an answer until its own timeout). Each gets a
// JSON-RPC error for its id and the session goes on. A line that is not JSON at all has no id to answer; MCP allows
// no error without one, so the SDK drops it with a warning on stderr.

import { EventEmitter } from "node:events";
import { reservedKeyMessage, reservedKeyPath } from "../contract/input-policy.js";

/** The largest message the adapter reads. A tool call is at most ~60 KB (8,000 characters of text, 4 KiB of meta). */
export const MESSAGE_MAX_BYTES = 1 << 20;

/** How much of a dropped line's start and end is kept to find its id. */
const EDGE_BYTES = 256;
/** A request id right after `{"jsonrpc":"2.0",` at the start, or closing the object at the end (the SDK's order). */
const ID_AT_START = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,/;
const ID_AT_END = /,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

export interface InputLinesOptions {
  maxBytes?: number;
  /** Told of each line dropped for its size: its size, and its request id when one was found. */
  onTooLarge(bytes: number, id: string | number | undefined): void;
  /** Told of each request dropped for its shape: its id and what is wrong. */
  onInvalid(id: string | number, problem: string): void;
}

/**
 * What the handshake and the SDK's transport read instead of stdin: the same bytes, emitted as whole lines, minus
 * lines over the limit. Only what they use of a readable is offered: data, error, pause.
 */
export class InputLines extends EventEmitter {
  private readonly maxBytes: number;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** While a line over the limit is being skipped: its size so far, and its first and last bytes. */
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  constructor(
    private readonly source: NodeJS.ReadableStream & { pause(): unknown },
    private readonly options: InputLinesOptions,
  ) {
    super();
    this.maxBytes = options.maxBytes ?? MESSAGE_MAX_BYTES;
    // stdin starts flowing only once a reader listens: what arrives before waits in its buffer, as it did unwrapped
    const attach = (event: string | symbol): void => {
      if (event !== "data") return;
      this.off("newListener", attach);
      source.on("data", (chunk: Buffer | string) => this.take(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk));
    };
    this.on("newListener", attach);
    source.on("error", (error) => this.emit("error", error));
  }

  pause(): this {
    this.source.pause();
    return this;
  }

  private take(chunk: Buffer): void {
    const whole: Buffer[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      const piece = chunk.subarray(start, end);
      start = end;
      if (this.skipping) {
        this.skip(piece, newline !== -1);
        continue;
      }
      if (this.partialBytes + piece.length > this.maxBytes + 1) {
        const head = Buffer.concat([...this.partial, piece.subarray(0, EDGE_BYTES)]).subarray(0, EDGE_BYTES);
        this.skipping = { bytes: this.partialBytes, head, tail: Buffer.alloc(0) };
        this.partial = [];
        this.partialBytes = 0;
        this.skip(piece, newline !== -1);
        continue;
      }
      this.partial.push(piece);
      this.partialBytes += piece.length;
      if (newline !== -1) {
        const line = this.partial.length === 1 ? piece : Buffer.concat(this.partial);
        this.partial = [];
        this.partialBytes = 0;
        if (this.readable(line)) whole.push(line);
      }
    }
    if (whole.length > 0) this.emit("data", whole.length === 1 ? whole[0] : Buffer.concat(whole));
  }

  private skip(piece: Buffer, endsLine: boolean): void {
    const skipping = this.skipping!;
    skipping.bytes += piece.length;
    skipping.tail = Buffer.concat([skipping.tail, piece]).subarray(-EDGE_BYTES);
    if (!endsLine) return;
    this.skipping = null;
    const head = skipping.head.toString("utf8");
    const tail = skipping.tail.toString("utf8").replace(/\r?\n$/, "");
    const found = ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail)?.[1];
    this.options.onTooLarge(skipping.bytes, found === undefined ? undefined : (JSON.parse(found) as string | number));
  }

  /** False for a request with a usable id that the SDK could not read (it is answered here instead). */
  private readable(line: Buffer): boolean {
    let message: unknown;
    try {
      message = JSON.parse(line.toString("utf8"));
    } catch {
      return true; // not JSON: the SDK logs it
    }
    if (!isPlainObject(message) || !("method" in message) || !isRequestId(message.id)) return true;
    const problem = invalidRequest(message);
    if (problem === null) return true;
    this.options.onInvalid(message.id, problem);
    return false;
  }
}

type Json = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isRequestId(id: unknown): id is string | number {
  return typeof id === "string" || Number.isSafeInteger(id);
}

/** The JSON-RPC 2.0 request rules MCP keeps (params, when present, is an object); null when the request meets them. */
function invalidRequest(message: Json): string | null {
  if (message.jsonrpc !== "2.0") return '"jsonrpc" must be "2.0"';
  if (typeof message.method !== "string") return '"method" must be a string';
  if ("params" in message && !isPlainObject(message.params)) return '"params" must be an object';
  // The SDK's parsing would drop a `__proto__` key silently; the REST API refuses it, and so does the adapter.
  const reserved = reservedKeyPath(message.params);
  if (reserved !== null) return reservedKeyMessage(reserved);
  return null;
}

/** The JSON-RPC answer to a request whose shape could not be read. */
export function invalidRequestAnswer(id: string | number, problem: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message: `Invalid request: ${problem}.` } }) + "\n";
}

/** The JSON-RPC answer to a request whose message was too large to read. */
export function tooLargeAnswer(id: string | number, maxBytes: number = MESSAGE_MAX_BYTES): string {
  const message = `The message was larger than ${maxBytes / (1 << 20)} MiB, this server's limit, and was not read.`;
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message } }) + "\n";
}
