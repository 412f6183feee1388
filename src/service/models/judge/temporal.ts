// Temporal type and end of one memory (DESIGN.md "temporal"): rules over relative and absolute time expressions,
// anchored at `now`. All calendar arithmetic is UTC: the service has no time zone for its callers.
import type { Temporal } from "../../../contract/wire.js";

/** A "current state" said with "right now" / "at the moment" is assumed to hold for one day. */
export const RIGHT_NOW_HORIZON_DAYS = 1;
/** "currently", "temporarily", "for now": one week. */
export const CURRENT_STATE_HORIZON_DAYS = 7;
/** "until further notice": a month, then the memory is reported as expired (its score fades, it is not deleted). */
export const FURTHER_NOTICE_HORIZON_DAYS = 30;
/** "this sprint": two weeks, the most common sprint length. */
export const SPRINT_DAYS = 14;

const DAY_MS = 86_400_000;
const MAX_EXPRESSIONS = 64;

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const;
// Full names only: "sun", "sat" and "wed" are also ordinary words.
const WEEKDAY_RE = "(monday|tuesday|wednesday|thursday|friday|saturday|sunday)";
const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const MONTH_RE =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";

const WORD_NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  single: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  ninety: 90,
  "a couple of": 2,
  "a couple": 2,
  couple: 2,
  another: 1,
  "a few": 3,
  few: 3,
  several: 3,
  "half a": 0.5,
  "half an": 0.5,
};
const NUMBER_RE =
  "(\\d+(?:\\.\\d+)?|a couple of|a couple|couple of|a few|several|half an?|an?|one|single|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|ninety)";
const UNIT_RE = "(minutes?|mins?|hours?|hrs?|days?|nights?|fortnights?|weeks?|wks?|months?|quarters?|years?|yrs?|sprints?)";

function parseNumber(word: string): number {
  const w = word.replace(/\s+of$/, "").trim();
  if (/^\d/.test(w)) return Number(w);
  return WORD_NUMBERS[w] ?? WORD_NUMBERS[`${w} of`] ?? 1;
}

function monthIndex(word: string): number {
  const w = word.toLowerCase().slice(0, 3);
  return MONTHS.findIndex((m) => m.startsWith(w));
}

function weekdayIndex(word: string): number {
  const w = word.toLowerCase().slice(0, 3);
  return WEEKDAYS.findIndex((d) => d.startsWith(w));
}

function endOfDay(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 23, 59, 59));
}

function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * DAY_MS);
}

/** Calendar months, clamping the day (Jan 31 + 1 month = Feb 28/29). */
function addMonths(d: Date, months: number): Date {
  const whole = Math.trunc(months);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + whole;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  const moved = new Date(Date.UTC(y, m, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()));
  const rest = months - whole;
  return rest ? addDays(moved, rest * 30) : moved;
}

function endOfMonth(year: number, month: number): Date {
  return new Date(Date.UTC(year, month + 1, 0, 23, 59, 59));
}

/** End of the ISO week (Sunday) containing `d`. */
function endOfWeek(d: Date): Date {
  return endOfDay(addDays(d, (7 - d.getUTCDay()) % 7));
}

/** The next `weekday` strictly after today (said on a Monday, "until Monday" means a week later). */
function nextWeekday(now: Date, weekday: number, allowToday = false): Date {
  let delta = (weekday - now.getUTCDay() + 7) % 7;
  if (delta === 0 && !allowToday) delta = 7;
  return endOfDay(addDays(now, delta));
}

/** "next Friday": the Friday of next week (Monday-start weeks). */
function weekdayOfNextWeek(now: Date, weekday: number): Date {
  const nextMonday = addDays(endOfWeek(now), 1);
  return endOfDay(addDays(nextMonday, (weekday + 6) % 7));
}

