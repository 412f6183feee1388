// Real, varied text for the service benchmarks: Debian's fortunes (about 12,000 distinct passages), and for larger
// workspaces the passages' sentences and lines as further distinct texts. Texts the service's PII screen would reject
// are left out (they would be 422s, not stores), as are near-identical ones (same words, other punctuation or case).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { screenPii } from "../../dist/service/pipeline/pii/index.js";

const SYSTEM_DIR = "/usr/share/games/fortunes";
const CACHE = join(tmpdir(), "brain-bench-fortunes");

/** The directory of the unpacked fortunes files: installed, cached, or fetched once with apt-get download. */
export function fortunesDir() {
  if (existsSync(SYSTEM_DIR)) return SYSTEM_DIR;
  const cached = join(CACHE, "x", "usr", "share", "games", "fortunes");
  if (!existsSync(cached)) {
    mkdirSync(CACHE, { recursive: true });
    execFileSync("sh", [
      "-c",
      `cd ${CACHE} && apt-get download -q fortunes fortunes-min >/dev/null 2>&1 && for f in *.deb; do dpkg -x "$f" x; done`,
    ]);
  }
  return cached;
}

function rawPassages() {
  const dir = fortunesDir();
  const out = [];
  for (const file of readdirSync(dir).sort()) {
    if (file.includes(".") || file === "off" || file.includes("art")) continue;
    const raw = readFileSync(join(dir, file), "utf8").replace(/.\x08/g, "");
    for (const entry of raw.split(/\n%\n/)) out.push(entry);
  }
  return out;
}

// The service refuses control characters (its input policy); a few fortunes hold some (bell, escape codes).
const flat = (s) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
const keyOf = (s) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
const words = (s) => (s.match(/[A-Za-z]+/g) ?? []).length;

/**
 * { passages, pieces }: passages are whole fortunes (20..1,500 characters); pieces are their sentences, lines,
 * clauses and pairs of adjacent sentences or lines (at least 5 words, 30..400 characters) that are not already a
 * passage. Both distinct (by lowercase words) and PII-free.
 */
export function corpus() {
  const seen = new Set();
  const take = (text, into) => {
    const key = keyOf(text);
    if (!key || seen.has(key) || !screenPii(text).ok) return;
    seen.add(key);
    into.push(text);
  };
  const passages = [];
  const raws = rawPassages();
  for (const raw of raws) {
    const text = flat(raw);
    if (text.length >= 20 && text.length <= 1500) take(text, passages);
  }
  const pieces = [];
  for (const raw of raws) {
    const sentences = flat(raw).split(/(?<=[.!?])\s+(?=["'(A-Z])/);
    const clauses = sentences.flatMap((s) => s.split(/(?<=[,;:])\s+|\s+(?:--|-)\s+/));
    const lines = raw.split("\n").map(flat);
    const pairs = (xs) => xs.slice(1).map((x, i) => `${xs[i]} ${x}`);
    const candidates = [...sentences, ...lines, ...clauses, ...pairs(sentences), ...pairs(lines)];
    for (const c of candidates) if (c.length >= 30 && c.length <= 400 && words(c) >= 5) take(c, pieces);
  }
  return { passages, pieces };
}

/** Deterministic shuffle (mulberry32), so every run and size sees the same order. */
export function shuffled(items, seed = 42) {
  const out = [...items];
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
