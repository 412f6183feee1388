// A throwaway PostgreSQL cluster for tests: initdb into a temp dir, a postmaster on a free 127.0.0.1 port with its
// unix socket in that dir, trust auth on loopback only, fsync on (tests prove durability). Removed afterwards, and a
// watchdog removes it too when the test process dies without cleaning up.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PgCluster {
  /** Connection string of the cluster's test database (`brain`). */
  url: string;
  /** The cluster's data directory (tests that read its files: test/postgres/erase.test.ts). */
  dataDir: string;
  /** Connection string of a fresh, empty database in the same cluster, e.g. one per service under test. */
  createDatabase(name?: string): Promise<string>;
  /** Fast shutdown (connections are cut), then start again on the same port with the same data. */
  restart(opts?: { downMs?: number }): Promise<void>;
  /** SIGKILL the postmaster and every backend (a crash); data stays, `start()` runs crash recovery. */
  kill(): Promise<void>;
  /** Fast shutdown, keeping the data; `start()` brings it back. */
  halt(): Promise<void>;
  /** Starts a halted or killed cluster again on the same port. */
  start(): Promise<void>;
  /** SIGSTOP the postmaster and every backend (a hung host: sockets stay open, nothing answers). */
  freeze(): Promise<void>;
  /** SIGCONT after freeze(). */
  thaw(): Promise<void>;
  /** Shuts down and removes the cluster. Idempotent. */
  stop(): Promise<void>;
}

const DB_NAME = "brain";

/** The newest installed server binaries (Debian puts them in /usr/lib/postgresql/<major>/bin). */
export function findPgBin(): string | null {
  const fromEnv = process.env.BRAIN_TEST_PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length > 0 ? join(root, majors[0]!, "bin") : null;
}

/**
 * Whether the PostgreSQL tests should run: when server binaries are installed, and always under CI (where a missing
 * install must fail loudly, not skip). Elsewhere they skip: `apt-get install postgresql` enables them.
 */
let skipNoted = false;
export function canStartPostgres(): boolean {
  if (findPgBin() !== null || process.env.CI) return true;
  if (!skipNoted) {
    skipNoted = true;
    process.stderr.write("PostgreSQL tests skipped: initdb not found (apt-get install postgresql enables them)\n");
  }
  return false;
}

