// Verifying a webhook from `brain-mcp serve` (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
// `webhook-signature`, the endpoint's `whsec_` secret). Wraps the standardwebhooks package, imported only when a
// delivery is verified: the adapter's own dependencies stay the MCP SDK, zod, undici and env-paths.

/** A verified event: the body `serve` signed. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  /** e.g. `key.revoked`, `billing.usage_threshold`, `anomaly.pii_rejections` (the OpenAPI document's `webhooks`). */
  type: string;
  /** When the event happened, ISO 8601 UTC. */
  timestamp: string;
  data: Data;
}

/** The delivery is not from the holder of the secret, was altered, or is too old (more than 5 minutes). */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

export const WEBHOOKS_INSTALL = "npm install standardwebhooks";

type WebhookClass = typeof import("standardwebhooks").Webhook;

async function loadWebhookClass(): Promise<WebhookClass> {
  try {
    const mod = (await import("standardwebhooks")) as { Webhook?: WebhookClass; default?: { Webhook: WebhookClass } };
    return (mod.Webhook ?? mod.default!.Webhook) as WebhookClass;
  } catch (err) {
    throw new Error(`verifying webhooks needs the package standardwebhooks; install it with: ${WEBHOOKS_INSTALL}`, { cause: err });
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function standardHeaders(headers: HeaderSource): Record<string, string> {
  const get = (name: string): string => {
    if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? "";
    const record = headers as Record<string, string | string[] | undefined>;
    const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
    return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
  };
  return { "webhook-id": get("webhook-id"), "webhook-timestamp": get("webhook-timestamp"), "webhook-signature": get("webhook-signature") };
}

/**
 * Checks a delivery's signature and age with the endpoint's secret and returns its event. `payload` is the raw
 * request body, exactly as received (a parsed and re-serialized body no longer matches its signature).
 * Throws WebhookVerificationError for a delivery that must be refused.
 */
export async function verifyWebhook<Data = Record<string, unknown>>(
  payload: string | Uint8Array,
  headers: HeaderSource,
  secret: string,
): Promise<WebhookEvent<Data>> {
  const Webhook = await loadWebhookClass();
  const body = typeof payload === "string" ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  try {
    return new Webhook(secret).verify(body, standardHeaders(headers)) as WebhookEvent<Data>;
  } catch (err) {
    throw new WebhookVerificationError(`the webhook delivery did not verify: ${(err as Error).message}`);
  }
}
