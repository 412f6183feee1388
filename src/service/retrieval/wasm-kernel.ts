// What the two hand-assembled SIMD kernels (./dot-kernel.ts, ./int8-kernel.ts) share: instantiating a module that
// exports one row-scan function and its memory, and growing that memory.

// The project's lib settings carry no WebAssembly types; this is the little it uses.
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
const wasmApi = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const PAGE_BYTES = 65_536;

/** For each row s < n: out[s] = row s · query (addresses and stride in bytes of the kernel's memory). */
export type RowScan = (rows: number, query: number, out: number, n: number, strideBytes: number) => void;

/** The module's memory and its scan export; throws where the runtime lacks WebAssembly (SIMD). */
export function instantiateScan(base64: string, exportName: string): { memory: WasmMemory; scan: RowScan } {
  if (!wasmApi) throw new Error("no WebAssembly");
  const instance = new wasmApi.Instance(new wasmApi.Module(Buffer.from(base64, "base64")));
  return { memory: instance.exports.memory as WasmMemory, scan: instance.exports[exportName] as RowScan };
}

/** Grows `memory` to hold at least `bytes`, at least doubling it (amortized growth). */
export function growMemory(memory: WasmMemory, bytes: number): void {
  const needPages = Math.ceil(bytes / PAGE_BYTES);
  const havePages = memory.buffer.byteLength / PAGE_BYTES;
  // A quarter more each time, not double: an index of 100,000 rows would otherwise hold up to twice its bytes.
  memory.grow(Math.max(needPages - havePages, Math.ceil(havePages / 4)));
}
