#!/usr/bin/env node
// What can be tested of the container image on a machine that cannot build or run one (see docs/decisions.md: no
// registry for base images, and podman's runtimes cannot start a container in this sandbox): the Dockerfile's CMD
// and HEALTHCHECK, read from the Dockerfile itself, run as a non-root user over the service package installed
// as its INSTALL step installs it, against a throwaway PostgreSQL as compose.yaml runs it (SQLite without initdb).
// Usage: node scripts/container/check.js <a project where both tarballs are installed>
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const installed = process.argv[2];
const fail = (message) => {
  console.error(`container check: FAIL: ${message}`);
  process.exitCode = 1;
  throw new Error(message);
};
const say = (message) => console.log(`container check: ${message}`);

const dockerfile = readFileSync(join(here, "Dockerfile"), "utf8");
const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? fail("the Dockerfile has no CMD array"));
const health = JSON.parse(/^HEALTHCHECK .*CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? fail("the Dockerfile has no HEALTHCHECK CMD array"));
const env = Object.fromEntries([...(/^ENV (.*)$/m.exec(dockerfile)?.[1] ?? "").matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
if (!/^USER node$/m.test(dockerfile)) fail("the image does not run as the non-root user node");

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(String(port)));
    });
  });

// the image's layout: /opt/brain (the installed project, readable by all) and /data (0700, the user's)
const root = mkdtempSync(join(tmpdir(), "brain-container-"));
chmodSync(root, 0o755);
const app = join(root, "opt", "brain");
cpSync(installed, app, { recursive: true });
const data = join(root, "data");
mkdirSync(data, { mode: 0o700 });
const nobody = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }));
const nogroup = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }));
chownSync(data, nobody, nogroup);
chmodSync(join(root, "opt"), 0o755);

let postgres;
let serve;
try {
  const port = await freePort();
  const runEnv = { PATH: process.env.PATH, HOME: data, ...env, BRAIN_DB: env.BRAIN_DB.replace(/^\/data/, data) };
  if (spawnSync("sh", ["-c", "ls /usr/lib/postgresql/*/bin/initdb"]).status === 0) {
    postgres = spawn(process.execPath, [join(here, "..", "throwaway-postgres.js"), String(process.pid)], { stdio: ["ignore", "pipe", "inherit"] });
    runEnv.BRAIN_DATABASE_URL = await new Promise((resolve) => postgres.stdout.once("data", (c) => resolve(String(c).trim())));
    say("store: a throwaway PostgreSQL, as compose.yaml runs it");
  } else say("store: SQLite on the data volume (no PostgreSQL server binaries here)");
  // as the non-root user, as USER node does
  const command = cmd.map((part) => (part === "8787" ? port : part));
  serve = spawn("setpriv", [`--reuid=${nobody}`, `--regid=${nogroup}`, "--clear-groups", "--", ...command], { cwd: app, env: runEnv, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  serve.stdout.on("data", (c) => (log += c));
  serve.stderr.on("data", (c) => (log += c));
  const started = Date.now();
  while (!/listening on/.test(log)) {
    if (serve.exitCode !== null) fail(`the CMD exited ${serve.exitCode}: ${log}`);
    if (Date.now() - started > 240_000) fail(`the CMD did not listen within 240 s: ${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  say(`CMD (${command.join(" ")}) as uid ${nobody}: ${/listening on \S+/.exec(log)[0]}`);
  const owner = execFileSync("ps", ["-o", "uid=", "-p", String(serve.pid)], { encoding: "utf8" }).trim();
  const [probe, ...probeArgs] = health.map((part) => part.replace("8787", port));
  // the image allows 5 s; a CI machine under load needs longer to start node itself
  const checked = spawnSync(probe, probeArgs, { env: runEnv, encoding: "utf8", timeout: 30_000 });
  if (checked.status !== 0) fail(`the HEALTHCHECK failed (${checked.status}): ${checked.stderr}`);
  say(`HEALTHCHECK passes against the running service (process uid ${owner || "gone"})`);
  if (/svc_ws_/.test(log) === false) fail("the first start over an empty store did not print a workspace key");
  say("ok");
} finally {
  serve?.kill();
  postgres?.kill();
  await new Promise((r) => setTimeout(r, 1000));
  rmSync(root, { recursive: true, force: true });
}
