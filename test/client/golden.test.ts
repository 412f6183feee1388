// The client against a server that answers exactly as SPEC.md's tables (test/fixtures/wire/): it needs nothing the
// specification does not promise, keeps every field it does not know, reads unknown enumeration values as strings,
// and maps every error answer by its status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  Brain,
  BrainError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServiceUnavailableError,
  ValidationError,
} from "../../src/index.js";
import { fieldPaths, playFixture, withoutField, wireFixtures, type WireFixture } from "../support/wire-fixtures.js";
import { json, KEY, startServer, type ScriptedServer } from "./scripted-server.js";

let server: ScriptedServer;
let brain: Brain;

beforeAll(async () => {
  server = await startServer();
  brain = new Brain({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
});
afterAll(async () => {
  await brain.close();
  await server.close();
});

function call(operation: NonNullable<WireFixture["operation"]>): Promise<unknown> {
  switch (operation) {
    case "store":
      return brain.memory.store("The staging deploy runs every Friday at 4pm.");
    case "retrieve":
      return brain.memory.retrieve("when does staging deploy?");
    case "health":
      return brain.optimize.health();
    case "status":
      return brain.status();
  }
}

const answers = [...wireFixtures("minimal"), ...wireFixtures("extended")];

describe.each(answers)("$name", (fixture) => {
  it("is read whole: every field kept with its value, unknown enumeration values as plain strings", async () => {
    server.script((_req, res) => playFixture(res, fixture));
    expect(await call(fixture.operation!)).toEqual(fixture.body);
  });
});

describe.each(wireFixtures("minimal"))("$name without one of its fields", (fixture) => {
  // Every field of a minimal fixture is one the specification promises, so each is required.
  it.each(fieldPaths(fixture.body).map((path) => [path.join("."), path] as const))(
    "lacking %s is an invalid response naming the field",
    async (name, path) => {
      server.script((_req, res) => json(res, fixture.status, withoutField(fixture.body, path)));
      const error = (await call(fixture.operation!).catch((e: unknown) => e)) as BrainError;
      expect(error).toBeInstanceOf(BrainError);
      expect(error.code).toBe("invalid_response");
      expect(error.message).toContain(String(path[path.length - 1]));
      void name;
    },
  );
});

const ERROR_CLASS: Record<number, typeof BrainError> = {
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  422: ValidationError,
  429: RateLimitError,
  503: ServiceUnavailableError,
};

describe.each(wireFixtures("errors"))("$name", (fixture) => {
  it("maps by its status to one error class, with the request id and code when the body has them", async () => {
    server.script((_req, res) => playFixture(res, fixture));
    const error = (await brain.status().catch((e: unknown) => e)) as BrainError;
    expect(error).toBeInstanceOf(ERROR_CLASS[fixture.status] ?? BrainError);
    expect(error.statusCode).toBe(fixture.status);
    const said = (fixture.body as { error?: { code?: string; request_id?: string } }).error;
    expect(error.code ?? undefined).toBe(said?.code);
    expect(error.requestId ?? undefined).toBe(fixture.headers["x-request-id"] ?? said?.request_id);
    if (fixture.status === 429) expect((error as RateLimitError).retryAfter).toBe(Number(fixture.headers["retry-after"]));
    expect(error.message).not.toContain(KEY);
  });
});
