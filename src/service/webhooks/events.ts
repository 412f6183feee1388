// The webhook events the service sends, their categories, and how an endpoint's subscription matches them. The
// payload of each is described in the OpenAPI document's `webhooks` section (src/contract/openapi.json).

export const WEBHOOK_CATEGORIES = ["lifecycle", "billing", "anomalies"] as const;
export type WebhookCategory = (typeof WEBHOOK_CATEGORIES)[number];

/** Every event type, with its category. */
export const WEBHOOK_EVENT_TYPES = {
  "workspace.active": "lifecycle",
  "workspace.suspended": "lifecycle",
  "workspace.limit_reached": "lifecycle",
  "workspace.deleted": "lifecycle",
  "key.created": "lifecycle",
  "key.revoked": "lifecycle",
  "endpoint.disabled": "lifecycle",
  "billing.usage_threshold": "billing",
  "billing.cycle_summary": "billing",
  "anomaly.pii_rejections": "anomalies",
  "anomaly.auth_failures": "anomalies",
  "anomaly.rate_limited": "anomalies",
  "anomaly.quality_score_low": "anomalies",
} as const satisfies Record<string, WebhookCategory>;

export type WebhookEventType = keyof typeof WEBHOOK_EVENT_TYPES;

/** Sent only by `admin webhook test`, to the one endpoint tested, whatever it subscribes to. */
export const TEST_EVENT_TYPE = "webhook.test";

/** A subscription names categories and event types; empty means every event. */
export function parseSubscription(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === "" || raw.trim() === "*") return [];
  const names = [
    ...new Set(
      raw
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== ""),
    ),
  ];
  for (const name of names) {
    if (!(WEBHOOK_CATEGORIES as readonly string[]).includes(name) && !(name in WEBHOOK_EVENT_TYPES)) {
      throw new Error(
        `unknown webhook category or event type ${JSON.stringify(name)}; categories: ${WEBHOOK_CATEGORIES.join(", ")}; ` +
          `event types: ${Object.keys(WEBHOOK_EVENT_TYPES).join(", ")}`,
      );
    }
  }
  return names;
}

export function subscribes(subscription: readonly string[], type: string): boolean {
  if (subscription.length === 0) return type in WEBHOOK_EVENT_TYPES;
  const category = WEBHOOK_EVENT_TYPES[type as WebhookEventType] as string | undefined;
  return subscription.includes(type) || (category !== undefined && subscription.includes(category));
}
