// A throwaway PostgreSQL cluster for the benchmarks, as test/support/pg.ts makes one for the tests: initdb into a
// temp dir (as the `postgres` OS user when running as root), a postmaster on a free 127.0.0.1 port, trust auth on
// loopback only, durable settings (fsync and synchronous_commit on). Removed by stop() or when this process exits.
import { spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function findPgBin() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length ? join(root, majors[0], "bin") : null;
}

function serverUser() {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("running as root needs the `postgres` OS user");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

/**
 * `BENCH_PG_SLOW_MS=N BENCH_PG_LOG_DIR=dir`: the cluster logs every statement slower than N ms, with its plan
 * (auto_explain: ANALYZE, BUFFERS) and every autovacuum, to dir/postgresql.log (kept after the cluster goes).
 */
function slowStatementLog() {
  const ms = process.env.BENCH_PG_SLOW_MS;
  const dir = process.env.BENCH_PG_LOG_DIR;
  if (!ms || !dir) return [];
  mkdirSync(dir, { recursive: true });
  const user = serverUser();
  if (user) chownSync(dir, user.uid, user.gid);
  const settings = {
    logging_collector: "on",
    log_directory: dir,
    log_filename: "postgresql.log",
    log_min_duration_statement: ms,
    log_autovacuum_min_duration: "0",
    log_checkpoints: "on",
    log_lock_waits: "on",
    log_line_prefix: "%m [%p] ",
    shared_preload_libraries: "auto_explain,pg_stat_statements",
    "auto_explain.log_min_duration": ms,
    "auto_explain.log_analyze": "on",
    "auto_explain.log_buffers": "on",
    "auto_explain.log_nested_statements": "on",
  };
  return Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`]);
}

/** Starts a cluster with one database `brain`; returns { url, version, stop }. */
export async function startPostgres({ sharedBuffers = "256MB" } = {}) {
  const bin = findPgBin();
  if (!bin) throw new Error("PostgreSQL server binaries not found: apt-get install -y postgresql");
  const user = serverUser();
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const dir = mkdtempSync(join(tmpdir(), "brain-bench-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const env = { ...process.env, LC_ALL: "C", LANG: "C", TZ: "UTC" };
  const init = spawnSync(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"], {
    ...as,
    env,
    cwd: dir,
    encoding: "utf8",
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  writeFileSync(join(data, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\n");
  if (user) chownSync(join(data, "pg_hba.conf"), user.uid, user.gid);
  const port = await freePort();
  const child = spawn(
    join(bin, "postgres"),
    [
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=on",
      "-c",
      "synchronous_commit=on",
      "-c",
      "max_connections=200",
      "-c",
      `shared_buffers=${sharedBuffers}`,
      "-c",
      "log_min_messages=warning",
      "-c",
      "TimeZone=UTC",
      ...slowStatementLog(),
    ],
    { ...as, env, cwd: dir, detached: true, stdio: "ignore" },
  );
  const kill = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      /* gone */
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", kill);
  const psql = (sql, db = "postgres") =>
    spawnSync(join(bin, "psql"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", db, "-qAt", "-c", sql], {
      env,
      encoding: "utf8",
    });
  const deadline = Date.now() + 30_000;
  while (spawnSync(join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port), "-t", "1"], { env }).status !== 0) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("postgres did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  const created = psql("CREATE DATABASE brain");
  if (created.status !== 0) throw new Error(`CREATE DATABASE failed: ${created.stderr}`);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/brain`,
    /** The postmaster's pid (its backends are its children). */
    pid: child.pid,
    version: psql("SHOW server_version").stdout.trim(),
    async stop() {
      process.off("exit", kill);
      const exited = new Promise((r) => child.once("exit", r));
      try {
        process.kill(child.pid, "SIGINT"); // fast shutdown
      } catch {
        /* gone */
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      kill();
    },
  };
}
