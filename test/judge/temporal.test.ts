import { describe, expect, it } from "vitest";
import { judgeTemporal } from "../../src/service/models/judge/temporal.js";

// Pinned clocks (UTC): weekday, month and year edges.
const MON = "2025-03-10T15:30:00Z"; // a Monday
const SUN = "2025-09-28T20:00:00Z"; // a Sunday
const SAT = "2025-06-14T11:00:00Z"; // a Saturday
const FRI_MONTH_END = "2025-01-31T18:00:00Z"; // a Friday, last day of January
const YEAR_END = "2025-12-29T09:00:00Z"; // a Monday in the last week of the year
const NEW_YEARS_EVE = "2025-12-31T22:00:00Z";
const LEAP_JAN_31 = "2024-01-31T12:00:00Z";

const until = (text: string, now: string) => judgeTemporal(text, new Date(now)).valid_until;

describe("relative time expressions end where a person would expect (UTC)", () => {
  const cases: Array<[string, string, string, string]> = [
    // [what it shows, text, now, valid_until]
    ["until a weekday ends that day", "I'm in Lisbon until Thursday.", MON, "2025-03-13T23:59:59Z"],
    ["'until Monday' said on a Monday means next Monday", "Deploys are frozen until Monday.", MON, "2025-03-17T23:59:59Z"],
    ["'until Monday' said on a Sunday means the next day", "Deploys are frozen until Monday.", SUN, "2025-09-29T23:59:59Z"],
    [
      "'until Friday' said on a Friday at month end rolls into February",
      "The build server is read-only until Friday.",
      FRI_MONTH_END,
      "2025-02-07T23:59:59Z",
    ],
    ["'this week' ends on Sunday", "I'm on call this week.", MON, "2025-03-16T23:59:59Z"],
    ["'this week' said on a Sunday ends that day", "I'm on call this week.", SUN, "2025-09-28T23:59:59Z"],
    ["'today' ends at the end of the UTC day", "Alice is out sick today.", MON, "2025-03-10T23:59:59Z"],
    ["'tonight' ends at the end of the day", "Dinner with the investors tonight.", MON, "2025-03-10T23:59:59Z"],
    ["'tomorrow' at month end is the 1st", "Kim visits the Berlin office tomorrow.", FRI_MONTH_END, "2025-02-01T23:59:59Z"],
    ["'tomorrow' on New Year's Eve is next year", "Remind me tomorrow to file the report.", NEW_YEARS_EVE, "2026-01-01T23:59:59Z"],
    ["'the day after tomorrow'", "The auditors arrive the day after tomorrow.", MON, "2025-03-12T23:59:59Z"],
    [
      "'for the next three months' is now plus three calendar months",
      "Deploy freeze for the next three months.",
      MON,
      "2025-06-10T15:30:00Z",
    ],
    ["'for 2 weeks' is now plus 14 days", "Staging is down for 2 weeks.", MON, "2025-03-24T15:30:00Z"],
    ["'for the next 10 days' crosses the year", "Traveling for the next 10 days.", YEAR_END, "2026-01-08T09:00:00Z"],
    [
      "'for one month' from Jan 31 clamps to Feb 29 in a leap year",
      "The migration window lasts for one month.",
      LEAP_JAN_31,
      "2024-02-29T12:00:00Z",
    ],
    ["'for two months' from Dec 29 clamps to Feb 28", "Hiring is frozen for the next two months.", YEAR_END, "2026-02-28T09:00:00Z"],
    ["word numbers: a couple of weeks", "Working half days for a couple of weeks.", MON, "2025-03-24T15:30:00Z"],
    ["word numbers: twelve days", "Jenna covers support for twelve days.", MON, "2025-03-22T15:30:00Z"],
    ["word numbers: a few hours", "The VPN is down for a few hours.", MON, "2025-03-10T18:30:00Z"],
    ["word numbers: half an hour", "I'm presenting for half an hour.", MON, "2025-03-10T16:00:00Z"],
    ["'in 3 days'", "The trial ends in 3 days.", MON, "2025-03-13T15:30:00Z"],
    ["'until March 3rd' after March 3rd is next year", "Bob is on leave until March 3rd.", MON, "2026-03-03T23:59:59Z"],
    ["'until March 3rd' before March 3rd is this year", "Bob is on leave until March 3rd.", FRI_MONTH_END, "2025-03-03T23:59:59Z"],
    ["'until 3 March' (day first)", "Bob is on leave until 3 March.", FRI_MONTH_END, "2025-03-03T23:59:59Z"],
    ["an ISO date ends that day", "The contract is valid until 2027-01-15.", MON, "2027-01-15T23:59:59Z"],
    ["'this sprint' is two weeks", "Keep the feature flag on this sprint.", MON, "2025-03-24T15:30:00Z"],
    ["'next week' ends on next week's Sunday", "Code freeze next week.", MON, "2025-03-23T23:59:59Z"],
    ["'next week' said on a Sunday is the week starting tomorrow", "Code freeze next week.", SUN, "2025-10-05T23:59:59Z"],
    ["'next Friday' is the Friday of next week", "The demo is next Friday.", MON, "2025-03-21T23:59:59Z"],
    ["'this month' ends on its last day", "The office is closed this month.", MON, "2025-03-31T23:59:59Z"],
    [
      "'end of month' in a leap February",
      "Budget approvals are paused until the end of the month.",
      "2024-02-10T08:00:00Z",
      "2024-02-29T23:59:59Z",
    ],
    ["'next month' from January 31 is the end of February", "Expense reports are due next month.", FRI_MONTH_END, "2025-02-28T23:59:59Z"],
    ["'by Friday' is a deadline that ends that Friday", "The report is due by Friday.", MON, "2025-03-14T23:59:59Z"],
    ["'until the 12th' said on the 10th", "On vacation until the 12th.", MON, "2025-03-12T23:59:59Z"],
    ["'until the 12th' said on the 12th is next month's", "On vacation until the 12th.", "2025-03-12T08:00:00Z", "2025-04-12T23:59:59Z"],
    ["'until the 12th' said in late December is January's", "On vacation until the 12th.", "2025-12-20T08:00:00Z", "2026-01-12T23:59:59Z"],
    ["'currently' holds for a week", "Currently debugging the flaky webhook tests.", MON, "2025-03-17T15:30:00Z"],
    ["'temporarily' holds for a week", "The VPN is temporarily disabled.", MON, "2025-03-17T15:30:00Z"],
    ["'right now' holds for a day", "Right now I'm in a meeting.", MON, "2025-03-11T15:30:00Z"],
    ["'at the moment' holds for a day", "At the moment the index is rebuilding.", MON, "2025-03-11T15:30:00Z"],
    ["'until further notice' holds for 30 days", "Refunds need approval until further notice.", MON, "2025-04-09T15:30:00Z"],
    ["'for the rest of the day'", "Don't book anything for the rest of the day.", MON, "2025-03-10T23:59:59Z"],
    ["'this quarter' ends with the quarter", "Focus on renewals this quarter.", MON, "2025-03-31T23:59:59Z"],
    ["'this quarter' in Q4 ends Dec 31", "Focus on renewals this quarter.", "2025-11-15T10:00:00Z", "2025-12-31T23:59:59Z"],
    ["'by Q1' said in Q4 is next year's Q1", "The SOC 2 report is due by Q1.", "2025-11-15T10:00:00Z", "2026-03-31T23:59:59Z"],
    ["'over the weekend' ends on Sunday", "I'll be offline over the weekend.", MON, "2025-03-16T23:59:59Z"],
    ["'over the weekend' said on a Saturday ends the next day", "The database is resized over the weekend.", SAT, "2025-06-15T23:59:59Z"],
    ["'until 5pm' is today at 17:00 UTC", "Don't page me until 5pm.", MON, "2025-03-10T17:00:00Z"],
    ["'by the end of June'", "OKRs must be drafted by the end of June.", SAT, "2025-06-30T23:59:59Z"],
    ["several expressions: the latest end wins", "Out today and tomorrow.", MON, "2025-03-11T23:59:59Z"],
  ];
  for (const [shows, text, now, want] of cases) {
    it(shows, () => {
      expect(judgeTemporal(text, new Date(now))).toEqual({ type: "time_bound", valid_until: want });
    });
  }
});

