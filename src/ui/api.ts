// The dashboard's JSON endpoints (src/service/dashboard/http.ts), typed by the server's own shapes.
import type { HealthResponse } from "../contract/wire.js";
import type { DashboardMemory, DuplicateView, MemoryPage, SearchHit, WorkspaceOverview } from "../service/dashboard/data.js";
import type { MemoryStats } from "../service/store/types.js";

export type { DashboardMemory, DuplicateView, HealthResponse, MemoryPage, MemoryStats, SearchHit, WorkspaceOverview };

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

export const isHit = (m: DashboardMemory | SearchHit): m is SearchHit => "score" in m;
