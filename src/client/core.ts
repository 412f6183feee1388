// The one place a request can fail: the HTTP loop (retries, timeouts, redirects, request ids, log redaction).
// Resources only shape requests and hand them here.
import { randomUUID } from "node:crypto";
import { Agent } from "undici";
import type { z } from "zod";
import { CLIENT_MAX_REDIRECTS, CLIENT_MAX_RETRIES_DEFAULT, CLIENT_TIMEOUT_MS_DEFAULT, DEFAULT_BASE_URL } from "../contract/limits.js";
import { VERSION } from "../version.js";
import {
  AuthenticationError,
  BrainError,
  CLIENT_ERROR_CODES as CODES,
  ConnectionError,
  TimeoutError,
  errorFromResponse,
  requestSuffix,
  retryAfterSeconds,
} from "./errors.js";
import { createStderrLogger, isNoop, redact, type LogFields, type Logger } from "./logger.js";

export interface ClientOptions {
  /** The workspace key. Default: env `BRAIN_API_KEY`; with neither, the constructor throws AuthenticationError. */
  apiKey?: string;
  /** Default: env `BRAIN_BASE_URL`, else `http://127.0.0.1:8787`. Plain `http:` only to loopback addresses. */
  baseURL?: string;
  /** Milliseconds per attempt. Default 30,000. */
  timeout?: number;
  /** Further attempts after a 502/503/504, a network error or a timeout. Default 2. */
  maxRetries?: number;
  /** Where log lines go (already redacted). Default: warn and error lines to stderr. */
  logger?: Logger;
  /** Extra headers for every request; the client's own (Authorization, User-Agent, Accept, ...) win on a clash. */
  defaultHeaders?: Record<string, string>;
}

export interface RequestOptions {
  /** Aborting ends the call at once, even between attempts: TimeoutError when the reason is a timeout, else cancelled. */
  signal?: AbortSignal;
  /** Milliseconds per attempt, for this call. */
  timeout?: number;
  /** Further attempts, for this call. */
  maxRetries?: number;
  /** Store only: the Idempotency-Key to send (default: a fresh UUID, the same across this call's attempts). */
  idempotencyKey?: string;
}

/** Knobs for tests, not part of the public API: backoff timing and the randomness behind its jitter. */
export interface InternalClientOptions extends ClientOptions {
  retryBaseMs?: number;
  retryCapMs?: number;
  retryAfterMaxMs?: number;
  random?: () => number;
}

export const RETRY_BASE_MS = 500;
export const RETRY_CAP_MS = 8_000;
/** A 503's Retry-After is honoured up to this long, so one answer cannot park a call for minutes. */
export const RETRY_AFTER_MAX_MS = 30_000;

export const USER_AGENT = `brain-mcp/${VERSION} node/${process.version}`;

export interface Route {
  method: "GET" | "POST";
  path: string;
}

export interface Call<T> {
  route: Route;
  body?: unknown;
  schema: z.ZodType<T>;
  /** Set for stores: one Idempotency-Key across all attempts. */
  idempotent?: boolean;
}

interface Target {
  origin: string;
  path: string;
}

interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

type AttemptFailure = { kind: "timeout" | "network"; cause: unknown };

const RETRYABLE_STATUS = new Set([502, 503, 504]);
const FOLLOWED_REDIRECT = new Set([301, 308]);

export class Core {
  readonly baseURL: string;
  readonly timeout: number;
  readonly maxRetries: number;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly apiKey: string;
  private readonly logger: Logger;
  private readonly debugEnabled: boolean;
  private readonly headers: Record<string, string>;
  private readonly jsonHeaders: Record<string, string>;
  private readonly agent: Agent;
  private readonly retryBaseMs: number;
  private readonly retryCapMs: number;
  private readonly retryAfterMaxMs: number;
  private readonly random: () => number;
  private closing: Promise<void> | null = null;