describe("standing facts are persistent", () => {
  const texts = [
    "The user prefers dark mode.",
    "The API uses PostgreSQL 15.",
    "We decided to ship weekly.",
    "Today we decided to move to weekly releases.",
    "Standup is every Monday at 10.",
    "Deploys happen on Fridays.",
    "My birthday is March 3rd.",
    "Last Friday we shipped v2.",
    "I have worked at Initech for 5 years.",
    "The full build runs in 10 minutes.",
    "Acme Corp pays annually by invoice.",
    "From now on, answer in British English.",
    "Weekly 1:1 with Dana on Wednesdays at 2pm.",
    "I sat with the sun on my face.",
  ];
  for (const text of texts) {
    it(`"${text}"`, () => {
      expect(judgeTemporal(text, new Date(MON))).toEqual({ type: "persistent", valid_until: null });
    });
  }
});

describe("the output format", () => {
  it("valid_until is ISO 8601 UTC with second precision and Z, never before now", () => {
    const now = new Date("2025-03-10T15:30:12.345Z");
    for (const text of ["for 90 minutes", "until Friday", "currently", "for 2 weeks", "this quarter", "until 2026-07-01"]) {
      const t = judgeTemporal(text, now);
      expect(t.valid_until).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(Date.parse(t.valid_until!)).toBeGreaterThan(now.getTime() - 1000);
    }
  });

  it("a date that has already passed does not make a memory time-bound", () => {
    expect(judgeTemporal("The contract ran until 2020-01-15.", new Date(MON)).type).toBe("persistent");
  });

  it("the same text and clock give the same answer", () => {
    expect(until("On vacation until the 12th.", MON)).toBe(until("On vacation until the 12th.", MON));
  });
});
