// The workspace owner's webhook operations, shared by `brain-mcp admin webhook …` and the dashboard: adding an endpoint
// (subscription and target checked before anything is written), rotating its secret, sending it a test event, and the
// views of endpoints and deliveries both show. A secret leaves here only in the answer to `add` and `rotate`.
import type { MemoryStore } from "../store/types.js";
import type { ServiceLog } from "../types.js";
import { newWebhookSecret } from "./deliver.js";
import { parseSubscription, TEST_EVENT_TYPE } from "./events.js";
import { createWebhookRuntime } from "./runtime.js";
import type { WebhookSettings } from "./settings.js";
import type { DeliveryRecord, WebhookEndpoint } from "./store.js";
import { resolveTarget, UnsafeTargetError } from "./target.js";

/** How long resolving a new endpoint's name may take before it is added unchecked (each delivery checks it). */
const ADD_RESOLVE_TIMEOUT_MS = 5_000;
/** How long a test waits for the delivery's outcome beyond the response time limit. */
const TEST_GRACE_MS = 5_000;

type HookedStore = Pick<MemoryStore, "getWorkspace" | "webhooks">;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export interface EndpointView {
  id: number;
  workspace_id: number;
  url: string;
  /** Categories and event types; empty: every event. */
  events: string[];
  created_at: string;
  disabled: boolean;
  disabled_at: string | null;
  disabled_reason: string | null;
  failure_streak: number;
}

export const endpointView = (e: WebhookEndpoint): EndpointView => ({
  id: e.id,
  workspace_id: e.workspace_id,
  url: e.url,
  events: e.events,
  created_at: iso(e.created_at)!,
  disabled: e.disabled_at !== null,
  disabled_at: iso(e.disabled_at),
  disabled_reason: e.disabled_reason,
  failure_streak: e.failure_streak,
});

export interface DeliveryView {
  id: number;
  msg_id: string;
  type: string;
  status: DeliveryRecord["status"];
  attempts: number;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
}

export const deliveryView = (d: DeliveryRecord): DeliveryView => ({
  id: d.id,
  msg_id: d.msg_id,
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  created_at: iso(d.created_at)!,
  last_attempt_at: iso(d.last_attempt_at),
  next_attempt_at: iso(d.next_attempt_at),
  last_status_code: d.last_status_code,
  last_error: d.last_error,
  delivered_at: iso(d.delivered_at),
});

/** A request the owner must correct (an unknown event name, a target webhooks may not reach, a missing workspace). */
export class WebhookRequestError extends Error {}

export interface NewEndpointRequest {
  workspaceId: number;
  url: string;
  /** A comma list or names of categories and event types; none: every event. */
  events: string | readonly string[] | undefined;
}

/**
 * Checks the subscription and the target before anything is opened or written; returns the subscription. A name that
 * does not resolve yet passes, with a warning (`warn`): every delivery resolves and checks it again.
 */
export async function checkNewEndpoint(
  request: NewEndpointRequest,
  options: { allowPrivate: boolean; warn: (message: string) => void },
): Promise<string[]> {
  let events: string[];
  try {
    const raw = request.events;
    events = parseSubscription(typeof raw === "string" || raw === undefined ? raw : raw.join(","));
  } catch (err) {
    throw new WebhookRequestError((err as Error).message);
  }
  try {
    await resolveTarget(request.url, options.allowPrivate, ADD_RESOLVE_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof UnsafeTargetError) throw new WebhookRequestError(err.message);
    options.warn(`${(err as Error).message}; deliveries will resolve and check it each time`);
  }
  return events;
}

/** Adds a checked endpoint (checkNewEndpoint) with a new secret: the only answer that ever holds it. */
export async function insertEndpoint(
  store: HookedStore,
  request: { workspaceId: number; url: string; events: string[] },
  now: number,
): Promise<EndpointView & { secret: string }> {
  if (!(await store.getWorkspace(request.workspaceId))) throw new WebhookRequestError(`workspace ${request.workspaceId} does not exist`);
  const secret = newWebhookSecret();
  const endpoint = { workspace_id: request.workspaceId, url: request.url, secret, events: request.events, created_at: now };
  const id = await store.webhooks.addEndpoint(endpoint);
  return { ...endpointView({ ...endpoint, id, disabled_at: null, disabled_reason: null, failure_streak: 0 }), secret };
}

/** A new secret for the endpoint (the old one stops signing at once); null when there is no such endpoint. */
export async function rotateSecret(store: HookedStore, endpointId: number): Promise<string | null> {
  const secret = newWebhookSecret();
  return (await store.webhooks.setSecret(endpointId, secret)) ? secret : null;
}

export type TestOutcome =
  | { delivered: true; msg_id: string; status_code: number | null }
  | { delivered: false; msg_id: string | null; error: string };

/**
 * Writes a `webhook.test` event for this endpoint alone and sends that event only from this process (a running `serve`
 * may take it first: the lease decides), then waits, bounded, for the delivery's first outcome in the endpoint's log.
 */
export async function sendTestEvent(
  store: HookedStore,
  endpoint: WebhookEndpoint,
  deps: { settings: WebhookSettings; log: ServiceLog; version: string; origin: string },
): Promise<TestOutcome> {
  if (endpoint.disabled_at !== null) throw new WebhookRequestError(`webhook endpoint ${endpoint.id} is disabled; enable it first`);
  const hooks = store.webhooks;
  const eventId = await hooks.insertEvent({
    workspace_id: endpoint.workspace_id,
    type: TEST_EVENT_TYPE,
    data: { workspace_id: endpoint.workspace_id, endpoint_id: endpoint.id, message: `A test event sent by ${deps.origin}.` },
    endpoint_id: endpoint.id,
    created_at: Date.now(),
  });
  const runtime = createWebhookRuntime({ store, settings: deps.settings, log: deps.log, now: Date.now, version: deps.version });
  // This event only: a whole outbox pass would judge other endpoints' deliveries by this process's settings.
  if (eventId !== null) await runtime.sendEvent(eventId);
  const deadline = Date.now() + deps.settings.responseTimeoutMs + TEST_GRACE_MS;
  for (;;) {
    const delivery = (await hooks.deliveries(endpoint.id, 50)).find((d) => d.event_id === eventId);
    if (delivery && (delivery.status !== "pending" || delivery.last_error !== null)) {
      return delivery.status === "delivered"
        ? { delivered: true, msg_id: delivery.msg_id, status_code: delivery.last_status_code }
        : { delivered: false, msg_id: delivery.msg_id, error: delivery.last_error ?? delivery.status };
    }
    if (Date.now() > deadline) {
      return { delivered: false, msg_id: delivery?.msg_id ?? null, error: "no outcome yet; its delivery log will show it" };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
