// The dashboard's webhook controls: one workspace's endpoints (added, removed, tested, their secret rotated, enabled
// again) and each endpoint's delivery log, through the same operations as `admin webhook` (../webhooks/admin.ts). An
// endpoint of another workspace is, from here, no endpoint at all.
import type { MemoryStore } from "../store/types.js";
import type { ServiceLog } from "../types.js";
import {
  checkNewEndpoint,
  deliveryView,
  endpointView,
  insertEndpoint,
  rotateSecret,
  sendTestEvent,
  type DeliveryView,
  type EndpointView,
  type TestOutcome,
} from "../webhooks/admin.js";
import type { WebhookSettings } from "../webhooks/settings.js";
import type { WebhookEndpoint } from "../webhooks/store.js";

/** Deliveries shown in an endpoint's log, newest first. */
export const DELIVERIES_LISTED = 100;

export interface DashboardWebhookDeps {
  settings: WebhookSettings;
  log: ServiceLog;
  version: string;
}

export interface DashboardWebhooks {
  webhooks(workspaceId: number): Promise<EndpointView[]>;
  /** Checks the target and subscription first (WebhookRequestError says what is wrong); the answer holds the secret. */
  addWebhook(workspaceId: number, request: { url: string; events: readonly string[] }): Promise<EndpointView & { secret: string }>;
  /** False when the workspace has no such endpoint (as for every call below; null there). */
  removeWebhook(workspaceId: number, endpointId: number): Promise<boolean>;
  rotateWebhookSecret(workspaceId: number, endpointId: number): Promise<string | null>;
  enableWebhook(workspaceId: number, endpointId: number): Promise<boolean>;
  testWebhook(workspaceId: number, endpointId: number): Promise<TestOutcome | null>;
  webhookDeliveries(workspaceId: number, endpointId: number): Promise<{ endpoint: EndpointView; deliveries: DeliveryView[] } | null>;
}

export function createDashboardWebhooks(store: MemoryStore, deps: DashboardWebhookDeps): DashboardWebhooks {
  const hooks = store.webhooks;
  const owned = async (workspaceId: number, endpointId: number): Promise<(WebhookEndpoint & { secret: string }) | null> => {
    const endpoint = await hooks.getEndpoint(endpointId);
    return endpoint?.workspace_id === workspaceId ? endpoint : null;
  };
  return {
    async webhooks(workspaceId) {
      return (await hooks.listEndpoints(workspaceId)).map(endpointView);
    },

    async addWebhook(workspaceId, { url, events }) {
      const warn = (message: string) => deps.log.warn("dashboard: a new webhook endpoint's host does not resolve yet", { reason: message });
      const subscription = await checkNewEndpoint({ workspaceId, url, events }, { allowPrivate: deps.settings.allowPrivate, warn });
      return insertEndpoint(store, { workspaceId, url, events: subscription }, Date.now());
    },

    async removeWebhook(workspaceId, endpointId) {
      return (await owned(workspaceId, endpointId)) !== null && hooks.removeEndpoint(endpointId);
    },

    async rotateWebhookSecret(workspaceId, endpointId) {
      return (await owned(workspaceId, endpointId)) === null ? null : rotateSecret(store, endpointId);
    },

    async enableWebhook(workspaceId, endpointId) {
      return (await owned(workspaceId, endpointId)) !== null && hooks.enableEndpoint(endpointId);
    },

    async testWebhook(workspaceId, endpointId) {
      const endpoint = await owned(workspaceId, endpointId);
      return endpoint && sendTestEvent(store, endpoint, { ...deps, origin: "the dashboard" });
    },

    async webhookDeliveries(workspaceId, endpointId) {
      const endpoint = await owned(workspaceId, endpointId);
      if (endpoint === null) return null;
      const deliveries = (await hooks.deliveries(endpointId, DELIVERIES_LISTED)).map(deliveryView);
      return { endpoint: endpointView(endpoint), deliveries };
    },
  };
}
