// Billing cycles: consecutive periods anchored at the workspace's creation, as long as its `billing_cycle` says.

/** The cycle lengths the service knows; any other value counts as monthly. */
const MONTHS: Record<string, number> = { monthly: 1, quarterly: 3, yearly: 12, annual: 12, annually: 12 };
const DAYS: Record<string, number> = { daily: 1, weekly: 7 };

function addMonths(anchor: Date, months: number): number {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  // The 31st of a short month is its last day.
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(
    y,
    m,
    Math.min(anchor.getUTCDate(), lastDay),
    anchor.getUTCHours(),
    anchor.getUTCMinutes(),
    anchor.getUTCSeconds(),
    anchor.getUTCMilliseconds(),
  );
}

/** The cycle [start, end) that holds `atMs`, for a workspace created at `anchorMs` (ms). */
export function billingCycleAt(billingCycle: string, anchorMs: number, atMs: number): { start: number; end: number } {
  const days = DAYS[billingCycle];
  if (days !== undefined) {
    const length = days * 86_400_000;
    const k = Math.max(0, Math.floor((atMs - anchorMs) / length));
    return { start: anchorMs + k * length, end: anchorMs + (k + 1) * length };
  }
  const step = MONTHS[billingCycle] ?? 1;
  const anchor = new Date(anchorMs);
  let k = Math.max(0, Math.floor((atMs - anchorMs) / (step * 31 * 86_400_000)));
  while (addMonths(anchor, (k + 1) * step) <= atMs) k++;
  return { start: addMonths(anchor, k * step), end: addMonths(anchor, (k + 1) * step) };
}
