// A failed call as one or two sentences an agent (or a person at the command line) can act on: what happened, what
// to do, the request id when known, never the key. The sentence is chosen by the client's error class, then by the
// service's error `code` where one class covers several causes (a limit is not a suspension).
import {
  AuthenticationError,
  BrainError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from "../client/errors.js";
import { ADDRESS_EXAMPLES } from "../config/index.js";
import { redact } from "../config/logger.js";

export type Operation = "remember" | "recall" | "health" | "status";

export interface ErrorContext {
  operation: Operation;
  baseURL: string;
  configPath: string;
  /** The configured address is unusable (the setting's own sentence): the call never left the adapter. */
  badAddress?: string;
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

export function renderError(error: unknown, context: ErrorContext): string {
  const sentence = describeFailure(error, context);
  const requestId = error instanceof BrainError ? error.requestId : null;
  const text = requestId ? `${sentence} (request id ${requestId})` : sentence;
  return redact(text, context.secrets);
}

function describeFailure(error: unknown, ctx: ErrorContext): string {
  const url = ctx.baseURL;
  if (ctx.badAddress) {
    return (
      `The memory service's address is not usable, so nothing was sent: ${ctx.badAddress} Set BRAIN_BASE_URL in this ` +
      `server's environment (for Claude Desktop, the "env" of its entry) or save one with \`brain-mcp config set-url\`, then restart the server.`
    );
  }
  if (ctx.missingKey) {
    return (
      `No API key is set, so the memory service cannot be reached. Set BRAIN_API_KEY in this server's environment ` +
      `(for Claude Desktop, the "env" of its entry), or save a key in ${ctx.configPath} with \`brain-mcp config set-key\`; ` +
      `\`brain-mcp --embedded\` runs a local service that needs neither.`
    );
  }
  if (ctx.shuttingDown) {
    return "The adapter is shutting down, so this call was cancelled before the service answered. Nothing more will be done; try again once it is restarted.";
  }
  if (ctx.deadlineExceeded || error instanceof TimeoutError) {
    return (
      `The memory service at ${url} did not answer in time (each attempt may take BRAIN_TIMEOUT=${seconds(ctx.timeoutMs)} s, ` +
      `the whole call BRAIN_CALL_DEADLINE=${seconds(ctx.callDeadlineMs)} s). Try again in a moment; if the service is simply slow, raise those settings.`
    );
  }
  if (error instanceof ConnectionError) {
    if (error.refused) {
      return `No memory service at ${url}: start one with \`brain-mcp serve\`, use \`--embedded\`, or set \`BRAIN_BASE_URL\`.`;
    }
    const cause = error.causeCode ?? error.message;
    return `Could not reach the memory service at ${url} (${cause}). Check BRAIN_BASE_URL and the network, then try again.`;
  }
  if (!(error instanceof BrainError)) {
    return `The call failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  const { statusCode: status, code } = error;
  const said = serviceMessage(error);
  const serviceSays = said ? ` The service says: ${said.replace(/\.?$/, ".")}` : "";
  const withCode = code ? ` ${code}` : "";

  if (error instanceof AuthenticationError) {
    return (
      `The memory service at ${url} rejected the API key (401 ${code ?? "invalid_api_key"}: missing, invalid or revoked). ` +
      `Check BRAIN_API_KEY or the key in ${ctx.configPath}; replace it with \`brain-mcp config set-key\`.`
    );
  }
  if (error instanceof PermissionError) return describeRefusal(code, serviceSays);
  if (error instanceof NotFoundError) {
    const wrong = wrongAddress(url, ctx.operation);
    if (wrong) return wrong;
    if (ctx.operation === "health" || ctx.operation === "status") {
      return `The memory service at ${url} does not offer ${ROUTE_OF[ctx.operation]} (404): it predates ${ctx.operation}. Upgrade the service; remembering and recalling still work.`;
    }
    return `The memory service at ${url} has no ${ROUTE_OF[ctx.operation]} (404): check that BRAIN_BASE_URL points at a brain memory service.`;
  }
  if (error instanceof ValidationError) {
    if (status === 413) {
      return `The request was too large for the service (413${withCode}): shorten the text or the meta object.${serviceSays}`;
    }
    if (status !== 422) return answered(status, withCode, serviceSays);
    if (code === "pii_detected") {
      const kinds = error.piiTypes?.length ? ` (${error.piiTypes.join(", ")})` : "";
      return `The memory was not stored: it contains personal or secret data${kinds}, which the service never keeps (422 pii_detected). Nothing of it was kept. Remember the fact again without that detail.`;
    }
    return `The service rejected the request (422${withCode}).${serviceSays || " Check the arguments."} Fix that and try again.`;
  }
  if (error instanceof RateLimitError) {
    const wait = error.retryAfter != null ? `${error.retryAfter} s` : "a few seconds";
    return `The memory service is rate-limiting this key (429). Wait ${wait} and try again.`;
  }
  if (error instanceof ServiceUnavailableError) {
    if (code === "storage_full") {
      return (
        `The memory service at ${url} cannot write: its disk is full (${status} storage_full). Memories already ` +
        `stored are kept, but nothing can be remembered or recalled until its operator frees disk space.`
      );
    }
    return (
      `The memory service at ${url} is unavailable (${status}${withCode}), still after ${ctx.maxRetries} ` +
      `${ctx.maxRetries === 1 ? "retry" : "retries"}. Try again in a minute; if it persists, check the service.`
    );
  }
  if (error instanceof InternalServerError && status === 500) {
    return `The memory service failed with an internal error (500). Try again; if it repeats, give the request id to the service's operator.`;
  }
  if (status !== null) return answered(status, withCode, serviceSays);
  return `The call failed: ${error.message}`;
}

/**
 * A 404 from a base URL with a path (`…:8787/v1`, a page of another site): the address is wrong, not the service old.
 * Root addresses keep the other sentences (a service behind a proxy at a path prefix is told apart by what it says).
 */
function wrongAddress(url: string, operation: Operation): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const path = parsed.pathname.replace(/\/+$/, "");
  if (path === "") return null;
  const [method, route] = ROUTE_OF[operation].split(" ");
  const root = /\/v1$/.test(path) ? ` Here that is ${parsed.origin}${path.slice(0, -3)}.` : "";
  return (
    `Nothing answers ${method} ${route} at ${url} (404): the memory service's address looks wrong. BRAIN_BASE_URL is the ` +
    `service's root address, like ${ADDRESS_EXAMPLES}: the adapter adds /v1/... itself.${root}`
  );
}

function answered(status: number | null, withCode: string, serviceSays: string): string {
  return `The memory service answered ${status}${withCode}.${serviceSays}`;
}

/** 403: the workspace's state says why, by the service's code. */
function describeRefusal(code: string | null, serviceSays: string): string {
  switch (code) {
    case "workspace_suspended":
      return "This workspace is suspended, so the service refuses to remember, recall or report health (403 workspace_suspended). Ask the workspace's administrator to reactivate it; the status tool (`brain-mcp status`) still shows its state.";
    case "workspace_deleted":
      return "This workspace has been deleted (403 workspace_deleted): its memories can no longer be used. Use a key for another workspace.";
    case "workspace_limit_reached":
      return "This workspace has reached its plan's limit, so the memory was not stored (403 workspace_limit_reached). Recall still works; to store more, upgrade the plan or remove memories.";
    default:
      return `The memory service refused this call (403${code ? ` ${code}` : ""}).${serviceSays}`;
  }
}

/** The service's own words (the error body's message), not the client's summary of the call. */
function serviceMessage(error: BrainError): string | undefined {
  const body = error.body as { error?: { message?: unknown } } | null;
  const message = body?.error?.message;
  return typeof message === "string" && message ? message : undefined;
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}