function spanEnd(now: Date, amount: number, unit: string): Date {
  const u = unit.toLowerCase();
  if (u.startsWith("min")) return new Date(now.getTime() + amount * 60_000);
  if (u.startsWith("h")) return new Date(now.getTime() + amount * 3_600_000);
  if (u.startsWith("d") || u.startsWith("night")) return addDays(now, amount);
  if (u.startsWith("fortnight")) return addDays(now, amount * 14);
  if (u.startsWith("w")) return addDays(now, amount * 7);
  if (u.startsWith("mo")) return addMonths(now, amount);
  if (u.startsWith("q")) return addMonths(now, amount * 3);
  if (u.startsWith("s")) return addDays(now, amount * SPRINT_DAYS);
  return addMonths(now, amount * 12);
}

/** A calendar date with no year: this year unless already past, then next year. */
function upcomingDate(now: Date, month: number, day: number, year?: number): Date | null {
  if (month < 0 || day < 1 || day > 31) return null;
  if (year !== undefined) {
    const d = new Date(Date.UTC(year, month, day, 23, 59, 59));
    return d.getUTCMonth() === month ? d : null;
  }
  let y = now.getUTCFullYear();
  let d = new Date(Date.UTC(y, month, day, 23, 59, 59));
  if (d.getTime() < now.getTime()) d = new Date(Date.UTC(++y, month, day, 23, 59, 59));
  return d.getUTCMonth() === month ? d : null;
}

/** "the 12th": the next such day of a month, strictly after today. */
function upcomingDayOfMonth(now: Date, day: number): Date | null {
  if (day < 1 || day > 31) return null;
  for (let i = 0; i < 3; i++) {
    const y = now.getUTCFullYear();
    const m = now.getUTCMonth() + i;
    const d = new Date(Date.UTC(y, m, day, 23, 59, 59));
    if (d.getUTCDate() === day && endOfDay(d).getTime() > endOfDay(now).getTime()) return d;
  }
  return null;
}

function clockTime(now: Date, hour: number, minute: number, meridiem: string | undefined): Date {
  let h = hour % 12;
  if (meridiem?.toLowerCase().startsWith("p")) h += 12;
  else if (!meridiem) h = hour;
  let d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), h, minute, 0));
  if (d.getTime() <= now.getTime()) d = addDays(d, 1);
  return d;
}

interface Rule {
  re: RegExp;
  /** A duration from now ("for 2 weeks"), as opposed to a calendar point. */
  span?: boolean;
  end: (m: RegExpExecArray, now: Date) => Date | null;
}

