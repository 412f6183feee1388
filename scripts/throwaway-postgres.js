// Starts a throwaway PostgreSQL cluster (test/bench/pg.js: temp dir, 127.0.0.1, trust on loopback, fsync on), prints
// its URL on one line, and removes it on SIGTERM or SIGINT, or when the process that started it is gone.
//   node scripts/throwaway-postgres.js [WATCH_PID]      (used by scripts/fuzz-api.sh)
import { startPostgres } from "../test/bench/pg.js";

const watched = Number(process.argv[2] ?? process.ppid);
const pg = await startPostgres({ sharedBuffers: "64MB" });
process.stdout.write(`${pg.url}\n`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await pg.stop();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// A parent killed with SIGKILL cannot clean up; this cluster then removes itself.
setInterval(() => {
  try {
    process.kill(watched, 0);
  } catch {
    void stop();
  }
}, 2000);
