// Billing cycles for webhooks' billing events: consecutive periods anchored at the workspace's creation.
import { describe, expect, it } from "vitest";
import { billingCycleAt } from "../../src/service/webhooks/cycle.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("billingCycleAt", () => {
  it("monthly cycles start on the creation day each month, the 31st on a short month's last day", () => {
    const anchor = at("2026-01-31T10:00:00Z");
    const feb = billingCycleAt("monthly", anchor, at("2026-03-01T00:00:00Z"));
    expect([iso(feb.start), iso(feb.end)]).toEqual(["2026-02-28T10:00:00.000Z", "2026-03-31T10:00:00.000Z"]);
    const first = billingCycleAt("monthly", anchor, anchor);
    expect([iso(first.start), iso(first.end)]).toEqual(["2026-01-31T10:00:00.000Z", "2026-02-28T10:00:00.000Z"]);
  });

  it("yearly, daily and weekly cycles; an unknown cycle counts as monthly", () => {
    const anchor = at("2025-06-15T00:00:00Z");
    expect(iso(billingCycleAt("yearly", anchor, at("2026-07-01T00:00:00Z")).start)).toBe("2026-06-15T00:00:00.000Z");
    expect(iso(billingCycleAt("daily", anchor, at("2025-06-17T12:00:00Z")).start)).toBe("2025-06-17T00:00:00.000Z");
    expect(iso(billingCycleAt("weekly", anchor, at("2025-06-30T00:00:00Z")).start)).toBe("2025-06-29T00:00:00.000Z");
    expect(iso(billingCycleAt("fortnightly?", anchor, at("2025-08-20T00:00:00Z")).start)).toBe("2025-08-15T00:00:00.000Z");
  });

  it("the cycle holding any instant contains it, and the next starts where it ends", () => {
    const anchor = at("2024-02-29T23:59:59Z");
    for (let t = anchor; t < anchor + 800 * 86_400_000; t += 9_876_543_21 / 10) {
      const cycle = billingCycleAt("monthly", anchor, t);
      expect(cycle.start <= t && t < cycle.end).toBe(true);
      expect(billingCycleAt("monthly", anchor, cycle.end).start).toBe(cycle.end);
    }
  });
});
