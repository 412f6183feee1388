// Worker entry: owns the offline embedder (the ONNX sentence model) so its milliseconds of CPU per text never block
// the service's event loop. Messages: {kind:"load"} and {kind:"embed", texts, purpose}, each with a call id.
import { parentPort, workerData } from "node:worker_threads";
import { createOfflineEmbedder, type OfflineEmbedderKind, type OfflineEmbedderOptions } from "./embed/index.js";

export interface EmbedWorkerData {
  kind: OfflineEmbedderKind;
  options: OfflineEmbedderOptions;
}
export type EmbedWorkerRequest =
  | { call: number; kind: "load" }
  | { call: number; kind: "embed"; texts: string[]; purpose: "document" | "query" };
export type EmbedWorkerReply =
  | { call: number; ok: true; vectors?: Float32Array[] }
  | { call: number; ok: false; name: string; message: string };

const port = parentPort!;
const { kind, options } = workerData as EmbedWorkerData;
const embedder = createOfflineEmbedder(kind, options);

/** Each vector gets a buffer of its own, so it can be transferred rather than copied. */
function ownBuffer(vector: Float32Array): Float32Array {
  return vector.byteOffset === 0 && vector.byteLength === vector.buffer.byteLength ? vector : vector.slice();
}

port.on("message", (request: EmbedWorkerRequest) => {
  const work = request.kind === "load" ? embedder.load().then(() => undefined) : embedder.embed(request.texts, request.purpose);
  work.then(
    (result) => {
      if (!result) return port.postMessage({ call: request.call, ok: true } satisfies EmbedWorkerReply);
      const vectors = result.map(ownBuffer);
      const buffers = [...new Set(vectors.map((v) => v.buffer as ArrayBuffer))];
      port.postMessage({ call: request.call, ok: true, vectors } satisfies EmbedWorkerReply, buffers);
    },
    (error: unknown) => {
      const e = error instanceof Error ? error : new Error(String(error));
      port.postMessage({ call: request.call, ok: false, name: e.name, message: e.message } satisfies EmbedWorkerReply);
    },
  );
});
