// The genuineness test (test/models/minilm.test.ts) on the model runtime an installed brain-mcp-service picks: the
// same token ids as the original tokenizer and cosine >= 0.99 to the original sentence-transformers vector for each
// of the 50 reference sentences. Prints the runtime; with --expect native|wasm, fails on another.
// Usage (in a project where brain-mcp-service is installed): node genuine-installed.mjs REFERENCE_JSON [--expect native]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [referencePath, flag, expected] = process.argv.slice(2);
const embed = join(process.cwd(), "node_modules", "brain-mcp-service", "dist", "service", "models", "embed");
const load = (file) => import(pathToFileURL(join(embed, file)).href);
const [{ loadSentenceModel, embedWithModel }, { loadModelRuntime }] = await Promise.all([load("minilm.js"), load("runtime.js")]);
const fail = (message) => {
  console.error(`genuine-installed: FAIL: ${message}`);
  process.exit(1);
};

const runtime = await loadModelRuntime();
console.log(`genuine-installed: runtime ${runtime.name} (${runtime.source})`);
if (flag === "--expect" && runtime.name !== expected) fail(`the runtime is ${runtime.name}, not ${expected}`);

const { sentences } = JSON.parse(readFileSync(referencePath, "utf8"));
const model = await loadSentenceModel();
for (const s of sentences) {
  if (JSON.stringify(model.tokenize(s.text)) !== JSON.stringify(s.ids)) fail(`other token ids for ${JSON.stringify(s.text)}`);
}
const vectors = await embedWithModel(
  model,
  sentences.map((s) => s.text),
);
const cosine = (a, b) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return dot / Math.sqrt(na * nb);
};
const cosines = sentences.map((s, i) => cosine(vectors[i], s.vector));
const worst = Math.min(...cosines);
if (worst < 0.99) fail(`cosine ${worst.toFixed(4)} < 0.99 for ${JSON.stringify(sentences[cosines.indexOf(worst)].text)}`);
console.log(`genuine-installed: ${sentences.length} sentences, same token ids, cosine >= ${worst.toFixed(4)} (goal 0.99)`);
