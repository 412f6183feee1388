// `serve` on PostgreSQL waits for the database at start (a compose file starts both at once; a database restarts
// slower than its clients), retrying with backoff for a bounded time and saying so, then gives up with exit 1.
import { ServiceError } from "../service/types.js";

/** How long `serve` waits for PostgreSQL at start, in seconds (`BRAIN_DB_WAIT_SECONDS`; 0 gives up at once). */
export const DB_WAIT_SECONDS_DEFAULT = 60;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;

export function dbWaitSeconds(env: NodeJS.ProcessEnv): number {
  const raw = env.BRAIN_DB_WAIT_SECONDS;
  const n = raw === undefined || raw.trim() === "" ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : DB_WAIT_SECONDS_DEFAULT;
}

const isUnreachable = (err: unknown) => err instanceof ServiceError && err.code === "store_unavailable";

/** Runs `open` until it succeeds, or until `waitSeconds` pass while the store is unreachable; other errors end it. */
export async function openWaitingForStore<T>(
  open: () => Promise<T>,
  waitSeconds: number,
  what: string,
  say: (line: string) => void,
): Promise<T> {
  const deadline = Date.now() + waitSeconds * 1000;
  let delay = FIRST_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (err) {
      const left = deadline - Date.now();
      if (!isUnreachable(err)) throw err;
      if (left <= 0) {
        const waited = waitSeconds > 0 ? ` after waiting ${waitSeconds} s (${attempt} attempts; BRAIN_DB_WAIT_SECONDS sets how long)` : "";
        throw new Error(`${what} is unreachable${waited}; start it, or check the database URL, and run serve again`, {
          cause: err,
        });
      }
      const pause = Math.min(delay, left);
      if (attempt === 1) say(`${what} is unreachable; waiting up to ${waitSeconds} s for it (BRAIN_DB_WAIT_SECONDS)`);
      else say(`${what} is still unreachable; retrying in ${(pause / 1000).toFixed(1)} s`);
      await new Promise((resolve) => setTimeout(resolve, pause));
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }
}
