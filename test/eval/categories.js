// The categories evaluation (issue 30): sets/category-labels.json (603 memories) or another file of the same shape
// (--set), scored per topic (precision, recall, F1) with the confusions, for this checkout's judge and, with --baseline,
// another build's judge in the same run. Since the fourth pass every split of category-labels.json, holdout2 and voices
// (since the fifth, holdout3 and voices2 too; since the sixth, holdout4)
// is training data, so their figures here are in-sample: the trainer's leave-one-labeller-out lines are the fair ones.
// Usage: npm run build && node test/eval/categories.js [--baseline <dist dir of another commit>] [--misses] [--sample N]
//        [--split dev] (one split only: work on the dev rows without seeing the held-out ones)
//        [--offset K] (the sample starts at the K-th held-out row: 0 is the sample read in the first pass)
//        [--set FILE] (another file of rows of the same shape, e.g. sets/category-labels-holdout2.json: every split it
//        holds is measured, and --sample reads its last split; with --split dev the sample is of the dev rows)
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createOfflineEmbedder } from "../../dist/service/models/embed/index.js";

const { values: args } = parseArgs({
  options: {
    baseline: { type: "string" },
    misses: { type: "boolean" },
    sample: { type: "string" },
    split: { type: "string" },
    offset: { type: "string" },
    set: { type: "string" },
  },
});
const rows = JSON.parse(readFileSync(args.set ?? new URL("./sets/category-labels.json", import.meta.url), "utf8"));
/** The splits the file holds, dev first: the default file's are dev and holdout. */
const splits = [...new Set(rows.map((r) => r.split ?? "unsplit"))].sort((a, b) => (b === "dev") - (a === "dev"));
for (const r of rows) r.split ??= "unsplit";
const NOW = new Date("2025-07-16T13:00:00Z");

const embedder = createOfflineEmbedder("semantic");
await embedder.load();
const vectors = await embedder.embed(
  rows.map((r) => r.text),
  "document",
);

/** Judges from a dist/ directory: rules alone (no vector) and rules with the classifiers (the default embedder's vectors). */
async function judgesFrom(dist, name) {
  const { createOfflineJudge } = await import(pathToFileURL(`${dist}/service/models/judge/index.js`).href);
  const rules = createOfflineJudge();
  const model = createOfflineJudge({ embedderId: embedder.id });
  return [
    { name: `${name} rules`, judge: (text) => rules.judge(text, NOW, null) },
    { name: `${name} ${model.id}`, judge: (text, i) => model.judge(text, NOW, vectors[i]) },
  ];
}

const judges = await judgesFrom(new URL("../../dist", import.meta.url).pathname, "this");
if (args.baseline) judges.unshift(...(await judgesFrom(args.baseline.replace(/\/$/, ""), "baseline")));

const f1 = (tp, fp, fn) => (tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn));
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(3) : "  -  ");

/** Per-topic counts, micro/macro F1, domain accuracy and confusions over `items` ({row, got}). */
export function measure(items) {
  const per = new Map();
  const bump = (t, k) => {
    const s = per.get(t) ?? { tp: 0, fp: 0, fn: 0 };
    s[k]++;
    per.set(t, s);
  };
  const confusions = new Map();
  const domains = new Map();
  let domainRight = 0;
  for (const { row, got } of items) {
    const [domain, ...topics] = got;
    if (domain === row.domain) domainRight++;
    else domains.set(`${row.domain}→${domain}`, (domains.get(`${row.domain}→${domain}`) ?? 0) + 1);
    const want = new Set(row.topics);
    const extra = topics.filter((t) => !want.has(t));
    const missed = row.topics.filter((t) => !topics.includes(t));
    for (const t of topics) bump(t, want.has(t) ? "tp" : "fp");
    for (const t of missed) bump(t, "fn");
    // A confusion pairs a label the row has with a wrong one given beside it ("-" when nothing was missed or added).
    for (const w of missed.length ? missed : ["-"])
      for (const g of extra.length ? extra : missed.length ? ["-"] : [])
        confusions.set(`${w}→${g}`, (confusions.get(`${w}→${g}`) ?? 0) + 1);
  }
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const f1s = [];
  for (const s of per.values()) {
    tp += s.tp;
    fp += s.fp;
    fn += s.fn;
    f1s.push(f1(s.tp, s.fp, s.fn));
  }
  return {
    n: items.length,
    domainAccuracy: domainRight / items.length,
    microF1: f1(tp, fp, fn),
    precision: tp / (tp + fp),
    recall: tp / (tp + fn),
    macroF1: f1s.reduce((a, b) => a + b, 0) / f1s.length,
    topicsPerRow: items.reduce((s, { got }) => s + got.length - 1, 0) / items.length,
    per,
    confusions,
    domains,
  };
}

