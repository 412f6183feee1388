// Integer dot products of one int8 row against many, in WebAssembly SIMD: the vector index scans every memory of a
// workspace, and int8 rows move a quarter of the bytes float rows do (the scan is memory-bandwidth bound). Exact
// float cosines are recomputed for the few candidates the scan cannot rule out (./vector-index.ts).
// Hand-assembled (no toolchain needed at build time) from this text format, kept here so it can be checked:
//
//   (func (export "dots8") (param $rows i32) (param $query i32) (param $out i32) (param $n i32) (param $strideBytes i32)
//     ;; for each row s < n: out[s] = Σ rows[s][k] · query[k] as i32; k steps 32 bytes (stride is a multiple of 32):
//     ;; two v128 loads per side, i16x8.extend_{low,high}_i8x16_s, i32x4.dot_i16x8_s, two i32x4 accumulators
//     (local $s i32) (local $k i32) (local $row i32) (local $acc0 v128) (local $acc1 v128) (local $a v128) (local $b v128) ...)
//   (memory (export "memory") 1)

import { growMemory, instantiateScan, type RowScan, type WasmMemory } from "./wasm-kernel.js";

const DOTS8_WASM_BASE64 =
  "AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcSAgVkb3RzOAAABm1lbW9yeQIACoICAf8BAgN/BHsgACEHAkADQCAFIANPDQH9DAAAAAAAAAAAAAAAAAAAAAAhCP0MAAAAAAAAAAAAAAAAAAAAACEJQQAhBgNAIAcgBmr9AAAAIQogASAGav0AAAAhCyAIIAr9hwEgC/2HAf26Af2uASAK/YgBIAv9iAH9ugH9rgEhCCAHIAZq/QAAECEKIAEgBmr9AAAQIQsgCSAK/YcBIAv9hwH9ugH9rgEgCv2IASAL/YgB/boB/a4BIQkgBkEgaiIGIARJDQALIAIgBUECdGogCCAJ/a4BIgj9GwAgCP0bAWogCP0bAmogCP0bA2o2AgAgByAEaiEHIAVBAWohBQwACwsL";

/** Bytes per int8 row: dimensions rounded up to a multiple of 32 (the kernel reads 32 bytes per step). */
export function codeStrideFor(dimensions: number): number {
  return Math.ceil(dimensions / 32) * 32;
}

type Dots8 = RowScan;

const INT8_MAX = 127;

/** A vector as int8 codes with one scale (max |value| / 127): value ≈ scale · code, |error| ≤ scale / 2. */
export function quantize(vector: Float32Array, dimensions: number, into: Int8Array, at: number): { scale: number; codeL1: number } {
  // Branch-free loops: signs are random, so branches would mispredict (this runs for every row of an index build).
  let max = 0;
  for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(vector[d]!));
  if (max === 0) return { scale: 0, codeL1: 0 };
  const inverse = INT8_MAX / max;
  let codeL1 = 0;
  for (let d = 0; d < dimensions; d++) {
    // Rounds to nearest by truncating a positive number: |x| <= 127, so x + 128.5 > 0.
    const code = ((vector[d]! * inverse + 128.5) | 0) - 128;
    into[at + d] = code;
    codeL1 += Math.abs(code);
  }
  return { scale: max / INT8_MAX, codeL1 };
}

/** Bytes before the codes in a stored code row: the scale, a little-endian float64 (the bound needs it exact). */
export const CODES_HEADER_BYTES = 8;

/**
 * A vector's int8 codes as the stores keep them beside its floats (issue 27), so an index loads a quarter of the
 * bytes and quantizes nothing: [scale: float64 LE][one int8 code per dimension]. Exactly what the index computes.
 */
export function vectorCodes(vector: Float32Array): Buffer {
  const out = Buffer.alloc(CODES_HEADER_BYTES + vector.length);
  const codes = new Int8Array(out.buffer, out.byteOffset + CODES_HEADER_BYTES, vector.length);
  out.writeDoubleLE(quantize(vector, vector.length, codes, 0).scale, 0);
  return out;
}

/** A growable byte store of int8 rows with an integer dot-product scan; WebAssembly SIMD where available. */
export class Int8Kernel {
  private memory: WasmMemory | null = null;
  private dots: Dots8 | null = null;
  bytes: Int8Array;

  constructor(initialBytes: number) {
    try {
      ({ memory: this.memory, scan: this.dots } = instantiateScan(DOTS8_WASM_BASE64, "dots8"));
      this.bytes = new Int8Array(this.memory.buffer);
    } catch {
      // No SIMD in this runtime: the same layout in a plain array.
      this.memory = null;
      this.dots = null;
      this.bytes = new Int8Array(1024);
    }
    this.ensure(initialBytes);
  }

  /** Makes room for at least `bytes` bytes (plus the scan's scratch); the view `bytes` is replaced when it grows. */
  ensure(bytes: number): void {
    if (bytes <= this.bytes.length) return;
    if (this.memory) {
      growMemory(this.memory, bytes);
      this.bytes = new Int8Array(this.memory.buffer);
    } else {
      const grown = new Int8Array(Math.max(bytes, this.bytes.length * 2));
      grown.set(this.bytes);
      this.bytes = grown;
    }
  }

  /**
   * out[s] = rows[s] · query (integers) for n rows of `stride` bytes starting at byte `rowsAt`, the query being the
   * `stride` bytes at `queryAt`; results go to the 4-aligned scratch at `outAt` (the caller reserved 4·n bytes).
   * A view: valid until the kernel grows.
   */
  scan(rowsAt: number, n: number, stride: number, queryAt: number, outAt: number): Int32Array {
    if (this.dots) {
      this.dots(rowsAt, queryAt, outAt, n, stride);
      return new Int32Array(this.bytes.buffer, outAt, n);
    }
    const b = this.bytes;
    const out = new Int32Array(n);
    for (let s = 0, base = rowsAt; s < n; s++, base += stride) {
      let acc = 0;
      for (let k = 0; k < stride; k++) acc += b[base + k]! * b[queryAt + k]!;
      out[s] = acc;
    }
    return out;
  }
}
