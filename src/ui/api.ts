// The dashboard's JSON endpoints (src/service/dashboard/http.ts), typed by the server's own shapes.
import type { HealthResponse } from "../contract/wire.js";
import type { DashboardKey, DashboardMemory, DuplicateView, MemoryPage, SearchHit, WorkspaceOverview } from "../service/dashboard/data.js";
import type { UsageReport } from "../service/dashboard/usage.js";
import type { DeliveryView, EndpointView, TestOutcome } from "../service/webhooks/admin.js";
import type { MemoryStats } from "../service/store/types.js";

export type {
  DashboardKey,
  DashboardMemory,
  DeliveryView,
  DuplicateView,
  EndpointView,
  HealthResponse,
  MemoryPage,
  MemoryStats,
  SearchHit,
  TestOutcome,
  UsageReport,
  WorkspaceOverview,
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** GET a JSON endpoint with the session's cookie; a refusal becomes an ApiError a person can act on. */
export async function api<T>(path: string): Promise<T> {
  const response = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (response.status === 401 || response.status === 403) {
    throw new ApiError(response.status, "This session is not signed in: open the URL that `brain-mcp ui` printed.");
  }
  const body = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok) throw new ApiError(response.status, body.error ?? `the dashboard answered ${response.status}`);
  return body as T;
}

let csrfToken: Promise<string> | undefined;

/**
 * POST a change with the session's CSRF token (read once from /api/session; the browser adds this page's Origin). A
 * refusal becomes an ApiError a person can act on.
 */
export async function post<T>(path: string, body?: unknown): Promise<T> {
  csrfToken ??= api<{ csrf_token: string }>("/api/session").then((s) => s.csrf_token);
  const headers: Record<string, string> = { Accept: "application/json", "X-CSRF-Token": await csrfToken };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401 || response.status === 403) {
    csrfToken = undefined;
    throw new ApiError(
      response.status,
      "The dashboard refused this change: reload the page (or open the URL `brain-mcp ui` printed) and try again.",
    );
  }
  const answer = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok) throw new ApiError(response.status, answer.error ?? `the dashboard answered ${response.status}`);
  return answer as T;
}

export const isHit = (m: DashboardMemory | SearchHit): m is SearchHit => "score" in m;
