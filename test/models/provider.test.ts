import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModels } from "../../src/service/models/index.js";
import { createProviderEmbedder, EmbeddingsProviderError } from "../../src/service/models/embed/provider.js";

const KEY = "sk-test-secret-0123456789";

/** A scripted OpenAI-compatible endpoint: each test sets what it answers. */
let answer: (req: IncomingMessage, body: any, res: ServerResponse) => void;
let server: Server;
let baseUrl: string;
const seen: { auth?: string; body?: any }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = raw ? JSON.parse(raw) : null;
      seen.push({ auth: req.headers.authorization, body });
      answer(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Vectors of 3 dimensions, deliberately not unit length, in reversed order with explicit indices. */
const good = (_req: IncomingMessage, body: any, res: ServerResponse) => {
  const data = (body.input as string[]).map((text, index) => ({ object: "embedding", index, embedding: [text.length, 1, 2] })).reverse();
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data, model: body.model }));
};
const failing = (_req: IncomingMessage, _body: any, res: ServerResponse) => {
  res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "boom" } }));
};
const silent = () => {};

const env = () => ({ BRAIN_EMBEDDINGS_URL: baseUrl, BRAIN_EMBEDDINGS_MODEL: "nomic-embed-text", BRAIN_EMBEDDINGS_API_KEY: KEY });

describe("the OpenAI-compatible embeddings provider", () => {
  it("a good answer gives unit vectors in input order, and the id names the provider's model", async () => {
    answer = good;
    const embedder = createProviderEmbedder(env())!;
    await embedder.load();
    const [a, b] = await embedder.embed(["ab", "abcd"], "document");
    expect(embedder.id).toBe("provider:nomic-embed-text/3");
    expect(embedder.dimensions).toBe(3);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
    expect(a![0]! / a![1]!).toBeCloseTo(2, 4);
    expect(b![0]! / b![1]!).toBeCloseTo(4, 4);
    const last = seen.at(-1)!;
    expect(last.auth).toBe(`Bearer ${KEY}`);
    expect(last.body).toEqual({ model: "nomic-embed-text", input: ["ab", "abcd"] });
  });

  it("no BRAIN_EMBEDDINGS_URL means no provider", () => {
    expect(createProviderEmbedder({})).toBeNull();
  });

  it("a provider that fails at start leaves the whole process on the offline model, with its own id", async () => {
    answer = failing;
    const warnings: string[] = [];
    const models = await loadModels({ ...env(), BRAIN_EMBEDDER: "lexical" }, { warn: (m) => warnings.push(m) });
    expect(models.embedder.id).toMatch(/^lexical-hash\//);
    expect(warnings.join("\n")).toMatch(/embeddings provider unavailable at start \(.*HTTP 500/);
    expect(warnings.join("\n")).not.toContain(KEY);
    const [v] = await models.embedder.embed(["still works offline"], "document");
    expect(v!.length).toBe(models.embedder.dimensions);
  });

  it("a provider that answers at start is the process's embedder", async () => {
    answer = good;
    const models = await loadModels({ ...env(), BRAIN_EMBEDDER: "lexical" }, { warn: () => {} });
    expect(models.embedder.id).toBe("provider:nomic-embed-text/3");
  });

  it("a 500 after start refuses the call as unavailable (503), never mixing in another model's vectors", async () => {
    answer = good;
    const embedder = createProviderEmbedder(env())!;
    await embedder.load();
    answer = failing;
    const error = await embedder.embed(["a memory"], "document").catch((e) => e);
    expect(error).toBeInstanceOf(EmbeddingsProviderError);
    expect(error.code).toBe("store_unavailable");
    expect(error.message).toMatch(/HTTP 500/);
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain("a memory");
  });

  it("a provider that does not answer in time is abandoned at the timeout", async () => {
    answer = silent;
    const embedder = createProviderEmbedder(env(), { timeoutMs: 200 })!;
    const started = Date.now();
    const error = await embedder.load().catch((e) => e);
    expect(error).toBeInstanceOf(EmbeddingsProviderError);
    expect(error.message).toMatch(/no answer within 200 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("an answer with the wrong number of vectors or a changed dimension is refused", async () => {
    answer = good;
    const embedder = createProviderEmbedder(env())!;
    await embedder.load();
    answer = (_req, _body, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [] }));
    await expect(embedder.embed(["one"], "query")).rejects.toThrow(/wrong number of vectors/);
    answer = (_req, body, res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ data: body.input.map((_: string, index: number) => ({ index, embedding: [1, 2] })) }));
    await expect(embedder.embed(["one"], "query")).rejects.toThrow(/2 dimensions, expected 3/);
  });
});
