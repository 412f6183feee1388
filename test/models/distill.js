// Distills USE-lite into a static piece-embedding table (the query fast path; the model2vec idea, fitted).
//
//   npm run build
//   apt-get download fortunes fortunes-min && for f in fortunes*.deb; do dpkg -x "$f" /tmp/fortunes; done
//   apt-cache dumpavail | awk '/^Description:/{sub(/^Description: /,""); print}' | sort -u > /tmp/pkgdesc.txt
//   node test/models/distill.js /tmp/fortunes/usr/share/games/fortunes /tmp/pkgdesc.txt
//
// 1. Every vocabulary piece is run through the model alone: the model2vec prior T0.
// 2. A corpus of real text (Debian's fortunes and package descriptions, all offline) is run through the model.
// 3. The table T is fitted so that the mean of a text's piece rows approximates the model's sentence vector:
//    min Σ_s ‖mean_{t∈s} T_t − y_s‖² + λ Σ_t ‖T_t − c·T0_t‖², solved by conjugate gradients for all columns at once.
// 4. Held-out texts measure the table against the full model; the table is written as int8 with per-row scales.
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadSentenceModel, embedWithModel } from "../../dist/service/models/embed/use-lite.js";
import { decodeStaticTable, encodeStaticTable, STATIC_TABLE_FILE } from "../../dist/service/models/embed/static-table.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(here, "../../src/service/models/embed/data", STATIC_TABLE_FILE);
const CACHE = process.env.DISTILL_CACHE ?? "/tmp/brain-distill-cache.bin";
const MAX_TEXTS = Number(process.env.DISTILL_TEXTS ?? 20000);
const LAMBDA = Number(process.env.DISTILL_LAMBDA ?? 0.02);
const ITERATIONS = Number(process.env.DISTILL_ITERATIONS ?? 60);
const DIMS = 512;

