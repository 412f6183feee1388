// `brain-mcp admin webhook …`: a workspace's webhook endpoints on the service's store. The signing secret is printed
// once, by `add` and `rotate-secret`; nothing else shows it.
import { loadOptional } from "../service/http/optional-deps.js";
import type { ServiceLog } from "../service/types.js";
import { parseId, UsageError } from "./admin.js";
import type { StoreLocation } from "./serve.js";

export const WEBHOOK_USAGE = `  webhook add --workspace WORKSPACE_ID --url URL [--events CATEGORY_OR_TYPE,...]
                                    (prints the endpoint id and its whsec_ signing secret, once)
  webhook list [--workspace WORKSPACE_ID]
  webhook remove|rotate-secret|enable|test ENDPOINT_ID
  webhook deliveries ENDPOINT_ID [--limit N]        (the endpoint's delivery log, newest first)`;

export type WebhookFlags = { workspace?: string; url?: string; events?: string; limit?: string };

const ACTIONS = ["add", "list", "remove", "rotate-secret", "enable", "test", "deliveries"];

/** How long `webhook test` waits for the delivery's outcome beyond the response time limit. */
const TEST_GRACE_MS = 5_000;

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Checks the command's shape before anything is opened. */
export function checkWebhookCommand(positionals: string[], flags: WebhookFlags): void {
  const [, action, id] = positionals;
  if (!ACTIONS.includes(action ?? "")) throw new UsageError(`unknown command: ${positionals.join(" ")}`);
  if (action === "add" || action === "list") {
    if (positionals.length !== 2) throw new UsageError(`expected: webhook ${action} without further arguments`);
    if (action === "add" && (flags.workspace === undefined || flags.url === undefined)) {
      throw new UsageError("webhook add needs --workspace WORKSPACE_ID and --url URL");
    }
  } else {
    if (positionals.length !== 3) throw new UsageError(`expected: webhook ${action} ENDPOINT_ID`);
    parseId(id, "ENDPOINT_ID");
  }
  if (flags.limit !== undefined && !/^[1-9][0-9]{0,3}$/.test(flags.limit)) throw new UsageError("--limit must be 1..9999");
}

