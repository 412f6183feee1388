// Timestamps on the wire: ISO 8601 UTC, second precision, `Z` (DESIGN.md "timestamps").

export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

export const DAY_MS = 24 * 60 * 60 * 1000;
