// Scores the offline judge on the labeled sets: temporal accuracy, category F1, importance MAE.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Judgement } from "../../src/service/models/types.js";

export interface TemporalCase {
  text: string;
  now: string;
  type: "persistent" | "time_bound";
  valid_until: string | null;
  /** How far valid_until may be from the label (default 60 s). */
  tolerance_seconds?: number;
}
export interface CategoryCase {
  text: string;
  domain: string;
  topics: string[];
}
export interface ImportanceCase {
  text: string;
  importance?: number;
  /** Or an inclusive band [low, high]. */
  band?: [number, number];
}

export function loadSet<T>(relative: string): T[] {
  return JSON.parse(readFileSync(fileURLToPath(new URL(relative, import.meta.url)), "utf8")) as T[];
}

export type JudgeFn = (text: string, now: Date) => Promise<Judgement>;

export interface TemporalScore {
  n: number;
  typeAccuracy: number;
  /** Type right and, for time-bound labels with an end, the end within tolerance. */
  accuracy: number;
  misses: string[];
}

export async function scoreTemporal(cases: TemporalCase[], judge: JudgeFn): Promise<TemporalScore> {
  let typeRight = 0;
  let right = 0;
  const misses: string[] = [];
  for (const c of cases) {
    const { temporal } = await judge(c.text, new Date(c.now));
    const typeOk = temporal.type === c.type;
    let endOk = typeOk;
    if (typeOk && c.type === "time_bound" && c.valid_until) {
      const tol = (c.tolerance_seconds ?? 60) * 1000;
      endOk = temporal.valid_until !== null && Math.abs(Date.parse(temporal.valid_until) - Date.parse(c.valid_until)) <= tol;
    }
    if (typeOk) typeRight++;
    if (endOk) right++;
    else misses.push(`${c.text} @${c.now}: want ${c.type} ${c.valid_until}, got ${temporal.type} ${temporal.valid_until}`);
  }
  return { n: cases.length, typeAccuracy: typeRight / cases.length, accuracy: right / cases.length, misses };
}

export interface CategoryScore {
  n: number;
  domainAccuracy: number;
  /** Over topic labels, per item sets. */
  microF1: number;
  macroF1: number;
  /** Over domain + topics together. */
  labelMicroF1: number;
  misses: string[];
}

function f1(tp: number, fp: number, fn: number): number {
  return tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn);
}

export async function scoreCategories(
  cases: CategoryCase[],
  judge: JudgeFn,
  now = new Date("2025-03-10T12:00:00Z"),
): Promise<CategoryScore> {
  const perLabel = new Map<string, { tp: number; fp: number; fn: number }>();
  const bump = (label: string, key: "tp" | "fp" | "fn") => {
    const s = perLabel.get(label) ?? { tp: 0, fp: 0, fn: 0 };
    s[key]++;
    perLabel.set(label, s);
  };
  let domainRight = 0;
  let all = { tp: 0, fp: 0, fn: 0 };
  const misses: string[] = [];
  for (const c of cases) {
    const [domain, ...topics] = (await judge(c.text, now)).categories;
    if (domain === c.domain) domainRight++;
    const want = new Set(c.topics);
    const got = new Set(topics);
    for (const t of got) bump(t, want.has(t) ? "tp" : "fp");
    for (const t of want) if (!got.has(t)) bump(t, "fn");
    const tp = [...got].filter((t) => want.has(t)).length + (domain === c.domain ? 1 : 0);
    all = { tp: all.tp + tp, fp: all.fp + got.size + 1 - tp, fn: all.fn + want.size + 1 - tp };
    if (domain !== c.domain || tp !== want.size + 1 || got.size !== want.size) {
      misses.push(`${c.text}: want ${c.domain} [${c.topics}], got ${domain} [${topics}]`);
    }
  }
  let tp = 0,
    fp = 0,
    fn = 0;
  const f1s: number[] = [];
  for (const s of perLabel.values()) {
    tp += s.tp;
    fp += s.fp;
    fn += s.fn;
    f1s.push(f1(s.tp, s.fp, s.fn));
  }
  return {
    n: cases.length,
    domainAccuracy: domainRight / cases.length,
    microF1: f1(tp, fp, fn),
    macroF1: f1s.reduce((a, b) => a + b, 0) / f1s.length,
    labelMicroF1: f1(all.tp, all.fp, all.fn),
    misses,
  };
}

export interface ImportanceScore {
  n: number;
  mae: number;
  /** Share within one point of the label (or inside its band). */
  withinOne: number;
  misses: string[];
}

export async function scoreImportance(
  cases: ImportanceCase[],
  judge: JudgeFn,
  now = new Date("2025-03-10T12:00:00Z"),
): Promise<ImportanceScore> {
  let err = 0;
  let close = 0;
  const misses: string[] = [];
  for (const c of cases) {
    const got = (await judge(c.text, now)).importance;
    const [lo, hi] = c.band ?? [c.importance!, c.importance!];
    const e = got < lo ? lo - got : got > hi ? got - hi : 0;
    err += e;
    if (e <= 1) close++;
    else misses.push(`${c.text}: want ${lo === hi ? lo : `${lo}-${hi}`}, got ${got}`);
  }
  return { n: cases.length, mae: err / cases.length, withinOne: close / cases.length, misses };
}
