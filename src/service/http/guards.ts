// The guards in front of every documented route: who is calling, whether the key may spend a request now, and
// whether the workspace's state permits the operation.
import type { MiddlewareHandler } from "hono";
import type { MemoryService } from "../types.js";
import type { EdgeEnv, RouteName } from "./context.js";
import { serviceError } from "./errors.js";

/** Names the documented route, for the access log. */
export function route(name: RouteName): MiddlewareHandler<EdgeEnv> {
  return async (c, next) => {
    c.set("route", name);
    await next();
  };
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * Resolves `Authorization: Bearer <key>` (missing, unknown and revoked keys are all 401 invalid_api_key), then takes
 * one token from the key's bucket (an empty bucket is 429 with the seconds to wait): one read of the store for both.
 */
export function authenticate(service: MemoryService): MiddlewareHandler<EdgeEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (header === undefined || header.trim() === "") {
      throw serviceError("invalid_api_key", "No API key was sent; send it as `Authorization: Bearer <key>`.");
    }
    const match = BEARER.exec(header);
    const found = match ? await service.authenticateTakingToken(match[1]!) : null;
    if (found === null) {
      throw serviceError("invalid_api_key", "The API key is not valid (unknown, malformed or revoked); check the key you configured.");
    }
    c.set("auth", found.auth);
    const decision = found.rate;
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterSeconds));
      throw serviceError("rate_limited", `Too many requests for this API key; retry after ${seconds} second${seconds === 1 ? "" : "s"}.`, {
        retry_after: seconds,
      });
    }
    await next();
  };
}

/**
 * The workspace-state rules: suspended and deleted workspaces may only ask for status; a workspace at its limit
 * may do everything but store.
 */
export function workspaceState(operation: RouteName): MiddlewareHandler<EdgeEnv> {
  return async (c, next) => {
    const workspace = c.get("auth").workspace;
    if (operation !== "status") {
      if (workspace.status === "suspended") {
        throw serviceError(
          "workspace_suspended",
          "This workspace is suspended; only status is answered. Contact the workspace's administrator.",
        );
      }
      if (workspace.status === "deleted") {
        throw serviceError("workspace_deleted", "This workspace has been deleted; only status is answered.");
      }
      if (operation === "store" && workspace.status === "limit_reached") {
        throw serviceError(
          "workspace_limit_reached",
          "This workspace has reached its plan's limit; new memories cannot be stored. Retrieve, health and status still work.",
        );
      }
    }
    await next();
  };
}