/** initdb refuses root, so as root the cluster runs as the `postgres` OS user. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("running as root needs the `postgres` OS user (apt-get install postgresql)");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startPostgres(): Promise<PgCluster> {
  const bin = findPgBin();
  if (!bin) throw new Error("PostgreSQL server binaries not found: apt-get install -y postgresql");
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "brain-pg-"));
  const data = join(dir, "data");
  if (user) chownSync(dir, user.uid, user.gid);
  const asServer = user ? { uid: user.uid, gid: user.gid } : {};
  const env = { ...process.env, LC_ALL: "C", LANG: "C", TZ: "UTC" };

  // The watchdog outlives a crashed test process and removes the cluster it left behind.
  const watchdog = spawn(
    "sh",
    [
      "-c",
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
        `if [ -f "${dir}/pgid" ]; then kill -9 -"$(cat "${dir}/pgid")" 2>/dev/null; fi; sleep 0.2; rm -rf "${dir}"`,
    ],
    { detached: true, stdio: "ignore" },
  );
  watchdog.unref();

  const init = spawnSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
    { ...asServer, env, cwd: dir, encoding: "utf8" },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
  }
  // Loopback only: trust for 127.0.0.1/::1 and the private socket, nothing else.
  writeFileSync(join(data, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n");
  if (user) chownSync(join(data, "pg_hba.conf"), user.uid, user.gid);

  let port = await freePort();
  let server: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let log = "";
  let removed = false;
  let started = false; // after the first start the port is part of the URL and never changes

  const launch = async (): Promise<void> => {
    for (let attempt = 0; attempt < 3; attempt++) {
      log = "";
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
          // After a crash, one syncfs() instead of an fsync per file: seconds faster, just as durable.
          "-c",
          "recovery_init_sync_method=syncfs",
          "-c",
          "max_connections=200",
          "-c",
          "shared_buffers=32MB",
          "-c",
          "log_min_messages=warning",
          "-c",
          "TimeZone=UTC",
        ],
        { ...asServer, env, cwd: dir, detached: true, stdio: ["ignore", "pipe", "pipe"] },
      );
      server = child;
      child.stdout!.on("data", (b: Buffer) => (log += b.toString()));
      child.stderr!.on("data", (b: Buffer) => (log += b.toString()));
      exited = new Promise((resolve) => child.once("exit", () => resolve()));
      writeFileSync(join(dir, "pgid"), String(child.pid));
      child.unref();
      (child.stdout as unknown as { unref?: () => void }).unref?.();
      (child.stderr as unknown as { unref?: () => void }).unref?.();
      if (await ready(child)) {
        started = true;
        return;
      }
      if (!started && /could not bind|Address already in use/i.test(log)) {
        port = await freePort();
        continue;
      }
      throw new Error(`postgres did not start: ${log.slice(-2000)}`);
    }
    throw new Error(`postgres could not find a free port: ${log.slice(-2000)}`);
  };

  const ready = async (child: ChildProcess): Promise<boolean> => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) return false;
      const probe = spawnSync(join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-t", "1"], {
        env,
        encoding: "utf8",
      });
      if (probe.status === 0) return true;
      await sleep(50);
    }
    return false;
  };

  const psql = (sql: string, db = "postgres"): void => {
    const r = spawnSync(
      join(bin, "psql"),
      ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", db, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql],
      { env, encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(`psql failed: ${r.stderr}`);
  };

  // Backends are their own process groups (PostgreSQL calls setsid() in each), so each is signalled by its pid: the
  // postmaster first, so it forks no new backend meanwhile, then every process it started.
  let frozen: number[] = [];
  const childrenOf = (ppid: number): number[] =>
    readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === ppid;
        } catch {
          return false; // gone meanwhile
        }
      })
      .map(Number);
  const freeze = async (): Promise<void> => {
    const child = server;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    process.kill(child.pid!, "SIGSTOP");
    frozen = [child.pid!, ...childrenOf(child.pid!)];
    for (const pid of frozen.slice(1)) process.kill(pid, "SIGSTOP");
  };
  const thaw = async (): Promise<void> => {
    for (const pid of frozen.reverse()) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        /* gone */
      }
    }
    frozen = [];
  };

  const halt = async (): Promise<void> => {
    await thaw();
    const child = server;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGINT"); // fast shutdown: cuts connections, writes a checkpoint
    await exited;
    server = null;
  };

  const kill = async (): Promise<void> => {
    await thaw();
    const child = server;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, "SIGKILL"); // the postmaster leads its group: backends die with it
    } catch {
      child.kill("SIGKILL");
    }
    await exited;
    server = null;
    await sleep(100); // let the orphaned backends go before shared memory is reused
  };

  const stop = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    process.off("exit", onExit);
    await halt().catch(() => kill());
    rmSync(dir, { recursive: true, force: true });
    try {
      process.kill(watchdog.pid!, "SIGKILL");
    } catch {
      /* already gone */
    }
  };

  // A test process that exits without stop() still takes its cluster down.
  const onExit = (): void => {
    try {
      if (server?.pid) process.kill(-server.pid, "SIGKILL");
    } catch {
      /* already gone */
    }
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      /* the watchdog will */
    }
  };
  process.on("exit", onExit);

  try {
    await launch();
    psql(`CREATE DATABASE ${DB_NAME}`);
  } catch (err) {
    await stop();
    throw err;
  }

  // Lifecycle calls run one at a time: a stop() issued while a restart is under way waits for it.
  let queue: Promise<unknown> = Promise.resolve();
  const serial =
    <A extends unknown[]>(f: (...args: A) => Promise<void>) =>
    (...args: A): Promise<void> => {
      const run = queue.then(() => f(...args));
      queue = run.catch(() => undefined);
      return run;
    };

  let dbCount = 0;
  const urlFor = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;

  return {
    get url() {
      return urlFor(DB_NAME);
    },
    dataDir: data,
    async createDatabase(name) {
      const db = name ?? `brain_${process.pid}_${++dbCount}`;
      if (!/^[a-z_][a-z0-9_]*$/.test(db)) throw new Error(`bad database name ${db}`);
      psql(`CREATE DATABASE ${db}`);
      return urlFor(db);
    },
    restart: serial(async (opts?: { downMs?: number }) => {
      await halt();
      if (opts?.downMs) await sleep(opts.downMs);
      await launch();
    }),
    kill: serial(kill),
    halt: serial(halt),
    start: serial(async () => {
      if (!server) await launch();
    }),
    stop: serial(stop),
    freeze: serial(freeze),
    thaw: serial(thaw),
  };
}