  constructor(options: ClientOptions = {}) {
    const internal = options as InternalClientOptions;
    const apiKey = options.apiKey ?? process.env.BRAIN_API_KEY;
    if (!apiKey) {
      throw new AuthenticationError("No API key: pass { apiKey } to new Brain() or set the BRAIN_API_KEY environment variable.", {
        code: CODES.missingApiKey,
      });
    }
    this.apiKey = apiKey;
    const base = parseBaseURL(options.baseURL || process.env.BRAIN_BASE_URL || DEFAULT_BASE_URL);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, "");
    this.baseURL = this.origin + this.basePath;
    this.timeout = positive("timeout", options.timeout ?? CLIENT_TIMEOUT_MS_DEFAULT);
    this.maxRetries = retries(options.maxRetries ?? CLIENT_MAX_RETRIES_DEFAULT);
    this.logger = options.logger ?? createStderrLogger("warn");
    this.debugEnabled = !isNoop(this.logger.debug);
    this.retryBaseMs = internal.retryBaseMs ?? RETRY_BASE_MS;
    this.retryCapMs = internal.retryCapMs ?? RETRY_CAP_MS;
    this.retryAfterMaxMs = internal.retryAfterMaxMs ?? RETRY_AFTER_MAX_MS;
    this.random = internal.random ?? Math.random;
    const extra: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.defaultHeaders ?? {})) extra[name.toLowerCase()] = value;
    this.headers = {
      ...extra,
      authorization: `Bearer ${apiKey}`,
      "user-agent": USER_AGENT,
      accept: "application/json",
    };
    this.jsonHeaders = { ...this.headers, "content-type": "application/json" };
    this.agent = new Agent();
  }

  /** Sends one operation: retries, redirects and parsing included. Resolves to the parsed body or throws a BrainError. */
  async request<T>(call: Call<T>, options: RequestOptions = {}): Promise<T> {
    const { route } = call;
    const operation = `${route.method} ${route.path}`;
    if (this.closing) throw new BrainError(`${operation}: this Brain client is closed.`, { code: CODES.closed });
    const signal = options.signal;
    if (signal?.aborted) throw this.abortError(operation, signal, 0);
    const maxRetries = options.maxRetries === undefined ? this.maxRetries : retries(options.maxRetries);
    const timeout = options.timeout === undefined ? this.timeout : positive("timeout", options.timeout);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    let headers = body === undefined ? this.headers : this.jsonHeaders;
    if (call.idempotent) headers = { ...headers, "idempotency-key": options.idempotencyKey ?? randomUUID() };

    let target: Target = { origin: this.origin, path: this.basePath + route.path };
    let hops = 0;
    let attempt = 0;
    for (;;) {
      attempt++;
      if (this.debugEnabled) this.log("debug", `${operation} attempt ${attempt}`, { url: target.origin + target.path });
      const answer = await this.send(target, route.method, headers, body, timeout, signal);

      if (!("statusCode" in answer)) {
        if (signal?.aborted) throw this.abortError(operation, signal, attempt);
        if (attempt <= maxRetries) {
          const delay = this.backoff(attempt);
          this.log("info", `${operation}: ${describeFailure(answer, timeout)}; retrying in ${Math.round(delay)} ms`, {
            attempt,
            maxRetries,
          });
          if (!(await sleep(delay, signal))) throw this.abortError(operation, signal!, attempt);
          continue;
        }
        throw this.failureError(operation, answer, timeout, attempt);
      }

      const { statusCode, headers: responseHeaders } = answer;
      const requestId = firstHeader(responseHeaders["x-request-id"]) ?? null;
      if (this.debugEnabled) this.log("debug", `${operation} answered ${statusCode}`, { requestId });

      if (statusCode >= 200 && statusCode < 300) return this.parse(operation, answer, call.schema, requestId);

      if (statusCode >= 300 && statusCode < 400) {
        target = this.follow(operation, target, answer, requestId, ++hops);
        attempt--; // a hop is not an attempt
        continue;
      }

      const errorBody = parseErrorBody(answer.text);
      if (RETRYABLE_STATUS.has(statusCode) && attempt <= maxRetries) {
        const retryAfter = statusCode === 503 ? retryAfterSeconds(responseHeaders, errorBody) : null;
        const delay = retryAfter === null ? this.backoff(attempt) : Math.min(retryAfter * 1000, this.retryAfterMaxMs);
        this.log("info", `${operation} answered ${statusCode}; retrying in ${Math.round(delay)} ms`, {
          attempt,
          maxRetries,
          requestId,
        });
        if (!(await sleep(delay, signal))) throw this.abortError(operation, signal!, attempt);
        continue;
      }
      throw errorFromResponse(operation, statusCode, responseHeaders, errorBody, requestId, attempt);
    }
  }

  /** Closes the connection pool; later calls fail with code `client_closed`. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= this.agent.close();
    return this.closing;
  }

  /** One attempt: an answer, or why none came. Never throws. */
  private async send(
    target: Target,
    method: Route["method"],
    headers: Record<string, string>,
    body: string | undefined,
    timeout: number,
    signal: AbortSignal | undefined,
  ): Promise<Answer | AttemptFailure> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.agent.request({
        origin: target.origin,
        path: target.path,
        method,
        headers,
        body,
        signal: controller.signal,
      });
      const text = await response.body.text();
      return { statusCode: response.statusCode, headers: response.headers, text };
    } catch (cause) {
      if (isInvalidArgument(cause)) throw new BrainError(`${method} ${target.path}: ${(cause as Error).message}`);
      return { kind: timedOut ? "timeout" : "network", cause };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private parse<T>(operation: string, answer: Answer, schema: z.ZodType<T>, requestId: string | null): T {
    let data: unknown;
    try {
      data = JSON.parse(answer.text);
    } catch {
      throw new BrainError(
        `${operation} answered ${answer.statusCode} with a body that is not JSON; is ${this.baseURL} a brain-mcp service?${requestSuffix(requestId)}`,
        { statusCode: answer.statusCode, requestId, body: answer.text, code: CODES.invalidResponse },
      );
    }
    const parsed = schema.safeParse(data);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length ? `${issue.path.map(String).join(".")}: ` : "";
    throw new BrainError(
      `${operation} answered a response this client cannot read (${where}${issue?.message ?? "invalid"})${requestSuffix(requestId)}`,
      { statusCode: answer.statusCode, requestId, body: data, code: CODES.invalidResponse },
    );
  }

  /** The next target for a 301/308, or an error for any other redirect, an unsafe one, or one hop too many. */
  private follow(operation: string, from: Target, answer: Answer, requestId: string | null, hops: number): Target {
    const { statusCode } = answer;
    const fromRaw = from.origin + from.path;
    const fromURL = redact(fromRaw, [this.apiKey]);
    const location = firstHeader(answer.headers.location);
    const init = { statusCode, requestId, body: answer.text || null };
    if (!FOLLOWED_REDIRECT.has(statusCode) || !location) {
      throw new BrainError(
        `${operation}: ${fromURL} answered ${statusCode}${location ? ` (to ${redact(location, [this.apiKey])})` : ""}; ` +
          `only permanent redirects (301, 308) with a Location are followed. Check the base URL (BRAIN_BASE_URL).${requestSuffix(requestId)}`,
        { ...init, code: CODES.redirectNotFollowed },
      );
    }
    let to: URL;
    try {
      to = new URL(location, fromRaw);
    } catch {
      throw new BrainError(`${operation}: ${fromURL} redirected to an invalid address.${requestSuffix(requestId)}`, {
        ...init,
        code: CODES.redirectRefused,
      });
    }
    const shown = redact(to.href, [this.apiKey]);
    if (!isSafeURL(to)) {
      throw new BrainError(
        `${operation}: ${fromURL} redirected (${statusCode}) to ${shown}, plain http off this machine; refused so the ` +
          `API key is not sent unencrypted. Set BRAIN_BASE_URL to the service's https address.${requestSuffix(requestId)}`,
        { ...init, code: CODES.redirectRefused },
      );
    }
    if (hops > CLIENT_MAX_REDIRECTS) {
      throw new BrainError(
        `${operation}: more than ${CLIENT_MAX_REDIRECTS} redirects (last to ${shown}); set BRAIN_BASE_URL to the service's current address.${requestSuffix(requestId)}`,
        { ...init, code: CODES.tooManyRedirects },
      );
    }
    this.log("warn", `${operation}: ${fromURL} moved permanently (${statusCode}) to ${shown}; update BRAIN_BASE_URL to the new address`, {
      from: fromURL,
      to: shown,
      requestId,
    });
    return { origin: to.origin, path: to.pathname + to.search };
  }

  /** Full jitter: uniform in [0, min(cap, base * 2^(attempt-1))]. */
  private backoff(attempt: number): number {
    return this.random() * Math.min(this.retryCapMs, this.retryBaseMs * 2 ** (attempt - 1));
  }

  private abortError(operation: string, signal: AbortSignal, attempts: number): BrainError {
    const reason: unknown = signal.reason;
    const tried = attempts ? ` after ${plural(attempts, "attempt")}` : "";
    if (isTimeoutReason(reason)) {
      return new TimeoutError(`${operation} to ${this.baseURL} ran out of time (the call's deadline passed)${tried}.`, {
        code: CODES.timeout,
        cause: reason,
      });
    }
    return new BrainError(`${operation} to ${this.baseURL} was cancelled${tried}.`, { code: CODES.cancelled, cause: reason });
  }

  private failureError(operation: string, failure: AttemptFailure, timeout: number, attempts: number): BrainError {
    const tried = ` (${plural(attempts, "attempt")})`;
    if (failure.kind === "timeout") {
      return new TimeoutError(`${operation} to ${this.baseURL} timed out after ${timeout} ms${tried}.`, {
        code: CODES.timeout,
      });
    }
    return new ConnectionError(
      `${operation}: could not reach ${this.baseURL}: ${networkReason(failure.cause)}${tried}. Is the service running?`,
      { code: CODES.connection, cause: failure.cause },
    );
  }

  private log(level: keyof Logger, message: string, fields?: LogFields): void {
    try {
      this.logger[level](redact(message, [this.apiKey]), fields && redact(fields, [this.apiKey]));
    } catch {
      // a failing logger must not fail the call
    }
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function parseBaseURL(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BrainError(`The base URL "${redact(raw)}" is not a valid URL (set BRAIN_BASE_URL or { baseURL }).`, {
      code: CODES.invalidBaseUrl,
    });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new BrainError(`The base URL ${url.origin} must use https.`, { code: CODES.invalidBaseUrl });
  }
  if (!isSafeURL(url)) {
    throw new BrainError(
      `Refusing the base URL ${url.origin}: plain http is allowed only to this machine (localhost, 127.0.0.1, ::1), ` +
        `so the API key is never sent unencrypted. Use https://${url.host}.`,
      { code: CODES.insecureBaseUrl },
    );
  }
  return url;
}

/** https anywhere; plain http only to loopback. */
export function isSafeURL(url: URL): boolean {
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopback(url.hostname);
}

export function isLoopback(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (host === "localhost" || host === "::1" || host === "0:0:0:0:0:0:0:1") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new BrainError(`${name} must be a positive number of milliseconds, got ${value}.`, { code: CODES.invalidOption });
  }
  return value;
}