/** A deterministic shuffle (mulberry32), so the same corpus gives the same table. */
function shuffle(items, seed = 7) {
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

function corpusTexts(sources) {
  const texts = new Set();
  for (const source of sources) {
    const files = statSync(source).isDirectory()
      ? readdirSync(source).filter((f) => !/\.(dat|u8)$/.test(f) && !/art/.test(f)).map((f) => path.join(source, f))
      : [source];
    for (const file of files) {
      const raw = readFileSync(file, "latin1").replace(/.\x08/g, "");
      const passages = file.endsWith(".txt") ? raw.split("\n") : raw.split(/\n%\n/);
      for (const passage of passages) {
        const flat = passage.replace(/\s+/g, " ").trim();
        if (flat.length >= 12 && flat.length <= 300) texts.add(flat);
        for (const sentence of flat.split(/(?<=[.!?])\s+/)) if (sentence.length >= 12 && sentence.length <= 300) texts.add(sentence);
      }
    }
  }
  return shuffle([...texts]).slice(0, MAX_TEXTS);
}

async function embedAll(model, texts, label) {
  const out = new Float32Array(texts.length * DIMS);
  const started = performance.now();
  for (let i = 0; i < texts.length; i += 256) {
    const vectors = await embedWithModel(model, texts.slice(i, i + 256));
    vectors.forEach((v, k) => out.set(v, (i + k) * DIMS));
    if ((i / 256) % 10 === 0) console.error(`${label}: ${i + vectors.length}/${texts.length} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  return out;
}

const sources = process.argv.slice(2);
if (sources.length === 0) {
  console.error("usage: node test/models/distill.js <fortunes dir or text file>...");
  process.exit(2);
}
const model = await loadSentenceModel();
const rows = model.tokenizer.size;
const texts = corpusTexts(sources);
const pieces = texts.map((t) => model.tokenizer.encode(t).slice(0, 128));
const heldOut = Math.floor(texts.length * 0.1);
console.error(`corpus: ${texts.length} texts (${heldOut} held out), vocabulary ${rows}`);

let targets;
let prior;
if (existsSync(CACHE) && statSync(CACHE).size === (texts.length + rows) * DIMS * 4) {
  const cached = new Float32Array(readFileSync(CACHE).buffer.slice(0));
  targets = cached.subarray(0, texts.length * DIMS);
  prior = cached.subarray(texts.length * DIMS);
  console.error("model outputs read from cache");
} else {
  // The prior: each piece alone through the model (the first 6 are control symbols; they keep the unknown's vector).
  const priorVectors = await model.run(Array.from({ length: rows }, (_, id) => [id]));
  prior = new Float32Array(rows * DIMS);
  priorVectors.forEach((v, id) => {
    const norm = Math.hypot(...v) || 1;
    for (let d = 0; d < DIMS; d++) prior[id * DIMS + d] = v[d] / norm;
  });
  targets = await embedAll(model, texts, "corpus");
  const cache = new Float32Array((texts.length + rows) * DIMS);
  cache.set(targets, 0);
  cache.set(prior, texts.length * DIMS);
  writeFileSync(CACHE, Buffer.from(cache.buffer));
}

// The sparse design matrix of the training texts: each row is a text's piece counts divided by its length.
const train = texts.length - heldOut;
const rowStart = [0];
const cols = [];
const vals = [];
for (let s = heldOut; s < texts.length; s++) {
  const counts = new Map();
  for (const id of pieces[s]) counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const [id, c] of counts) (cols.push(id), vals.push(c / pieces[s].length));
  rowStart.push(cols.length);
}
const target = (s) => targets.subarray((heldOut + s) * DIMS, (heldOut + s + 1) * DIMS);

function multiplyA(X) {
  const out = new Float64Array(train * DIMS);
  for (let s = 0; s < train; s++) {
    for (let k = rowStart[s]; k < rowStart[s + 1]; k++) {
      const base = cols[k] * DIMS;
      const w = vals[k];
      for (let d = 0; d < DIMS; d++) out[s * DIMS + d] += w * X[base + d];
    }
  }
  return out;
}
function multiplyAt(Y) {
  const out = new Float64Array(rows * DIMS);
  for (let s = 0; s < train; s++) {
    for (let k = rowStart[s]; k < rowStart[s + 1]; k++) {
      const base = cols[k] * DIMS;
      const w = vals[k];
      for (let d = 0; d < DIMS; d++) out[base + d] += w * Y[s * DIMS + d];
    }
  }
  return out;
}
/** The normal-equations operator: (AᵀA + λI)X. */
const normal = (X) => {
  const out = multiplyAt(multiplyA(X));
  for (let i = 0; i < out.length; i++) out[i] += LAMBDA * X[i];
  return out;
};

// Scale the prior to the targets' scale (a mean of unit vectors is shorter than one).
const A0 = multiplyA(prior);
let num = 0;
let den = 0;
for (let s = 0; s < train; s++) {
  const y = target(s);
  for (let d = 0; d < DIMS; d++) (num += A0[s * DIMS + d] * y[d]), (den += A0[s * DIMS + d] ** 2);
}
const priorScale = num / den;
const scaledPrior = Float64Array.from(prior, (x) => x * priorScale);

const Y = new Float64Array(train * DIMS);
for (let s = 0; s < train; s++) Y.set(target(s), s * DIMS);
const B = multiplyAt(Y);
for (let i = 0; i < B.length; i++) B[i] += LAMBDA * scaledPrior[i];

// Conjugate gradients, one independent system per output dimension, run together.
const X = Float64Array.from(scaledPrior);
const MX = normal(X);
const R = B.map((b, i) => b - MX[i]);
const P = Float64Array.from(R);
const rr = new Float64Array(DIMS);
for (let i = 0; i < R.length; i++) rr[i % DIMS] += R[i] * R[i];
for (let iteration = 0; iteration < ITERATIONS; iteration++) {
  const MP = normal(P);
  const pMp = new Float64Array(DIMS);
  for (let i = 0; i < P.length; i++) pMp[i % DIMS] += P[i] * MP[i];
  const alpha = rr.map((r, d) => (pMp[d] > 0 ? r / pMp[d] : 0));
  const next = new Float64Array(DIMS);
  for (let i = 0; i < X.length; i++) {
    const d = i % DIMS;
    X[i] += alpha[d] * P[i];
    R[i] -= alpha[d] * MP[i];
    next[d] += R[i] * R[i];
  }
  for (let i = 0; i < P.length; i++) P[i] = R[i] + (rr[i % DIMS] > 0 ? next[i % DIMS] / rr[i % DIMS] : 0) * P[i];
  rr.set(next);
  if (iteration % 10 === 0) console.error(`cg ${iteration}: residual ${Math.sqrt(next.reduce((a, b) => a + b, 0)).toExponential(2)}`);
}

const bytes = encodeStaticTable(Float32Array.from(X), rows, DIMS);
mkdirSync(path.dirname(OUT), { recursive: true });
writeFileSync(OUT, bytes);

// Quality against the full model on held-out texts: cosine to the model's vector, and whether a text's static
// vector finds its own model vector first among all held-out texts (retrieval agreement).
const table = decodeStaticTable(bytes);
const priorOnly = { embed: (ids) => { const v = new Float32Array(DIMS); for (const id of ids) for (let d = 0; d < DIMS; d++) v[d] += prior[id * DIMS + d]; const n = Math.hypot(...v) || 1; return v.map((x) => x / n); } };
for (const [name, method] of [["fitted table (int8)", table], ["model2vec prior only", priorOnly]]) {
  let cosSum = 0;
  let top1 = 0;
  const statics = [];
  for (let s = 0; s < heldOut; s++) {
    const v = method.embed(pieces[s]);
    statics.push(v);
    const y = targets.subarray(s * DIMS, (s + 1) * DIMS);
    let c = 0;
    for (let d = 0; d < DIMS; d++) c += v[d] * y[d];
    cosSum += c;
  }
  for (let s = 0; s < heldOut; s++) {
    let best = -2;
    let bestIndex = -1;
    for (let o = 0; o < heldOut; o++) {
      const y = targets.subarray(o * DIMS, (o + 1) * DIMS);
      let c = 0;
      for (let d = 0; d < DIMS; d++) c += statics[s][d] * y[d];
      if (c > best) (best = c), (bestIndex = o);
    }
    if (bestIndex === s) top1++;
  }
  console.log(`${name}: held-out ${heldOut} texts, mean cosine to full model ${(cosSum / heldOut).toFixed(3)}, finds its own text first ${(top1 / heldOut).toFixed(3)}`);
}
console.log(`wrote ${OUT} (${bytes.length} bytes, ${rows} x ${DIMS}, lambda ${LAMBDA}, ${ITERATIONS} iterations)`);
