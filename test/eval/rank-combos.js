// Issue 30's third pass: combinations of the fusion's constants on the dump (test/eval/rank-replay.js); only those
// that keep the project set's dev rows (MRR@10 and answers kept at the default min_score no worse than shipped) are
// eligible, and each LoCoMo dev conversation is scored with the combination chosen on the other four.
//   node test/eval/rank-combos.js [--from /tmp/rank-dump]
import { parseArgs } from "node:util";
import { fmt, fuseWith, loadDump, measure, shippedFusion } from "./rank-replay.js";

const { values: args } = parseArgs({ options: { from: { type: "string", default: "/tmp/rank-dump" } } });
const dump = loadDump(args.from);
const shipped = shippedFusion;
const combos = [];
for (const share of [0.6, 0.65, 0.7])
  for (const whole of [0.9, 1.0, 1.1, 1.2])
    for (const sat of [4, 6, 8]) for (const dexp of [0.7, 0.85, 1]) combos.push({ ...shipped, share, whole, sat, dexp });
const base = measure(dump);
const rows = combos.map((p) => ({ p, m: measure(dump, { fuse: fuseWith(p) }) }));
const eligible = rows.filter(
  ({ m }) => m.project.mrr >= base.project.mrr - 1e-9 && Number(m.projectKept.split("/")[0]) >= Number(base.projectKept.split("/")[0]),
);
const key = ({ share, whole, sat, dexp }) => `share ${share} whole ${whole} sat ${sat} dexp ${dexp}`;
console.log(`shipped: LoCoMo ${fmt(base.locomo)} | project MRR ${base.project.mrr.toFixed(3)} kept ${base.projectKept}`);
console.log(`${eligible.length} of ${rows.length} combinations keep the project set's dev rows; the best ten on LoCoMo (R@5 + MRR@10):`);
for (const { p, m } of [...eligible].sort((a, b) => b.m.locomo.r5 + b.m.locomo.mrr - a.m.locomo.r5 - a.m.locomo.mrr).slice(0, 10))
  console.log(`  ${key(p)}: LoCoMo ${fmt(m.locomo)} | project MRR ${m.project.mrr.toFixed(3)} kept ${m.projectKept}`);
const convs = Object.keys(base.per);
let r5 = 0,
  mrr = 0,
  n = 0;
for (const held of convs) {
  const others = convs.filter((c) => c !== held);
  const s = (m) => others.reduce((t, c) => t + (m.per[c].r5 + m.per[c].mrr) * m.per[c].n, 0);
  const best = [...eligible].sort((a, b) => s(b.m) - s(a.m))[0];
  const h = best.m.per[held];
  const b = base.per[held];
  r5 += h.r5 * h.n;
  mrr += h.mrr * h.n;
  n += h.n;
  console.log(
    `  fold ${held}: chosen ${key(best.p)} → R@5 ${b.r5.toFixed(3)} → ${h.r5.toFixed(3)}, MRR ${b.mrr.toFixed(3)} → ${h.mrr.toFixed(3)}`,
  );
}
console.log(
  `leave-one-conversation-out, pooled: R@5 ${(r5 / n).toFixed(3)} MRR ${(mrr / n).toFixed(3)} (shipped ${base.locomo.r5.toFixed(3)} / ${base.locomo.mrr.toFixed(3)})`,
);
