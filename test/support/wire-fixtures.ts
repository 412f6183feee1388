// The golden wire fixtures (test/fixtures/wire/, shaped as SPEC.md's tables), listed and played by a real HTTP
// server. Tests enumerate the directory, so a fixture added later is tested without touching them.
import { readdirSync, readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { ROOT } from "./service.js";

export const WIRE_FIXTURES = join(ROOT, "test", "fixtures", "wire");

export interface WireFixture {
  /** `minimal/store.json` */
  name: string;
  kind: "minimal" | "extended" | "errors";
  /** What the file answers: store, retrieve, health or status (from its name); undefined for errors. */
  operation?: "store" | "retrieve" | "health" | "status";
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export function wireFixtures(kind: WireFixture["kind"]): WireFixture[] {
  return readdirSync(join(WIRE_FIXTURES, kind))
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => {
      const data = JSON.parse(readFileSync(join(WIRE_FIXTURES, kind, file), "utf8")) as Omit<WireFixture, "name" | "kind">;
      const operation = (["store", "retrieve", "health", "status"] as const).find((op) => file.startsWith(op));
      return { name: `${kind}/${file}`, kind, operation: kind === "errors" ? undefined : operation, ...data };
    });
}

/** Sends a fixture as the answer: a string body as it is, anything else as JSON. */
export function playFixture(res: ServerResponse, fixture: WireFixture): void {
  res.writeHead(fixture.status, fixture.headers);
  res.end(typeof fixture.body === "string" ? fixture.body : JSON.stringify(fixture.body));
}

/** Every path to a field of a JSON object (arrays: their first element), for "remove one field" tests. */
export function fieldPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.length ? fieldPaths(value[0], [...prefix, 0]) : [];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...fieldPaths(child, [...prefix, key])]);
}

/** A deep copy of `value` without the field at `path`. */
export function withoutField(value: unknown, path: (string | number)[]): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  delete parent[path[path.length - 1]!];
  return copy;
}
