// Two runs of `run.js --rows FILE` side by side: R@5, R@10 and MRR@10 of the service in each, and the questions whose
// first hit moved (a store against the other, a build against another, or a run against itself: 0 when rankings repeat).
//   node test/eval/locomo/compare-rows.js A.jsonl B.jsonl [--list]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { summarize } from "./measures.js";

const { values: args, positionals: files } = parseArgs({ options: { list: { type: "boolean" } }, allowPositionals: true });
if (files.length !== 2) {
  console.error("usage: node test/eval/locomo/compare-rows.js A.jsonl B.jsonl [--list]");
  process.exit(2);
}
const read = (file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
const [a, b] = files.map(read);
const key = (r) => `${r.conversation}/${r.question}`;
const byKey = new Map(b.map((r) => [key(r), r]));
const missing = a.filter((r) => !byKey.has(key(r)));
if (missing.length > 0 || a.length !== b.length) {
  console.error(`the two files hold different questions (${a.length} and ${b.length}; ${missing.length} of the first not in the second)`);
  process.exit(1);
}
const fmt = (x) => x.toFixed(3);
for (const [file, rows] of [
  [files[0], a],
  [files[1], b],
]) {
  const s = summarize(rows.map((r) => r.service));
  console.log(`${file}: R@5 ${fmt(s.r5)}  R@10 ${fmt(s.r10)}  MRR@10 ${fmt(s.mrr)}  (${rows.length} questions)`);
}
// A first hit of 0 is a miss in the first 10.
const rank = (hit) => (hit > 0 ? hit : Number.POSITIVE_INFINITY);
const moved = a.map((r) => [r, byKey.get(key(r))]).filter(([x, y]) => x.service !== y.service);
const better = moved.filter(([x, y]) => rank(y.service) < rank(x.service)).length;
console.log(`questions at another rank: ${moved.length} (the second better in ${better}, worse in ${moved.length - better})`);
if (args.list) for (const [x, y] of moved) console.log(`  ${key(x)}: ${x.service || "-"} -> ${y.service || "-"}`);
