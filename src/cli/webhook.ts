// `brain-mcp admin webhook …`: a workspace's webhook endpoints on the service's store. The signing secret is printed
// once, by `add` and `rotate-secret`; nothing else shows it.
import { loadOptional } from "../service/process/optional-deps.js";
import type { ServiceLog } from "../service/types.js";
import { parseId, UsageError } from "./admin-usage.js";
import type { StoreLocation } from "./serve.js";

export const WEBHOOK_USAGE = `  webhook add --workspace WORKSPACE_ID --url URL [--events CATEGORY_OR_TYPE,...]
                                    (prints the endpoint id and its whsec_ signing secret, once)
  webhook list [--workspace WORKSPACE_ID]
  webhook remove|rotate-secret|enable|test ENDPOINT_ID
  webhook deliveries ENDPOINT_ID [--limit N]        (the endpoint's delivery log, newest first)`;

export type WebhookFlags = { workspace?: string; url?: string; events?: string; limit?: string };

const ACTIONS = ["add", "list", "remove", "rotate-secret", "enable", "test", "deliveries"];

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
  const [{ openStore }, admin, { webhookSettings }] = await Promise.all([
    loadOptional(() => import("../service/store/open-store.js")),
    import("../service/webhooks/admin.js"),
    import("../service/webhooks/settings.js"),
  ]);
  const [, action, rawId] = positionals;
  const settings = webhookSettings(env);
  // Checked before the store opens: a refused URL or subscription writes nothing.
  let subscription: string[] = [];
  if (action === "add") {
    const warn = (message: string) => process.stderr.write(`brain-mcp admin: warning: ${message}\n`);
    const workspaceId = parseId(flags.workspace, "--workspace");
    subscription = await admin.checkNewEndpoint(
      { workspaceId, url: flags.url!, events: flags.events },
      { allowPrivate: settings.allowPrivate, warn },
    );
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
        const added = await admin.insertEndpoint(
          store,
          { workspaceId: parseId(flags.workspace, "--workspace"), url: flags.url!, events: subscription },
          Date.now(),
        );
        const listens = subscription.length ? subscription.join(", ") : "every event";
        return {
          json: { id: added.id, secret: added.secret, workspace_id: added.workspace_id, url: added.url, events: added.events },
          human: [
            `Webhook endpoint ${added.id} for workspace ${added.workspace_id}: ${added.url} (${listens}).`,
            "Signing secret (shown once; store it now):",
            added.secret,
          ],
        };
      }
      case "list": {
        const workspaceId = flags.workspace === undefined ? undefined : parseId(flags.workspace, "--workspace");
        const all = (await hooks.listEndpoints(workspaceId)).map(admin.endpointView);
        return {
          json: { endpoints: all },
          human: all.length
            ? all.map(
                (e) =>
                  `${e.id}  workspace ${e.workspace_id}  ${e.url}  ${e.events.length ? e.events.join(",") : "every event"}` +
                  (e.disabled
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
        const secret = await admin.rotateSecret(store, endpointId!);
        if (secret === null) throw new Error(`no webhook endpoint with id ${endpointId}`);
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
        const { VERSION } = await import("../version.js");
        const outcome = await admin.sendTestEvent(store, endpoint, {
          settings,
          log,
          version: VERSION,
          origin: "`brain-mcp admin webhook test`",
        });
        if (!outcome.delivered) {
          throw new Error(
            outcome.msg_id === null
              ? `the test delivery to endpoint ${endpoint.id} has no outcome yet; see \`admin webhook deliveries ${endpoint.id}\``
              : `the test delivery ${outcome.msg_id} to endpoint ${endpoint.id} failed: ${outcome.error}`,
          );
        }
        return {
          json: { id: endpoint.id, msg_id: outcome.msg_id, delivered: true, status_code: outcome.status_code },
          human: [`Test event ${outcome.msg_id} delivered to endpoint ${endpoint.id} (HTTP ${outcome.status_code}).`],
        };
      }
      case "deliveries": {
        await requireEndpoint();
        const rows = (await hooks.deliveries(endpointId!, flags.limit === undefined ? 50 : Number(flags.limit))).map(admin.deliveryView);
        return {
          json: { endpoint_id: endpointId, deliveries: rows },
          human: rows.length
            ? rows.map(
                (d) =>
                  `${d.msg_id}  ${d.type}  ${d.status}  ${d.attempts} attempt${d.attempts === 1 ? "" : "s"}` +
                  (d.last_status_code !== null ? `  HTTP ${d.last_status_code}` : "") +
                  (d.last_error ? `  last error: ${d.last_error}` : "") +
                  (d.next_attempt_at !== null ? `  next attempt ${d.next_attempt_at}` : ""),
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
