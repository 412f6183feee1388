// The typed request context every middleware and route shares (hono's Variables).
import type { AuthContext, MemoryService, ServiceLog } from "../types.js";

export type RouteName = "store" | "retrieve" | "health" | "status";

export interface EdgeVariables {
  requestId: string;
  /** Set once the bearer key is resolved. */
  auth: AuthContext;
  /** The parsed JSON body of a POST, after the size and media-type checks. */
  body: unknown;
  /** The documented route the request matched, for the access log. */
  route: RouteName;
  /** The error code of an error answer, for the access log. */
  errorCode: string;
}

export interface EdgeEnv {
  Variables: EdgeVariables;
}

export interface EdgeDeps {
  service: MemoryService;
  log: ServiceLog;
  /** Clock, for the access log's duration and request ids. */
  now?: () => number;
  newRequestId?: () => string;
}
