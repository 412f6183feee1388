// A real webhook receiver for tests: an HTTP server on 127.0.0.1 that verifies every delivery with the Standard
// Webhooks reference library (`standardwebhooks` on npm) and records what came, and how it answered.
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface ReceivedMessage {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, any>;
  /** The whole JSON body. */
  body: Record<string, unknown>;
  path: string;
  headers: IncomingHttpHeaders;
  /** The signature verifies with one of the secrets given to `setSecret` (checked when read, so a secret given
   * after the delivery arrived counts). */
  readonly verified: boolean;
}

export interface Receiver {
  url: string;
  /** Every request, in arrival order (also those answered with an error). */
  received: ReceivedMessage[];
  /** An endpoint's secret, once `admin webhook add` has printed it (every secret given is kept). */
  setSecret(secret: string): void;
  /** How to answer: a status (and Location) for each request; default 204. */
  respond(answer: (message: ReceivedMessage, index: number) => { status: number; location?: string; delayMs?: number }): void;
  waitFor(predicate: (messages: ReceivedMessage[]) => boolean, timeoutMs?: number): Promise<ReceivedMessage[]>;
  close(): Promise<void>;
}

/** With `tls`, the receiver serves HTTPS with that certificate (its URL then names `localhost`). */
export async function startReceiver(opts: { tls?: { cert: Buffer; key: Buffer } } = {}): Promise<Receiver> {
  const secrets: string[] = [];
  let answer: (m: ReceivedMessage, i: number) => { status: number; location?: string; delayMs?: number } = () => ({ status: 204 });
  const received: ReceivedMessage[] = [];
  const listener: RequestListener = (req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const headers = req.headers as Record<string, string>;
      const verifies = (secret: string) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      };
      let parsed: { type?: string; timestamp?: string; data?: Record<string, unknown> } & Record<string, unknown> = {};
      try {
        parsed = JSON.parse(body);
      } catch {}
      const message: ReceivedMessage = {
        id: String(req.headers["webhook-id"] ?? ""),
        type: String(parsed.type ?? ""),
        timestamp: String(parsed.timestamp ?? ""),
        data: parsed.data ?? {},
        body: parsed,
        path: req.url ?? "",
        headers: req.headers,
        get verified() {
          return secrets.some(verifies);
        },
      };
      received.push(message);
      const { status, location, delayMs } = answer(message, received.length - 1);
      const reply = () => {
        if (location) res.setHeader("location", location);
        res.statusCode = status;
        res.end(status >= 400 ? "receiver says no" : "");
      };
      if (delayMs) setTimeout(reply, delayMs);
      else reply();
    });
  };
  const server: Server = opts.tls ? createHttpsServer(opts.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: opts.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    received,
    setSecret: (s) => void secrets.push(s),
    respond: (fn) => (answer = fn),
    async waitFor(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) {
          throw new Error(
            `the receiver did not get what was expected in ${timeoutMs} ms; got: ${JSON.stringify(received.map((m) => m.type))}`,
          );
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return received;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
