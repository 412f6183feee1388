// The four operations with --embedded: a local service and key for a person at a terminal, in a store of its own
// (not `serve`'s brain.db), in data folders only the user can read.
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { BIN, isolatedEnv, tempDir } from "../mcp/harness.js";

// The model loads in each process: seconds on a loaded 2-core machine.
const SLOW = 240_000;

function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

it(
  "remember and recall --embedded (either spelling) reach one local store, embedded.db in a 0700 data folder, with no key set",
  async () => {
    const env = isolatedEnv({ BRAIN_CONFIG: undefined, BRAIN_API_KEY: undefined });
    env.XDG_DATA_HOME = join(env.HOME!, "data-home", "nested");
    const remembered = await cli(["remember", "The staging database is called heron-7.", "--embedded"], env);
    expect(remembered.stderr).toBe("");
    expect(remembered.code, remembered.stderr).toBe(0);
    expect(remembered.stdout).toMatch(/^Remembered as new memory \d+\./);

    const recalled = await cli(["--embedded", "recall", "what is the staging database called?", "--json"], env);
    expect(recalled.code, recalled.stderr).toBe(0);
    expect(JSON.parse(recalled.stdout).memories[0].text).toBe("The staging database is called heron-7.");

    const data = join(env.XDG_DATA_HOME, "brain");
    expect(existsSync(join(data, "embedded.db"))).toBe(true);
    expect(existsSync(join(data, "brain.db"))).toBe(false);
    for (const dir of [data, join(env.HOME!, "data-home", "nested")]) expect(statSync(dir).mode & 0o777).toBe(0o700);
  },
  SLOW,
);

it(
  "a BRAIN_DB in a folder that does not exist yet is made 0700",
  async () => {
    const dir = join(tempDir(), "a", "b");
    const env = isolatedEnv({ BRAIN_DB: join(dir, "mine.db") });
    const run = await cli(["status", "--embedded", "--json"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).workspace_status).toBe("active");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "..")).mode & 0o777).toBe(0o700);
  },
  SLOW,
);