// Expressions that are only ever time-bound. Each yields an end; the memory ends at the latest one found.
const RULES: Rule[] = [
  // Spans from now: "for the next three months", "for 2 weeks", "over the next 10 days", "in a couple of days".
  {
    re: new RegExp(
      `\\b(?:for|over|within|during|in)\\s+(?:the\\s+)?(?:next|coming|following)?\\s*(?:another|an additional|about|around|roughly|approximately|at least|up to)?\\s*${NUMBER_RE}[\\s-]+(?:more\\s+|extra\\s+)?${UNIT_RE}\\b`,
      "gi",
    ),
    span: true,
    end: (m, now) => spanEnd(now, parseNumber(m[1]!.toLowerCase()), m[2]!),
  },
  // "for the next week" is a span; "for next week" (no "the") is the calendar week, below.
  {
    re: new RegExp(`\\b(?:for|over)\\s+the\\s+(?:next|coming)\\s+${UNIT_RE}\\b`, "gi"),
    span: true,
    end: (m, now) => spanEnd(now, 1, m[1]!),
  },
  {
    re: new RegExp(`\\bnext\\s+${NUMBER_RE}\\s+${UNIT_RE}\\b`, "gi"),
    end: (m, now) => spanEnd(now, parseNumber(m[1]!.toLowerCase()), m[2]!),
  },
  {
    re: new RegExp(`\\b${NUMBER_RE}[\\s-]+${UNIT_RE}\\s+from\\s+(?:now|today)\\b`, "gi"),
    end: (m, now) => spanEnd(now, parseNumber(m[1]!.toLowerCase()), m[2]!),
  },
  // Day-level words.
  { re: /\b(?:the )?day after tomorrow\b/gi, end: (_m, now) => endOfDay(addDays(now, 2)) },
  {
    re: /\b(?:today|tonight|this (?:morning|afternoon|evening)|later today|end of (?:the )?day|eod|rest of the day)\b/gi,
    end: (_m, now) => endOfDay(now),
  },
  { re: /\b(?:tomorrow|tmrw)\b/gi, end: (_m, now) => endOfDay(addDays(now, 1)) },
  // Weeks.
  {
    re: /\b(?:this|the current|current) week\b|\bend of (?:the |this )?week\b|\beow\b|\brest of the week\b/gi,
    end: (_m, now) => endOfWeek(now),
  },
  { re: /\bnext week\b|\bend of next week\b/gi, end: (_m, now) => addDays(endOfWeek(now), 7) },
  {
    re: /\b(?:this|the|over the|next|coming) weekend\b/gi,
    end: (m, now) => (/next/i.test(m[0]) && now.getUTCDay() % 6 !== 0 ? addDays(endOfWeek(now), 7) : endOfWeek(now)),
  },
  // Sprints.
  { re: /\b(?:this|the current|current) sprint\b|\bend of (?:the )?sprint\b/gi, end: (_m, now) => addDays(now, SPRINT_DAYS) },
  { re: /\bnext sprint\b/gi, end: (_m, now) => addDays(now, 2 * SPRINT_DAYS) },
  // Months, quarters, years.
  {
    re: /\b(?:this|the current|current) month\b|\bend of (?:the |this )?month\b|\beom\b|\brest of the month\b/gi,
    end: (_m, now) => endOfMonth(now.getUTCFullYear(), now.getUTCMonth()),
  },
  { re: /\bnext month\b/gi, end: (_m, now) => endOfMonth(now.getUTCFullYear(), now.getUTCMonth() + 1) },
  {
    re: /\b(?:this|the current|current) quarter\b|\bend of (?:the |this )?quarter\b|\beoq\b|\brest of the quarter\b/gi,
    end: (_m, now) => endOfMonth(now.getUTCFullYear(), Math.floor(now.getUTCMonth() / 3) * 3 + 2),
  },
  { re: /\bnext quarter\b/gi, end: (_m, now) => endOfMonth(now.getUTCFullYear(), Math.floor(now.getUTCMonth() / 3) * 3 + 5) },
  {
    re: /\b(?:by|until|till|til|through|before|in|end of|during)\s+(?:the\s+end\s+of\s+)?q([1-4])\b/gi,
    end: (m, now) => {
      const q = Number(m[1]) - 1;
      const y = now.getUTCFullYear() + (q * 3 + 2 < now.getUTCMonth() ? 1 : 0);
      return endOfMonth(y, q * 3 + 2);
    },
  },
  {
    re: /\b(?:this|the current) year\b|\bend of (?:the |this )?year\b|\beoy\b|\brest of the year\b/gi,
    end: (_m, now) => endOfMonth(now.getUTCFullYear(), 11),
  },
  // ISO dates: 2027-01-15 (optionally with a time).
  {
    re: /\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?Z?)?\b/g,
    end: (m) => {
      const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
      if (m[4]) return new Date(Date.UTC(y, mo, d, Number(m[4]), Number(m[5]), Number(m[6] ?? 0)));
      return upcomingDate(new Date(0), mo, d, y);
    },
  },
  // "March 3rd", "March 3, 2027", "Mar 3".
  {
    re: new RegExp(`\\b${MONTH_RE}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4}))?`, "gi"),
    end: (m, now) => upcomingDate(now, monthIndex(m[1]!), Number(m[2]), m[3] ? Number(m[3]) : undefined),
  },
  // "3 March", "the 3rd of March 2027".
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_RE}\\b(?:,?\\s+(\\d{4}))?`, "gi"),
    end: (m, now) => upcomingDate(now, monthIndex(m[2]!), Number(m[1]), m[3] ? Number(m[3]) : undefined),
  },
  // "until the 12th", "by the 3rd".
  {
    re: /\b(?:until|till|til|through|thru|by|before|on|after|from|to|back)\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:floor|place|time|round|edition|grade|party|person|attempt|version|row|century|anniversary|birthday|quarter|week|day|year|month|item|step|option|line|of)\b)/gi,
    end: (m, now) => upcomingDayOfMonth(now, Number(m[1])),
  },
  // Month names alone after a boundary word: "until March", "in June".
  {
    re: new RegExp(
      `\\b(?:until|till|til|through|by|before|in|during|end of|throughout)\\s+(?:the\\s+end\\s+of\\s+)?${MONTH_RE}\\b(?!\\s*\\d)`,
      "gi",
    ),
    end: (m, now) => {
      const month = monthIndex(m[1]!);
      if (month < 0 || (m[1]!.toLowerCase() === "may" && !/\b(?:until|till|by|in|during|end of)\s+may\b/i.test(m[0]))) return null;
      const y = now.getUTCFullYear() + (month < now.getUTCMonth() ? 1 : 0);
      return endOfMonth(y, month);
    },
  },
  // "next Friday".
  { re: new RegExp(`\\bnext\\s+${WEEKDAY_RE}\\b`, "gi"), end: (m, now) => weekdayOfNextWeek(now, weekdayIndex(m[1]!)) },
  // "this Friday" may be today.
  { re: new RegExp(`\\bthis\\s+${WEEKDAY_RE}\\b`, "gi"), end: (m, now) => nextWeekday(now, weekdayIndex(m[1]!), true) },
  // A bare weekday ("until Monday", "by Friday", "on Thursday"); plural weekdays ("on Fridays") recur and are not ends.
  {
    re: new RegExp(
      `(?<!\\bnext\\s|\\bthis\\s|\\bevery\\s|\\blast\\s|\\beach\\s)\\b${WEEKDAY_RE}\\b(?!s\\b|'s\\s+(?:standup|meeting)s?\\b)`,
      "gi",
    ),
    end: (m, now) => nextWeekday(now, weekdayIndex(m[1]!)),
  },
  // Clock times after a boundary word: "until 5pm", "by 17:00" ("at 2pm" alone is often a recurring slot).
  {
    re: /\b(?:until|till|til|by|before|no later than)\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?!\s*(?:%|percent|people|users|days?|weeks?|months?|years?|hours?|minutes?|[kmgt]b\b))/gi,
    end: (m, now) => {
      const hour = Number(m[1]);
      if (hour > 23 || (!m[2] && !m[3])) return null;
      return clockTime(now, hour, Number(m[2] ?? 0), m[3]);
    },
  },
  {
    re: /\b(?:until|till|by|before) (noon|midday|midnight)\b/gi,
    end: (m, now) => (m[1]!.toLowerCase() === "midnight" ? endOfDay(now) : clockTime(now, 12, 0, "pm")),
  },
];