function retries(value: number): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new BrainError(`maxRetries must be a whole number 0 or above, got ${value}.`, { code: CODES.invalidOption });
  }
  return value;
}

function parseErrorBody(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isTimeoutReason(reason: unknown): boolean {
  if (reason instanceof TimeoutError) return true;
  if (typeof reason !== "object" || reason === null) return false;
  const { name, code } = reason as { name?: unknown; code?: unknown };
  return name === "TimeoutError" || code === CODES.timeout;
}

function isInvalidArgument(cause: unknown): boolean {
  return (cause as { code?: unknown } | null)?.code === "UND_ERR_INVALID_ARG";
}

function describeFailure(failure: AttemptFailure, timeout: number): string {
  return failure.kind === "timeout" ? `no answer within ${timeout} ms` : networkReason(failure.cause);
}

function networkReason(cause: unknown): string {
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  const known: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ECONNRESET: "connection reset",
    UND_ERR_SOCKET: "connection closed by the other side",
    ENOTFOUND: "host not found (DNS)",
    EAI_AGAIN: "DNS lookup failed",
    UND_ERR_CONNECT_TIMEOUT: "connect timed out",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
  };
  if (typeof code === "string") return known[code] ?? code;
  return typeof message === "string" ? redact(message) : "network error";
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
