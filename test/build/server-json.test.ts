// server.json (the official MCP Registry's entry) names this package at this version, over stdio, with the settings
// the adapter reads; .ci/mcp-registry.sh checks it against the registry's schema with skillsaw.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const server = JSON.parse(readFileSync(join(ROOT, "server.json"), "utf8"));

describe("server.json", () => {
  it("is this npm package at this version, run over stdio, and package.json's mcpName is its name", () => {
    expect(pkg.mcpName).toBe(server.name);
    expect(server.version).toBe(pkg.version);
    expect(server.$schema).toMatch(/^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d\d-\d\d\/server\.schema\.json$/);
    expect(server.packages).toHaveLength(1);
    expect(server.packages[0]).toMatchObject({
      registryType: "npm",
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: "stdio" },
    });
  });

  it("asks for BRAIN_API_KEY as a required secret and offers BRAIN_BASE_URL with the adapter's default", async () => {
    const { DEFAULT_BASE_URL } = await import("../../src/contract/limits.js");
    const vars = Object.fromEntries(server.packages[0].environmentVariables.map((v: { name: string }) => [v.name, v]));
    expect(Object.keys(vars).sort()).toEqual(["BRAIN_API_KEY", "BRAIN_BASE_URL"]);
    expect(vars.BRAIN_API_KEY).toMatchObject({ isRequired: true, isSecret: true });
    expect(vars.BRAIN_BASE_URL).toMatchObject({ isRequired: false, isSecret: false, default: DEFAULT_BASE_URL });
  });
});
