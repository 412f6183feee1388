// Dot products of one query against many rows, in WebAssembly SIMD (f32x4, two accumulators): retrieve scans every
// vector of a workspace, and plain JavaScript is about five times slower at it. Rows live in the kernel's memory so
// a scan copies nothing. Hand-assembled from this text format (kept here so it can be checked and changed):
//
//   (func (export "dots") (param $rows i32) (param $query i32) (param $out i32) (param $n i32) (param $strideBytes i32)
//     ;; for each row s < n: out[s] = Σ rows[s][k] · query[k], k stepping 8 floats (stride is a multiple of 8)
//     (local $s i32) (local $k i32) (local $row i32) (local $acc0 v128) (local $acc1 v128) ...)
//   (memory (export "memory") 1)

import { growMemory, instantiateScan, type RowScan, type WasmMemory } from "./wasm-kernel.js";

const DOTS_WASM_BASE64 =
  "AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcRAgRkb3RzAAAGbWVtb3J5AgAKyAEBxQECA38CeyAAIQcCQANAIAUgA08NAf0MAAAAAAAAAAAAAAAAAAAAACEI/QwAAAAAAAAAAAAAAAAAAAAAIQlBACEGA0AgCCAHIAZq/QAEACABIAZq/QAEAP3mAf3kASEIIAkgByAGav0ABBAgASAGav0ABBD95gH95AEhCSAGQSBqIgYgBEkNAAsgAiAFQQJ0aiAIIAn95AEhCCAI/R8AIAj9HwGSIAj9HwKSIAj9HwOSOAIAIAcgBGohByAFQQFqIQUMAAsLCw==";

/** Floats per row: dimensions rounded up to a multiple of 8 (the kernel reads 8 floats per step). */
export function strideFor(dimensions: number): number {
  return Math.ceil(dimensions / 8) * 8;
}

/** A growable float store with a dot-product scan; WebAssembly SIMD where available, JavaScript otherwise. */
export class DotKernel {
  private memory: WasmMemory | null = null;
  private dots: RowScan | null = null;
  private plain: Float32Array | null = null;
  floats: Float32Array;

  constructor(initialFloats: number) {
    try {
      ({ memory: this.memory, scan: this.dots } = instantiateScan(DOTS_WASM_BASE64, "dots"));
      this.floats = new Float32Array(this.memory.buffer);
      this.ensure(initialFloats);
    } catch {
      // No SIMD in this runtime: the same layout in a plain array.
      this.memory = null;
      this.dots = null;
      this.plain = new Float32Array(Math.max(initialFloats, 1024));
      this.floats = this.plain;
    }
  }

  /** Makes room for at least `floats` floats; the view `floats` is replaced when it grows. */
  ensure(floats: number): void {
    if (floats <= this.floats.length) return;
    if (this.memory) {
      growMemory(this.memory, floats * 4);
      this.floats = new Float32Array(this.memory.buffer);
    } else {
      const grown = new Float32Array(Math.max(floats, this.floats.length * 2));
      grown.set(this.floats);
      this.plain = this.floats = grown;
    }
  }

  /**
   * out[s] = rows[s] · query for n rows of `stride` floats starting at float offset `rowsAt`; the query is written at
   * float offset `scratchAt` and the results follow it (the caller reserves stride + n floats there).
   */
  scan(rowsAt: number, n: number, stride: number, query: Float32Array, scratchAt: number): Float32Array {
    this.ensure(scratchAt + stride + n);
    const f = this.floats;
    f.fill(0, scratchAt, scratchAt + stride);
    f.set(query.subarray(0, stride), scratchAt);
    return this.scanPlaced(rowsAt, n, stride, scratchAt);
  }

  /** The same, with the query already at `scratchAt` (so many small scans share one copy of it). */
  scanPlaced(rowsAt: number, n: number, stride: number, scratchAt: number): Float32Array {
    this.ensure(scratchAt + stride + n);
    const f = this.floats;
    const outAt = scratchAt + stride;
    if (this.dots) {
      this.dots(rowsAt * 4, scratchAt * 4, outAt * 4, n, stride * 4);
    } else {
      for (let s = 0, base = rowsAt; s < n; s++, base += stride) {
        let acc = 0;
        for (let k = 0; k < stride; k++) acc += f[base + k]! * f[scratchAt + k]!;
        f[outAt + s] = acc;
      }
    }
    return f.subarray(outAt, outAt + n);
  }
}
