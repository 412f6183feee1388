// One delivery attempt: sign the message (Standard Webhooks, with its reference library), POST it to the checked,
// pinned address within the response time limit, and report how it went. Redirects are never followed.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { randomBytes } from "node:crypto";
import { loadOptional } from "../process/optional-deps.js";
import { RESPONSE_READ_LIMIT_BYTES } from "./settings.js";
import { type ResolvedTarget, resolveTarget, UnsafeTargetError } from "./target.js";

export const SECRET_PREFIX = "whsec_";

/** A new endpoint secret: `whsec_` and 32 random bytes in base64, as the Standard Webhooks libraries read it. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

type WebhookClass = typeof import("standardwebhooks").Webhook;
let webhookClass: Promise<WebhookClass> | undefined;

/** The `webhook-signature` value for this message: `v1,<base64 HMAC-SHA256>`. */
export async function signMessage(secret: string, msgId: string, at: Date, body: string): Promise<string> {
  webhookClass ??= loadOptional(async () => (await import("standardwebhooks")).Webhook);
  const Webhook = await webhookClass;
  return new Webhook(secret).sign(msgId, at, body);
}

/** The JSON body of an event: the Standard Webhooks envelope. */
export function messageBody(type: string, createdAtMs: number, data: string): string {
  // Re-serialized, so the body reads the same whichever store's JSON functions wrote `data`.
  return JSON.stringify({ type, timestamp: new Date(createdAtMs).toISOString(), data: JSON.parse(data) as unknown });
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  /** What went wrong, for the delivery log (never the secret, never the body sent). */
  error: string | null;
  /** The target was refused (not a network failure). */
  refused?: boolean;
}

export interface Message {
  url: string;
  secret: string;
  msgId: string;
  body: string;
}

export async function attemptDelivery(
  message: Message,
  opts: { allowPrivate: boolean; timeoutMs: number; now?: () => Date; userAgent: string },
): Promise<AttemptOutcome> {
  const started = Date.now();
  let target: ResolvedTarget;
  try {
    target = await resolveTarget(message.url, opts.allowPrivate, opts.timeoutMs);
  } catch (err) {
    return { ok: false, statusCode: null, error: (err as Error).message, refused: err instanceof UnsafeTargetError };
  }
  const at = opts.now?.() ?? new Date();
  const signature = await signMessage(message.secret, message.msgId, at, message.body);
  // The connection goes to the address that was checked, whatever the name resolves to by now.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address: target.address, family: target.family }]);
    else (callback as (e: null, a: string, f: number) => void)(null, target.address, target.family);
  };
  const remainingMs = Math.max(1, opts.timeoutMs - (Date.now() - started));
  const send = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const req = send(
      target.url,
      {
        method: "POST",
        lookup: pinned,
        headers: {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(message.body)),
          "user-agent": opts.userAgent,
          "webhook-id": message.msgId,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": signature,
        },
        agent: false,
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        // Read a little of the answer (a receiver's error message), then let the connection go.
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
          if (text.length >= RESPONSE_READ_LIMIT_BYTES) finishWith();
        });
        res.on("end", () => finishWith());
        res.on("error", () => finishWith());
        const finishWith = () => {
          if (status >= 200 && status < 300) return finish({ ok: true, statusCode: status, error: null });
          const detail = status >= 300 && status < 400 ? "redirect not followed" : oneLine(text);
          finish({ ok: false, statusCode: status, error: `HTTP ${status}${detail ? `: ${detail}` : ""}` });
        };
      },
    );
    const timer = setTimeout(() => finish({ ok: false, statusCode: null, error: `no answer within ${opts.timeoutMs} ms` }), remainingMs);
    req.on("error", (err: NodeJS.ErrnoException) => finish({ ok: false, statusCode: null, error: err.code ?? err.message }));
    req.end(message.body);
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 200);
}
