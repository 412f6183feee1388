// What an agent (or a person at the command line) reads: each API answer and each failure as a few plain lines.
// Answers from other servers may lack fields or carry new enumeration values, so every read is tolerant.

import type { HealthResponse, RetrieveResponse, StatusResponse, StoreResponse } from "../client/schemas.js";
import { redact } from "../config/logger.js";

export function renderRemember(result: StoreResponse): string {
  const lines: string[] = [];
  const action = result.dedup?.action;
  if (action === "merged") {
    const into = result.dedup.existing_id ?? result.memory_id;
    lines.push(`Merged into existing memory ${into}: it already held this fact (the richer text was kept).`);
  } else if (action === "stored_new" || action === undefined) {
    lines.push(`Remembered as new memory ${result.memory_id}.`);
  } else {
    // A dedup outcome this adapter does not know: say what the service said, without guessing its meaning.
    const existing = result.dedup.existing_id != null ? `, existing memory ${result.dedup.existing_id}` : "";
    lines.push(`Stored as memory ${result.memory_id} (dedup: ${action}${existing}).`);
  }
  if (result.importance !== undefined) lines.push(`Importance: ${result.importance}/10`);
  if (result.categories?.length) lines.push(`Categories: ${result.categories.join(", ")}`);
  lines.push(describeTemporal(result.temporal));
  return lines.join("\n");
}

export function renderRecall(result: RetrieveResponse): string {
  const memories = result.memories ?? [];
  if (memories.length === 0) return "No memories matched.";
  const lines = [`${memories.length} ${memories.length === 1 ? "memory" : "memories"} matched, best first:`];
  memories.forEach((memory, index) => {
    const marks = [`score ${formatScore(memory.score)}`];
    if (memory.importance !== undefined) marks.push(`importance ${memory.importance}/10`);
    const temporal = memory.meta?.temporal;
    if (memory.expired) {
      marks.push(`EXPIRED${temporal?.valid_until ? ` (was valid until ${temporal.valid_until})` : ""}`);
    } else if (temporal?.type === "time_bound") {
      marks.push(`time-bound until ${temporal.valid_until ?? "unknown"}`);
    } else if (temporal?.type && temporal.type !== "persistent") {
      marks.push(`temporal ${temporal.type}`);
    }
    lines.push(`${index + 1}. [${memory.id}] ${marks.join(" · ")}`);
    lines.push(indent(memory.text ?? ""));
  });
  if (memories.some((m) => m.expired)) {
    lines.push("Expired memories describe something that has ended: do not present them as current.");
  }
  return lines.join("\n");
}

const SIGNAL_LABELS: Record<string, string> = {
  total_memories: "total memories",
  stale_memories: "stale (expired, or untouched for 90 days)",
  duplicate_memories: "duplicates",
  overlong_memories: "overlong (over 1,000 characters)",
  never_retrieved_memories: "never retrieved (older than 7 days)",
  open_recommendations: "open recommendations",
};

export function renderHealth(result: HealthResponse): string {
  const lines = [`Memory quality score: ${result.quality_score}/100`, "Signals:"];
  for (const [name, value] of Object.entries(result.signals ?? {})) {
    lines.push(`- ${SIGNAL_LABELS[name] ?? name.replace(/_/g, " ")}: ${value}`);
  }
  const recommendations = result.recommendations ?? [];
  if (recommendations.length === 0) {
    lines.push("Recommendations: none.");
  } else {
    lines.push("Recommendations:");
    for (const r of recommendations) lines.push(`- ${r.message}${r.count !== undefined ? ` (${r.count})` : ""} [${r.code}]`);
  }
  if (result.generated_at) lines.push(`Generated at ${result.generated_at}.`);
  return lines.join("\n");
}

const STATE_WARNINGS: Record<string, string> = {
  suspended:
    "Warning: this workspace is suspended: remembering, recalling and health checks are refused until its administrator reactivates it.",
  limit_reached:
    "Warning: this workspace has reached its plan's limit: new memories are refused, but recall still works. Upgrade the plan or remove memories to store more.",
  deleted: "Warning: this workspace has been deleted: every call but status is refused. Use a key for another workspace.",
};

