// The query fast path: a static piece-embedding table distilled from USE-lite ahead of time (test/models/distill.js,
// the model2vec idea, fitted so that a text's mean piece vector approximates the full model's sentence vector).
// Stored as int8 with one scale per piece; shipped in ./data and copied to dist by the build.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { normalize } from "./lexical.js";

export const STATIC_TABLE_FILE = "use-lite-static.bin";
/** File layout: magic, version, rows, dims, then rows float32 scales, then rows·dims int8 values. */
export const STATIC_TABLE_MAGIC = 0x4c535442; // "BTSL"
export const STATIC_TABLE_VERSION = 1;

export interface StaticTable {
  readonly rows: number;
  readonly dimensions: number;
  /** Unit vector for a piece sequence: the mean of its pieces' rows. */
  embed(pieces: readonly number[]): Float32Array;
}

/** Where the table may be: beside the compiled module (dist), or in the source tree when running from a checkout. */
function candidates(): URL[] {
  return [
    new URL(`./data/${STATIC_TABLE_FILE}`, import.meta.url),
    new URL(`../../../../src/service/models/embed/data/${STATIC_TABLE_FILE}`, import.meta.url),
  ];
}

let loading: Promise<StaticTable | null> | null = null;

/** The table, or null when it is not shipped (queries then take the full model). */
export function loadStaticTable(): Promise<StaticTable | null> {
  loading ??= (async () => {
    for (const url of candidates()) {
      try {
        return decodeStaticTable(await readFile(fileURLToPath(url)));
      } catch {
        // try the next place
      }
    }
    return null;
  })();
  return loading;
}

export function decodeStaticTable(bytes: Uint8Array): StaticTable {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== STATIC_TABLE_MAGIC || view.getUint32(4, true) !== STATIC_TABLE_VERSION) {
    throw new Error("not a static table of this version");
  }
  const rows = view.getUint32(8, true);
  const dimensions = view.getUint32(12, true);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) scales[r] = view.getFloat32(16 + 4 * r, true);
  const values = new Int8Array(bytes.buffer, bytes.byteOffset + 16 + 4 * rows, rows * dimensions);
  return {
    rows,
    dimensions,
    embed(pieces) {
      return normalize(sumOfScaledRows(pieces, rows, dimensions, scales, values));
    },
  };
}

/** The sum of int8 table rows, each times its row's scale; rows outside the table are skipped. */
export function sumOfScaledRows(
  picked: Iterable<number>,
  rows: number,
  dimensions: number,
  scales: Float32Array,
  values: Int8Array,
): Float32Array {
  const out = new Float32Array(dimensions);
  for (const row of picked) {
    if (row < 0 || row >= rows) continue;
    const scale = scales[row]!;
    const base = row * dimensions;
    for (let d = 0; d < dimensions; d++) out[d]! += scale * values[base + d]!;
  }
  return out;
}

/** Packs float rows as int8 with a per-row scale (max |value| / 127). */
export function encodeStaticTable(table: Float32Array, rows: number, dimensions: number): Uint8Array {
  const bytes = new Uint8Array(16 + 4 * rows + rows * dimensions);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, STATIC_TABLE_MAGIC, true);
  view.setUint32(4, STATIC_TABLE_VERSION, true);
  view.setUint32(8, rows, true);
  view.setUint32(12, dimensions, true);
  const values = new Int8Array(bytes.buffer, 16 + 4 * rows, rows * dimensions);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(table[r * dimensions + d]!));
    const scale = max / 127 || 1;
    view.setFloat32(16 + 4 * r, scale, true);
    for (let d = 0; d < dimensions; d++) values[r * dimensions + d] = Math.round(table[r * dimensions + d]! / scale);
  }
  return bytes;
}
