// Dense vectors from the service's own offline embedders (dist/, in-process), cached under the temp folder by the
// embedder's id and the texts' hash, so repeated runs and experiments embed each text once.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The offline embedder `kind` (semantic | hybrid | lexical) of the checkout at `repo` (after its build). */
export async function loadEmbedder(repo, kind = "semantic") {
  const module = await import(pathToFileURL(path.join(repo, "dist/service/models/embed/index.js")).href);
  const embedder = module.createOfflineEmbedder(kind);
  await embedder.load();
  return embedder;
}

/** Unit vectors of `texts` for `purpose`, from the cache when this embedder already embedded exactly these texts. */
export async function embedAll(embedder, texts, purpose = "document") {
  const key = createHash("sha256")
    .update(embedder.id)
    .update("\0" + purpose)
    .update(JSON.stringify(texts))
    .digest("hex")
    .slice(0, 24);
  const dir = path.join(os.tmpdir(), "locomo-dense-cache");
  const file = path.join(dir, `${key}.f32`);
  const d = embedder.dimensions;
  if (existsSync(file)) {
    const buffer = readFileSync(file);
    const all = new Float32Array(buffer.buffer, buffer.byteOffset, buffer.byteLength / 4);
    if (all.length === texts.length * d) return texts.map((_, i) => all.subarray(i * d, (i + 1) * d));
  }
  const vectors = [];
  for (let i = 0; i < texts.length; i += 64) vectors.push(...(await embedder.embed(texts.slice(i, i + 64), purpose)));
  const all = new Float32Array(texts.length * d);
  vectors.forEach((v, i) => all.set(v, i * d));
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, Buffer.from(all.buffer));
  return vectors;
}

/** Cosine of unit vectors: the dot product of each document with the query. */
export function cosines(query, documents) {
  const out = new Float64Array(documents.length);
  for (let i = 0; i < documents.length; i++) {
    const doc = documents[i];
    let dot = 0;
    for (let j = 0; j < query.length; j++) dot += query[j] * doc[j];
    out[i] = dot;
  }
  return out;
}
