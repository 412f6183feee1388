// A workspace's billable usage (writes and reads, as the service records them) per UTC day and per billing cycle.
// Cycles start on the UTC day the workspace was created and repeat every month ("monthly", the default) or every
// twelve months ("annual"/"yearly"); a billing_cycle the service does not know is counted monthly.
import type { UsageDay } from "../store/types.js";
import { DAY_MS } from "../time.js";

export interface BillingCycleUsage {
  /** UTC midnight that starts the cycle, and the one that ends it (exclusive), as ms since the epoch. */
  start: number;
  end: number;
  write: number;
  read: number;
}

export interface UsageReport {
  billing_cycle: string;
  days: UsageDay[];
  /** Oldest first; the last one is the cycle under way. */
  cycles: BillingCycleUsage[];
}

const MONTHS_PER_CYCLE: Record<string, number> = { monthly: 1, annual: 12, yearly: 12 };

/** `anchor` moved on by `months` calendar months, its day of month kept (or the month's last day, for the 31st). */
function addMonths(anchor: number, months: number): number {
  const a = new Date(anchor);
  const target = Date.UTC(a.getUTCFullYear(), a.getUTCMonth() + months, 1);
  const t = new Date(target);
  const lastDay = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 0)).getUTCDate();
  return Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), Math.min(a.getUTCDate(), lastDay));
}

export function usageReport(createdAtMs: number, billingCycle: string, days: readonly UsageDay[], nowMs: number): UsageReport {
  const months = MONTHS_PER_CYCLE[billingCycle] ?? 1;
  const anchor = Math.floor(createdAtMs / DAY_MS) * DAY_MS;
  const cycles: BillingCycleUsage[] = [];
  for (let k = 0; ; k++) {
    const start = addMonths(anchor, k * months);
    if (start > nowMs) break;
    const end = addMonths(anchor, (k + 1) * months);
    const inCycle = days.filter((d) => d.day >= start && d.day < end);
    cycles.push({
      start,
      end,
      write: inCycle.reduce((n, d) => n + d.write, 0),
      read: inCycle.reduce((n, d) => n + d.read, 0),
    });
  }
  return { billing_cycle: billingCycle, days: [...days], cycles };
}