export async function runWebhook(
  positionals: string[],
  flags: WebhookFlags,
  location: StoreLocation,
  env: NodeJS.ProcessEnv,
  log: ServiceLog,
): Promise<{ json: Record<string, unknown>; human: string[] }> {
  checkWebhookCommand(positionals, flags);
  const [{ openStore }, events, target, deliver] = await Promise.all([
    loadOptional(() => import("../service/store/open-store.js")),
    import("../service/webhooks/events.js"),
    import("../service/webhooks/target.js"),
    import("../service/webhooks/deliver.js"),
  ]);
  const [, action, rawId] = positionals;
  const allowPrivate = (env.BRAIN_WEBHOOK_ALLOW_PRIVATE ?? "").trim() === "1";
  // Checked before the store opens: a refused URL or subscription writes nothing.
  let subscription: string[] = [];
  if (action === "add") {
    subscription = events.parseSubscription(flags.events);
    try {
      await target.resolveTarget(flags.url!, allowPrivate, 5_000);
    } catch (err) {
      if (err instanceof target.UnsafeTargetError) throw err;
      // A name not resolvable yet is no danger: every delivery resolves and checks it again.
      process.stderr.write(`brain-mcp admin: warning: ${(err as Error).message}; deliveries will resolve and check it each time\n`);
    }
  }
  const store = await loadOptional(() => openStore(location, { log }));
  const hooks = store.webhooks;
  try {
    const endpointId = rawId === undefined ? undefined : parseId(rawId, "ENDPOINT_ID");
    const requireEndpoint = async () => {
      const endpoint = await hooks.getEndpoint(endpointId!);
      if (!endpoint) throw new Error(`no webhook endpoint with id ${endpointId}`);
      return endpoint;
    };
    switch (action) {
      case "add": {
        const workspaceId = parseId(flags.workspace, "--workspace");
        if (!(await store.getWorkspace(workspaceId))) throw new Error(`workspace ${workspaceId} does not exist`);
        const secret = deliver.newWebhookSecret();
        const id = await hooks.addEndpoint({
          workspace_id: workspaceId,
          url: flags.url!,
          secret,
          events: subscription,
          created_at: Date.now(),
        });
        const listens = subscription.length ? subscription.join(", ") : "every event";
        return {
          json: { id, secret, workspace_id: workspaceId, url: flags.url, events: subscription },
          human: [
            `Webhook endpoint ${id} for workspace ${workspaceId}: ${flags.url} (${listens}).`,
            "Signing secret (shown once; store it now):",
            secret,
          ],
        };
      }
      case "list": {
        const workspaceId = flags.workspace === undefined ? undefined : parseId(flags.workspace, "--workspace");
        const all = await hooks.listEndpoints(workspaceId);
        return {
          json: {
            endpoints: all.map((e) => ({
              id: e.id,
              workspace_id: e.workspace_id,
              url: e.url,
              events: e.events,
              created_at: iso(e.created_at),
              disabled: e.disabled_at !== null,
              disabled_at: iso(e.disabled_at),
              disabled_reason: e.disabled_reason,
              failure_streak: e.failure_streak,
            })),
          },
          human: all.length
            ? all.map(
                (e) =>
                  `${e.id}  workspace ${e.workspace_id}  ${e.url}  ${e.events.length ? e.events.join(",") : "every event"}` +
                  (e.disabled_at !== null
                    ? `  DISABLED (${e.disabled_reason})`
                    : e.failure_streak > 0
                      ? `  ${e.failure_streak} failures in a row`
                      : ""),
              )
            : ["No webhook endpoints: `brain-mcp admin webhook add --workspace ID --url URL` adds one."],
        };
      }
      case "remove": {
        if (!(await hooks.removeEndpoint(endpointId!))) throw new Error(`no webhook endpoint with id ${endpointId}`);
        return { json: { id: endpointId, removed: true }, human: [`Webhook endpoint ${endpointId} and its delivery log are removed.`] };
      }
      case "rotate-secret": {
        const secret = deliver.newWebhookSecret();
        if (!(await hooks.setSecret(endpointId!, secret))) throw new Error(`no webhook endpoint with id ${endpointId}`);
        return {
          json: { id: endpointId, secret },
          human: [`New signing secret for webhook endpoint ${endpointId} (the old one no longer signs; shown once):`, secret],
        };
      }
      case "enable": {
        if (!(await hooks.enableEndpoint(endpointId!))) throw new Error(`no webhook endpoint with id ${endpointId}`);
        return {
          json: { id: endpointId, enabled: true },
          human: [`Webhook endpoint ${endpointId} is enabled; its pending deliveries go out again.`],
        };
      }
      case "test": {
        const endpoint = await requireEndpoint();
        if (endpoint.disabled_at !== null)
          throw new Error(`webhook endpoint ${endpoint.id} is disabled; \`admin webhook enable ${endpoint.id}\` first`);
        const { createWebhookRuntime } = await import("../service/webhooks/runtime.js");
        const { VERSION } = await import("../version.js");
        const { webhookSettings } = await import("../service/webhooks/settings.js");
        const eventId = await hooks.insertEvent({
          workspace_id: endpoint.workspace_id,
          type: events.TEST_EVENT_TYPE,
          data: {
            workspace_id: endpoint.workspace_id,
            endpoint_id: endpoint.id,
            message: "A test event sent by `brain-mcp admin webhook test`.",
          },
          endpoint_id: endpoint.id,
          created_at: Date.now(),
        });
        // This process sends it (a running serve may take it first: the lease decides); then the log says how it went.
        const settings = webhookSettings(env);
        const runtime = createWebhookRuntime({ store, settings, log, now: Date.now, version: VERSION });
        await runtime.runOnce();
        const deadline = Date.now() + settings.responseTimeoutMs + TEST_GRACE_MS;
        for (;;) {
          const delivery = (await hooks.deliveries(endpoint.id, 50)).find((d) => d.event_id === eventId);
          if (delivery && (delivery.status !== "pending" || delivery.last_error !== null)) {
            if (delivery.status !== "delivered") {
              throw new Error(`the test delivery ${delivery.msg_id} to endpoint ${endpoint.id} failed: ${delivery.last_error}`);
            }
            return {
              json: { id: endpoint.id, msg_id: delivery.msg_id, delivered: true, status_code: delivery.last_status_code },
              human: [`Test event ${delivery.msg_id} delivered to endpoint ${endpoint.id} (HTTP ${delivery.last_status_code}).`],
            };
          }
          if (Date.now() > deadline)
            throw new Error(
              `the test delivery to endpoint ${endpoint.id} has no outcome yet; see \`admin webhook deliveries ${endpoint.id}\``,
            );
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      case "deliveries": {
        await requireEndpoint();
        const rows = await hooks.deliveries(endpointId!, flags.limit === undefined ? 50 : Number(flags.limit));
        return {
          json: {
            endpoint_id: endpointId,
            deliveries: rows.map((d) => ({
              id: d.id,
              msg_id: d.msg_id,
              type: d.type,
              status: d.status,
              attempts: d.attempts,
              created_at: iso(d.created_at),
              last_attempt_at: iso(d.last_attempt_at),
              next_attempt_at: iso(d.next_attempt_at),
              last_status_code: d.last_status_code,
              last_error: d.last_error,
              delivered_at: iso(d.delivered_at),
            })),
          },
          human: rows.length
            ? rows.map(
                (d) =>
                  `${d.msg_id}  ${d.type}  ${d.status}  ${d.attempts} attempt${d.attempts === 1 ? "" : "s"}` +
                  (d.last_status_code !== null ? `  HTTP ${d.last_status_code}` : "") +
                  (d.last_error ? `  last error: ${d.last_error}` : "") +
                  (d.next_attempt_at !== null ? `  next attempt ${iso(d.next_attempt_at)}` : ""),
              )
            : [`No deliveries to endpoint ${endpointId} yet.`],
        };
      }
      default:
        throw new UsageError(`unknown command: ${positionals.join(" ")}`);
    }
  } finally {
    await store.close();
  }
}