export function renderStatus(result: StatusResponse): string {
  const lines = [
    `Workspace: ${result.workspace_name ?? "(unnamed)"} (${result.workspace_id ?? "unknown id"})`,
    `State: ${result.workspace_status}`,
    `Plan: ${result.plan_name ?? "unknown"}${result.billing_cycle ? ` (billing cycle ${result.billing_cycle})` : ""}`,
    `Key prefix: ${result.api_key_prefix ?? "unknown"}${result.api_key_id !== undefined ? ` (key id ${result.api_key_id})` : ""}`,
  ];
  if (result.memory_count !== undefined) lines.push(`Memories: ${result.memory_count}`);
  const service = [result.healthy === false ? "unhealthy" : "healthy"];
  if (result.version) service.push(`version ${result.version}`);
  if (result.server_time) service.push(`server time ${result.server_time}`);
  lines.push(`Service: ${service.join(", ")}`);
  const warning = STATE_WARNINGS[result.workspace_status];
  if (warning) lines.push(warning);
  if (result.healthy === false) {
    lines.push("Warning: the service reports it cannot use its store or models right now: calls may fail until it recovers.");
  }
  return lines.join("\n");
}

/** The fields of the client's BrainError this module reads (duck-typed, so any error can be rendered). */
export interface ErrorLike {
  name?: string;
  body?: unknown;
  message?: string;
  statusCode?: number | null;
  code?: string | null;
  requestId?: string | null;
  retryAfter?: number | null;
  piiTypes?: string[] | null;
  cause?: unknown;
}

export type Operation = "remember" | "recall" | "health" | "status";

export interface ErrorContext {
  operation: Operation;
  baseURL: string;
  configPath: string;
  /** Set when the key was missing: the call never left the adapter. */
  missingKey?: boolean;
  /** The per-call deadline ran out (BRAIN_CALL_DEADLINE). */
  deadlineExceeded?: boolean;
  /** The adapter is shutting down and cancelled the call. */
  shuttingDown?: boolean;
  timeoutMs: number;
  callDeadlineMs: number;
  maxRetries: number;
  /** Values never to print (the key). */
  secrets?: readonly string[];
}

const ROUTE_OF: Record<Operation, string> = {
  remember: "POST /v1/memory/store",
  recall: "POST /v1/memory/retrieve",
  health: "GET /v1/optimize/health",
  status: "GET /v1/status",
};

/** One or two sentences: what happened, what to do; the request id when known; never the key. */
export function renderError(error: unknown, context: ErrorContext): string {
  const sentence = describeFailure((error ?? {}) as ErrorLike, context);
  const requestId = (error as ErrorLike | undefined)?.requestId;
  const text = requestId ? `${sentence} (request id ${requestId})` : sentence;
  return redact(text, context.secrets);
}

