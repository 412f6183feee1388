// A SQLite store whose file is deleted (or replaced) under a running process keeps working on the open file, which
// no other process and no restart will ever see again: every write after that is lost. So the store remembers which
// file it opened (device and inode) and, before each write and each health probe, checks that the path still names
// it; when it does not, writes are refused with 503 and health reports unhealthy until the service is restarted.
import { statSync } from "node:fs";
import { ServiceError } from "../../types.js";

export interface StoreFileGuard {
  /** True while the path still names the file the store opened. */
  attached(): boolean;
  /** Throws store_unavailable when the file was deleted or replaced. */
  requireAttached(): void;
}

function identity(path: string): string | null {
  try {
    const s = statSync(path);
    return `${s.dev}:${s.ino}`;
  } catch {
    return null;
  }
}

export function guardStoreFile(path: string): StoreFileGuard {
  if (path === ":memory:") return { attached: () => true, requireAttached: () => undefined };
  const opened = identity(path);
  const attached = () => opened !== null && identity(path) === opened;
  return {
    attached,
    requireAttached() {
      if (attached()) return;
      throw new ServiceError(
        "store_unavailable",
        "The memory store's file was deleted or replaced while the service was running, so nothing more can be " +
          "written to it; the operator must restore the file and restart the service.",
      );
    },
  };
}