interface Horizon {
  re: RegExp;
  days: number;
}

// Words that make a state temporary without saying for how long.
const HORIZONS: Horizon[] = [
  { re: /\buntil further notice\b/i, days: FURTHER_NOTICE_HORIZON_DAYS },
  { re: /\b(?:right now|at the moment|at this moment|as we speak|at the minute)\b/i, days: RIGHT_NOW_HORIZON_DAYS },
  {
    re: /\b(?:currently|temporarily|temporary|for now|for the time being|for the moment|at present|presently|in the meantime|for a while)\b/i,
    days: CURRENT_STATE_HORIZON_DAYS,
  },
];

// Recurring or open-ended phrasing: a habit, a rule, a standing fact.
// A recurring schedule is a lasting fact whatever day it names: "every second Thursday", "each Monday", "every
// 2 weeks", "on the first of each month", "twice a month", "fortnightly".
const RECURRENCE_UNIT = `(?:day|week|month|quarter|year|morning|afternoon|evening|night|sprint|weekday|weekend|${WEEKDAY_RE.replace(/^\(/, "(?:")})s?`;
const RECURRENCE_ORDINAL = "(?:other|second|third|fourth|fifth|first|last|alternate|\\d+(?:st|nd|rd|th)?|couple of|few)";
const PERSISTENT_MARKERS = new RegExp(
  "\\b(?:from now on|going forward|moving forward|permanently|for good|from today on|starting today|as of today|" +
    `(?:every|each)(?:\\s+${RECURRENCE_ORDINAL})?\\s+${RECURRENCE_UNIT}|every other|` +
    `(?:once|twice|\\w+ times) (?:a|per|every) (?:day|week|month|quarter|year)|of (?:every|each) month|` +
    "daily|weekly|bi-?weekly|fortnightly|monthly|bi-?monthly|quarterly|annually|yearly|fiscal year|financial year)\\b",
  "i",
);
/** Just before a time expression: it names a recurrence ("every second Thursday"), not an end. */
const RECURRING_LEAD = new RegExp(`\\b(?:every|each)(?:\\s+${RECURRENCE_ORDINAL})?\\s*$`, "i");
// A decision stands after the day it was taken ("today we decided to ship weekly").
const DECISION = /\b(?:decided|agreed|chose|settled on|standardi[sz]ed on|signed off)\b/i;
// A date here is an anniversary or a start, not an end.
const DATE_IS_NOT_AN_END = /\b(?:birthday|born|anniversary|since|joined|started (?:on|at|in)|founded|hired on|began)\b/i;
// Words that introduce an end even inside a standing rule ("always use staging until the migration is done").
const EXPLICIT_END =
  /\b(?:until|till|til|thru|expires?|due|deadline|no later than|by (?:the end|end|eod|eow|tomorrow|tonight|today|next|this|monday|tuesday|wednesday|thursday|friday|saturday|sunday|q[1-4]|\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))/i;
