// A vector index's rows as the stores keep them in chunks (issue 27: the first retrieve after a restart): each chunk
// is columns of many rows, so loading 100,000 memories is a few bulk reads and typed-array copies, not a record, a
// Buffer and a Map lookup per row. Layout, little-endian: [rows u32][dimensions u32], then rows × float64 each of ids,
// revs, scales and halfL1 (the row's share of the int8 error bound, ./vector-index.ts), then rows × dimensions int8
// codes.

/** Rows per stored chunk: about 1.7 MB at 384 dimensions, so a chunk is one transaction that does not hold writers long. */
export const SNAPSHOT_CHUNK_ROWS = 4_096;

const HEADER_BYTES = 8;
const COLUMNS = 4;

/** One chunk's columns, as views of its bytes (codes without padding: `dimensions` bytes per row). */
export interface SnapshotChunk {
  rows: number;
  ids: Float64Array;
  revs: Float64Array;
  scales: Float64Array;
  halfL1: Float64Array;
  codes: Int8Array;
}

/** A chunk of `rows` rows of `dimensions` codes, zeroed, whose columns the caller fills. */
export function newSnapshotChunk(rows: number, dimensions: number): { bytes: Uint8Array; chunk: SnapshotChunk } {
  const bytes = new Uint8Array(HEADER_BYTES + rows * (COLUMNS * 8 + dimensions));
  const header = new DataView(bytes.buffer);
  header.setUint32(0, rows, true);
  header.setUint32(4, dimensions, true);
  return { bytes, chunk: views(bytes, rows, dimensions) };
}

/** The columns of a stored chunk, or null when it is not a chunk of `dimensions` codes. */
export function readSnapshotChunk(stored: Uint8Array, dimensions: number): SnapshotChunk | null {
  if (stored.byteLength < HEADER_BYTES) return null;
  // Float64Array views need 8-byte alignment: a driver's Buffer may sit anywhere in a shared pool.
  const bytes = stored.byteOffset % 8 === 0 ? stored : new Uint8Array(stored); // a copy (Buffer's slice is a view)
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const rows = header.getUint32(0, true);
  if (header.getUint32(4, true) !== dimensions || bytes.byteLength !== HEADER_BYTES + rows * (COLUMNS * 8 + dimensions)) return null;
  return views(bytes, rows, dimensions);
}

function views(bytes: Uint8Array, rows: number, dimensions: number): SnapshotChunk {
  const column = (i: number) => new Float64Array(bytes.buffer, bytes.byteOffset + HEADER_BYTES + i * rows * 8, rows);
  return {
    rows,
    ids: column(0),
    revs: column(1),
    scales: column(2),
    halfL1: column(3),
    codes: new Int8Array(bytes.buffer, bytes.byteOffset + HEADER_BYTES + COLUMNS * rows * 8, rows * dimensions),
  };
}
