// The client's webhook helper (verifyWebhook, wrapping standardwebhooks) on real deliveries from a running `serve`:
// a genuine delivery verifies; an altered body, another secret or a rotated-away secret do not.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "../../src/index.js";
import { ROOT, startService, type ServiceHandle } from "../support/service.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

interface Raw {
  body: string;
  headers: IncomingHttpHeaders;
}

describe("verifyWebhook", () => {
  let svc: ServiceHandle;
  const raw: Raw[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      raw.push({ body, headers: req.headers });
      res.statusCode = 204;
      res.end();
    });
  });
  let url = "";
  let firstSecret = "";

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    svc = await startService({ env: { BRAIN_EMBEDDER: "lexical", BRAIN_WEBHOOK_ALLOW_PRIVATE: "1", BRAIN_WEBHOOK_POLL_MS: "100" } });
  });
  afterAll(async () => {
    await svc?.stop();
    server.closeAllConnections();
    server.close();
  });

  const next = async (count: number) => {
    const deadline = Date.now() + 20_000;
    while (raw.length < count) {
      if (Date.now() > deadline) throw new Error("no delivery arrived");
      await new Promise((r) => setTimeout(r, 50));
    }
    return raw[count - 1]!;
  };

  it("verifies a real delivery and returns its event; refuses an altered body and another secret", async () => {
    const added = await svc.adminJson(["webhook", "add", "--workspace", svc.workspaceId, "--url", url, "--events", "key.created"]);
    const secret = String(added.secret);
    firstSecret = secret;
    const key = await svc.adminJson(["key", "create", svc.workspaceId]);
    const delivery = await next(1);

    const event = await verifyWebhook(delivery.body, delivery.headers, secret);
    expect(event).toMatchObject({ type: "key.created", data: { workspace_id: svc.workspaceId, key_id: key.key_id } });
    // A fetch-style Headers object and bytes work the same.
    const headers = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)] as [string, string]));
    expect((await verifyWebhook(new TextEncoder().encode(delivery.body), headers, secret)).type).toBe("key.created");

    const altered = delivery.body.replace(`"key_id":${key.key_id}`, `"key_id":${Number(key.key_id) + 1}`);
    await expect(verifyWebhook(altered, delivery.headers, secret)).rejects.toBeInstanceOf(WebhookVerificationError);
    const other = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    await expect(verifyWebhook(delivery.body, delivery.headers, other)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(verifyWebhook(delivery.body, { ...delivery.headers, "webhook-signature": undefined }, secret)).rejects.toThrow(
      /did not verify/,
    );
  });

  it("after rotate-secret, deliveries verify with the new secret only", async () => {
    const endpoints = (await svc.adminJson(["webhook", "list"])).endpoints as { id: number }[];
    const rotated = await svc.adminJson(["webhook", "rotate-secret", endpoints[0]!.id]);
    expect(rotated.secret).toMatch(/^whsec_/);
    await svc.adminJson(["key", "create", svc.workspaceId]);
    const delivery = await next(2);
    expect((await verifyWebhook(delivery.body, delivery.headers, String(rotated.secret))).type).toBe("key.created");
    await expect(verifyWebhook(delivery.body, delivery.headers, firstSecret)).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});

describe("verifyWebhook without the standardwebhooks package", () => {
  it("names the command that installs it", async () => {
    // The built module alone, where no node_modules can be found (as after `npm install --omit=optional`).
    const dir = mkdtempSync(join(tmpdir(), "brain-no-webhooks-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    copyFileSync(join(ROOT, "dist", "client", "webhooks.js"), join(dir, "webhooks.js"));
    const script = `import(${JSON.stringify(pathToFileURL(join(dir, "webhooks.js")).href)})
      .then((m) => m.verifyWebhook("{}", {}, "whsec_AAAA")).then(() => console.log("verified?"), (e) => console.log(e.message));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8" });
    expect(out).toContain("verifying webhooks needs the package standardwebhooks; install it with: npm install standardwebhooks");
  });
});
