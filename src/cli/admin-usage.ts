// What the admin commands share (a usage mistake and an id read from the command line): imports nothing, so
// admin.ts and its sub-commands (memory-admin, transfer, webhook) import it and not each other.

export class UsageError extends Error {}

/** Workspace and key ids are positive integers (assigned by the store). */
export function parseId(raw: string | undefined, what: string): number {
  const id = raw !== undefined && /^[1-9][0-9]{0,14}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw new UsageError(`${what} must be a positive integer, not ${JSON.stringify(raw ?? "")}`);
  return id;
}