const results = [];
for (const { name, judge } of judges) {
  const got = [];
  const started = process.hrtime.bigint();
  for (const [i, row] of rows.entries()) got.push((await judge(row.text, i)).categories);
  const us = Number(process.hrtime.bigint() - started) / 1000 / rows.length;
  results.push({ name, got });
  console.log(`${name}: ${us.toFixed(0)} µs per memory (the whole judge, the vector given)`);
}
if (process.env.BRAIN_JUDGE_URL) {
  const { createOfflineJudge, createProviderJudge } = await import("../../dist/service/models/judge/index.js");
  const provider = createProviderJudge(process.env, createOfflineJudge(), { warn: (m) => console.error(m) });
  const got = [];
  for (const row of rows) got.push((await provider.judge(row.text, NOW, null)).categories);
  results.push({ name: `provider ${process.env.BRAIN_JUDGE_MODEL ?? "gpt-4o-mini"}`, got });
} else {
  console.log("The OpenAI-compatible judge: not measured (BRAIN_JUDGE_URL is unset).");
}

const topicNames = [...new Set(rows.flatMap((r) => r.topics))].sort();
for (const split of args.split ? [args.split] : splits) {
  const picked = rows.map((row, i) => ({ row, i })).filter(({ row }) => row.split === split);
  const ms = results.map(({ name, got }) => ({ name, m: measure(picked.map(({ row, i }) => ({ row, got: got[i] }))) }));
  console.log(`\n## ${split} (${picked.length} memories)\n`);
  console.log("| judge | domain accuracy | topic micro-F1 | precision | recall | macro-F1 | topics per memory |");
  console.log("|---|---|---|---|---|---|---|");
  for (const { name, m } of ms) {
    console.log(
      `| ${name} | ${fmt(m.domainAccuracy)} | ${fmt(m.microF1)} | ${fmt(m.precision)} | ${fmt(m.recall)} | ${fmt(m.macroF1)} | ${m.topicsPerRow.toFixed(2)} |`,
    );
  }
  console.log(`\nPer topic, precision / recall (${ms.map((x) => x.name).join(" | ")}):\n`);
  console.log(`| topic | n | ${ms.map((x) => x.name).join(" | ")} |`);
  console.log(`|---|---|${ms.map(() => "---|").join("")}`);
  for (const t of topicNames) {
    const n = picked.filter(({ row }) => row.topics.includes(t)).length;
    const cells = ms.map(({ m }) => {
      const s = m.per.get(t) ?? { tp: 0, fp: 0, fn: 0 };
      return `${fmt(s.tp / (s.tp + s.fp))} / ${fmt(s.tp / (s.tp + s.fn))}`;
    });
    console.log(`| ${t} | ${n} | ${cells.join(" | ")} |`);
  }
  for (const { name, m } of ms) {
    const top = (map, k) =>
      [...map.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, k)
        .map(([c, v]) => `${c} ${v}`)
        .join(", ");
    console.log(`\n${name}: topic confusions (wanted→given; "-" none): ${top(m.confusions, 12) || "none"}`);
    console.log(`${name}: domain confusions (wanted→given): ${top(m.domains, 8) || "none"}`);
  }
  if (args.misses) {
    const last = results.at(-1);
    console.log(`\n${last.name} misses:`);
    for (const { row, i } of picked) {
      const [d, ...t] = last.got[i];
      if (d !== row.domain || t.join() !== row.topics.join())
        console.log(`- ${row.text} want ${row.domain} [${row.topics}] got ${d} [${t}]`);
    }
  }
}

if (args.sample) {
  // Every k-th row of the split (the last one the file holds unless --split names one), so the sample is fixed and
  // spread over the set.
  const sampled = args.split ?? splits.at(-1);
  const held = rows.map((row, i) => ({ row, i })).filter(({ row }) => row.split === sampled);
  console.log(`\nSample of ${args.sample} ${sampled} rows:`);
  const k = Math.max(1, Math.floor(held.length / Number(args.sample)));
  const last = results.at(-1);
  console.log(`\n| memory | labelled | ${last.name} |\n|---|---|---|`);
  const offset = Number(args.offset ?? 0);
  for (const { row, i } of held.filter((_, j) => j % k === offset % k).slice(0, Number(args.sample))) {
    const [d, ...t] = last.got[i];
    console.log(`| ${row.text} | ${row.domain}: ${row.topics.join(", ")} | ${d}: ${t.join(", ")} |`);
  }
}
