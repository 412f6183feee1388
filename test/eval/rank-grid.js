// Issue 30's third pass: the fusion's constants, one at a time around the shipped values, on the dump
// (test/eval/rank-replay.js), with leave-one-conversation-out: for each LoCoMo dev conversation the value that does best
// (R@5 + MRR@10) on the other four is scored on it; the project set's dev rows beside.
//   node test/eval/rank-grid.js [--from /tmp/rank-dump] [--only NAME]
import { parseArgs } from "node:util";
import { fmt, fuseWith, loadDump, measure, shippedFusion } from "./rank-replay.js";

const { values: args } = parseArgs({ options: { from: { type: "string", default: "/tmp/rank-dump" }, only: { type: "string" } } });
const dump = loadDump(args.from);
const shipped = shippedFusion;
const grid = {
  share: [0.45, 0.5, 0.55, 0.6, 0.65, 0.7],
  sat: [2, 4, 6, 8, 12, 16],
  whole: [0.5, 0.7, 0.8, 0.9, 1.0, 1.2],
  dexp: [0.7, 1, 1.3, 1.6, 2],
  lexp: [0.5, 0.7, 1, 1.3, 1.6],
};
const score = (s) => s.r5 + s.mrr;
for (const [name, values] of Object.entries(grid)) {
  if (args.only && name !== args.only) continue;
  const results = values.map((v) => ({ v, m: measure(dump, { fuse: fuseWith({ ...shipped, [name]: v }) }) }));
  for (const { v, m } of results)
    console.log(
      `${name} ${String(v).padEnd(5)} LoCoMo ${fmt(m.locomo)} | project MRR ${m.project.mrr.toFixed(3)} kept ${m.projectKept} | per conv R@5/MRR ${Object.entries(
        m.per,
      )
        .map(([c, s]) => `${c} ${s.r5.toFixed(3)}/${s.mrr.toFixed(3)}`)
        .join(" ")}`,
    );
  // Leave one conversation out: choose on four (pooled ranks), score the fifth.
  const convs = Object.keys(results[0].m.per);
  const picks = convs.map((held) => {
    const best = results
      .map(({ v, m }) => {
        const others = convs.filter((c) => c !== held);
        const n = others.reduce((s, c) => s + m.per[c].n, 0);
        return { v, s: others.reduce((s, c) => s + score(m.per[c]) * m.per[c].n, 0) / n, held: m.per[held] };
      })
      .sort((a, b) => b.s - a.s)[0];
    const base = results.find((r) => r.v === shipped[name]).m.per[held];
    return `${held}: ${best.v} (R@5 ${(best.held.r5 - base.r5).toFixed(3)}, MRR ${(best.held.mrr - base.mrr).toFixed(3)})`;
  });
  console.log(`  LOCO ${name}: ${picks.join("; ")}`);
}
