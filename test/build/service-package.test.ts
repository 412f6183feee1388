// `npm run pack:service` (scripts/package/service.js --pack DIR): the tarball lands where the command says, as npm
// pack's does, and not in the stage that the next run deletes (issue 29). Needs `npm run build` first.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT = path.join(ROOT, "scripts/package/service.js");
const VERSION = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version as string;
const here = mkdtempSync(path.join(os.tmpdir(), "pack-service-"));
afterAll(() => rmSync(here, { recursive: true, force: true }));

describe("packing the service package", () => {
  it("--pack . puts the tarball in the folder the command runs in and prints its whole path", () => {
    const out = execFileSync(process.execPath, [SCRIPT, "--pack", "."], { cwd: here, encoding: "utf8" });
    const printed = out.trim().split("\n").pop()!;
    expect(printed).toBe(path.join(here, `brain-mcp-service-${VERSION}.tgz`));
    expect(existsSync(printed)).toBe(true);
    expect(readdirSync(path.join(ROOT, ".tmp", "service-package")).filter((f) => f.endsWith(".tgz"))).toEqual([]);
  }, 180_000);
});