// Before a span: the span is a past duration ("have worked here for 5 years") or a run time ("builds in 10 minutes").
const SPAN_IS_NOT_AN_END =
  /(?:\b(?:have|has|had|'ve|was|were|been|used to)\b[^.;!?]*|\b(?:takes?|took|runs?|ran|completes?|completed|finish(?:es|ed)?|loads?|loaded|builds?|built|responds?|responded)\s+)$/i;

function iso(d: Date): string {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Finds the ends that the text's time expressions name, ignoring past references and recurring ones. */
function expressionEnds(text: string, now: Date): Date[] {
  const ends: Date[] = [];
  const consumed: Array<[number, number]> = [];
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(text); m; m = rule.re.exec(text)) {
      const start = m.index;
      const stop = start + m[0].length;
      // A pathological text (thousands of dates) costs bounded time: the first expressions decide.
      if (consumed.length >= MAX_EXPRESSIONS) return ends;
      if (consumed.some(([a, b]) => start < b && stop > a)) continue;
      consumed.push([start, stop]);
      const before = text.slice(Math.max(0, start - 80), start);
      // "last Friday", "every Monday", "since March 3rd": not ends.
      if (/\b(?:last|since|previous|past)\s*$/i.test(before) || RECURRING_LEAD.test(before)) continue;
      if (rule.span && SPAN_IS_NOT_AN_END.test(before)) continue;
      const end = rule.end(m, now);
      if (end && end.getTime() > now.getTime()) ends.push(end);
    }
  }
  return ends;
}

/** Classifies a memory as persistent or time-bound and computes when a time-bound one stops holding. */
export function judgeTemporal(text: string, now: Date): Temporal {
  const standing = (PERSISTENT_MARKERS.test(text) || DECISION.test(text)) && !EXPLICIT_END.test(text);
  if (standing) return { type: "persistent", valid_until: null };

  const ends = DATE_IS_NOT_AN_END.test(text) && !EXPLICIT_END.test(text) ? [] : expressionEnds(text, now);
  if (ends.length > 0) {
    const latest = ends.reduce((a, b) => (b.getTime() > a.getTime() ? b : a));
    return { type: "time_bound", valid_until: iso(latest) };
  }
  for (const horizon of HORIZONS) {
    if (horizon.re.test(text)) return { type: "time_bound", valid_until: iso(addDays(now, horizon.days)) };
  }
  return { type: "persistent", valid_until: null };
}
