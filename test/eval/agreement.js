#!/usr/bin/env node
// How far two labellings of the same memories agree: node test/eval/agreement.js FIRST.json SECOND.json
// Rows are matched by text (category-labels.json's shape). Prints topic micro-F1 of SECOND against FIRST, domain
// agreement, and per-topic F1: the ceiling a judge measured on FIRST can be held to.
import { readFileSync } from "node:fs";

const [firstPath, secondPath] = process.argv.slice(2);
if (!firstPath || !secondPath) {
  console.error("usage: node test/eval/agreement.js FIRST.json SECOND.json");
  process.exit(2);
}
const read = (path) => JSON.parse(readFileSync(path, "utf8"));
const second = new Map(read(secondPath).map((row) => [row.text, row]));
let both = 0;
let onlyFirst = 0;
let onlySecond = 0;
let sameDomain = 0;
let sameTopics = 0;
let rows = 0;
const perTopic = new Map();
const count = (topic, key) => {
  const entry = perTopic.get(topic) ?? { first: 0, second: 0, both: 0 };
  entry[key] += 1;
  perTopic.set(topic, entry);
};
for (const row of read(firstPath)) {
  const other = second.get(row.text);
  if (!other) continue;
  rows += 1;
  const a = new Set(row.topics);
  const b = new Set(other.topics);
  for (const topic of a) {
    count(topic, "first");
    if (b.has(topic)) {
      both += 1;
      count(topic, "both");
    } else onlyFirst += 1;
  }
  for (const topic of b) {
    count(topic, "second");
    if (!a.has(topic)) onlySecond += 1;
  }
  if (row.domain === other.domain) sameDomain += 1;
  if (a.size === b.size && [...a].every((topic) => b.has(topic))) sameTopics += 1;
}
if (rows === 0) {
  console.error("no memory is in both files");
  process.exit(1);
}
const precision = both / (both + onlySecond);
const recall = both / (both + onlyFirst);
const f1 = (2 * precision * recall) / (precision + recall);
console.log(
  `${rows} memories in both: topic micro-F1 ${f1.toFixed(3)} (precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}), ` +
    `domain agreement ${(sameDomain / rows).toFixed(3)}, the same topics on ${sameTopics}`,
);
for (const [topic, c] of [...perTopic].sort(([x], [y]) => x.localeCompare(y))) {
  console.log(
    `${topic.padEnd(15)} first ${c.first}  second ${c.second}  both ${c.both}  F1 ${((2 * c.both) / (c.first + c.second)).toFixed(2)}`,
  );
}