function describeFailure(error: ErrorLike, ctx: ErrorContext): string {
  const url = ctx.baseURL;
  if (ctx.missingKey) {
    return (
      `No API key is set, so the memory service cannot be reached. Set BRAIN_API_KEY in this server's environment ` +
      `(for Claude Desktop, the "env" of its entry), or save a key in ${ctx.configPath} with \`brain-mcp config set-key\`; ` +
      `\`brain-mcp --embedded\` runs a local service that needs neither.`
    );
  }
  if (ctx.shuttingDown) return "The adapter is shutting down, so this call was cancelled before the service answered. Nothing more will be done; try again once it is restarted.";
  const name = error.name ?? "";
  const status = error.statusCode ?? null;
  const code = error.code ?? null;
  const said = serviceMessage(error);
  const serviceSays = said ? ` The service says: ${said.replace(/\.?$/, ".")}` : "";

  if (ctx.deadlineExceeded || name === "TimeoutError") {
    return (
      `The memory service at ${url} did not answer in time (each attempt may take BRAIN_TIMEOUT=${seconds(ctx.timeoutMs)} s, ` +
      `the whole call BRAIN_CALL_DEADLINE=${seconds(ctx.callDeadlineMs)} s). Try again in a moment; if the service is simply slow, raise those settings.`
    );
  }
  if (name === "ConnectionError" || (status === null && isConnectionFailure(error))) {
    if (isRefused(error)) {
      return `No memory service at ${url}: start one with \`brain-mcp serve\`, use \`--embedded\`, or set \`BRAIN_BASE_URL\`.`;
    }
    return `Could not reach the memory service at ${url} (${causeOf(error)}). Check BRAIN_BASE_URL and the network, then try again.`;
  }
  switch (status) {
    case 401:
      return (
        `The memory service at ${url} rejected the API key (401 ${code ?? "invalid_api_key"}: missing, invalid or revoked). ` +
        `Check BRAIN_API_KEY or the key in ${ctx.configPath}; replace it with \`brain-mcp config set-key\`.`
      );
    case 403:
      if (code === "workspace_suspended") {
        return "This workspace is suspended, so the service refuses to remember, recall or report health (403 workspace_suspended). Ask the workspace's administrator to reactivate it; the status tool (`brain-mcp status`) still shows its state.";
      }
      if (code === "workspace_deleted") {
        return "This workspace has been deleted (403 workspace_deleted): its memories can no longer be used. Use a key for another workspace.";
      }
      if (code === "workspace_limit_reached") {
        return "This workspace has reached its plan's limit, so the memory was not stored (403 workspace_limit_reached). Recall still works; to store more, upgrade the plan or remove memories.";
      }
      return `The memory service refused this call (403${code ? " " + code : ""}).${serviceSays}`;
    case 404:
      if (ctx.operation === "health" || ctx.operation === "status") {
        return `The memory service at ${url} does not offer ${ROUTE_OF[ctx.operation]} (404): it predates ${ctx.operation}. Upgrade the service; remembering and recalling still work.`;
      }
      return `The memory service at ${url} has no ${ROUTE_OF[ctx.operation]} (404): check that BRAIN_BASE_URL points at a brain memory service.`;
    case 413:
      return `The request was too large for the service (413${code ? " " + code : ""}): shorten the text or the meta object.${serviceSays}`;
    case 422:
      if (code === "pii_detected") {
        const kinds = error.piiTypes?.length ? ` (${error.piiTypes.join(", ")})` : "";
        return `The memory was not stored: it contains personal or secret data${kinds}, which the service never keeps (422 pii_detected). Nothing of it was kept. Remember the fact again without that detail.`;
      }
      return `The service rejected the request (422${code ? " " + code : ""}).${serviceSays || " Check the arguments."} Fix that and try again.`;
    case 429: {
      const wait = error.retryAfter != null ? `${error.retryAfter} s` : "a few seconds";
      return `The memory service is rate-limiting this key (429). Wait ${wait} and try again.`;
    }
    case 500:
      return `The memory service failed with an internal error (500). Try again; if it repeats, give the request id to the service's operator.`;
    case 502:
    case 503:
    case 504:
      if (code === "storage_full") {
        return (
          `The memory service at ${url} cannot write: its disk is full (${status} storage_full). Memories already ` +
          `stored are kept, but nothing can be remembered or recalled until its operator frees disk space.`
        );
      }
      return (
        `The memory service at ${url} is unavailable (${status}${code ? " " + code : ""}), still after ${ctx.maxRetries} ` +
        `${ctx.maxRetries === 1 ? "retry" : "retries"}. Try again in a minute; if it persists, check the service.`
      );
  }
  if (status !== null) return `The memory service answered ${status}${code ? " " + code : ""}.${serviceSays}`;
  return `The call failed: ${error.message ?? String(error)}`;
}

/** The service's own words (the error body's message), not the client's summary of the call. */
function serviceMessage(error: ErrorLike & { body?: unknown }): string | undefined {
  const body = error.body as { error?: { message?: unknown } } | undefined;
  const message = body?.error?.message;
  return typeof message === "string" && message ? message : undefined;
}

function describeTemporal(temporal: StoreResponse["temporal"] | undefined): string {
  if (temporal?.type === "time_bound") return `Time-bound: valid until ${temporal.valid_until ?? "unknown"}`;
  if (temporal?.type === "persistent") return "Persistent: no end date";
  return `Temporal: ${temporal?.type ?? "unknown"}`;
}

function formatScore(score: number | undefined): string {
  return typeof score === "number" ? score.toFixed(2) : "?";
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `   ${line}`)
    .join("\n");
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT"]);

function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    const errors = (current as { errors?: unknown }).errors; // AggregateError from happy-eyeballs
    if (Array.isArray(errors)) for (const e of errors) codes.push(...causeCodes(e));
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

function isConnectionFailure(error: ErrorLike): boolean {
  return causeCodes(error).some((c) => NETWORK_CODES.has(c));
}

function isRefused(error: ErrorLike): boolean {
  return causeCodes(error).includes("ECONNREFUSED") || /ECONNREFUSED|connection refused/i.test(String(error.message));
}

function causeOf(error: ErrorLike): string {
  const codes = causeCodes(error).filter((c) => c !== "connection_error");
  return codes[0] ?? error.message ?? "network error";
}
