// A workspace's billable usage (writes and reads, as the service records them) per UTC day and per billing cycle.
// Cycles are the billing webhooks' own (../webhooks/cycle.ts: anchored at the workspace's creation, as long as its
// billing_cycle says), counted over the same [start, end) bounds, so the dashboard and the webhooks agree.
import type { MemoryStore, UsageDay } from "../store/types.js";
import { billingCycleAt } from "../webhooks/cycle.js";

/** Billing cycles shown, the current one and those before it. */
export const CYCLES_SHOWN = 12;

export interface BillingCycleUsage {
  /** The cycle's bounds, [start, end), as ms since the epoch. */
  start: number;
  end: number;
  write: number;
  read: number;
}

export interface UsageReport {
  billing_cycle: string;
  days: UsageDay[];
  /** Oldest first, at most CYCLES_SHOWN; the last one is the cycle under way. */
  cycles: BillingCycleUsage[];
}

export async function usageReport(
  store: MemoryStore,
  workspace: { id: number; billing_cycle: string; created_at: string },
  nowMs: number,
): Promise<UsageReport> {
  const created = Date.parse(workspace.created_at);
  const bounds: { start: number; end: number }[] = [];
  for (let at = nowMs; bounds.length < CYCLES_SHOWN; ) {
    const cycle = billingCycleAt(workspace.billing_cycle, created, at);
    bounds.unshift(cycle);
    if (cycle.start <= created) break;
    at = cycle.start - 1;
  }
  const [days, ...counts] = await Promise.all([
    store.usagePerDay(workspace.id),
    ...bounds.map((b) => store.usageBetween(workspace.id, b.start, b.end)),
  ]);
  return { billing_cycle: workspace.billing_cycle, days, cycles: bounds.map((b, i) => ({ ...b, ...counts[i]! })) };
}
