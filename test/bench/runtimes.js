// ONNX Runtime for Node (native, onnxruntime-node) against ONNX Runtime Web (WebAssembly, onnxruntime-web) on the
// shipped model: load time, one short text, one long text (160 tokens), a batch of 32 short texts, resident set.
// Each runtime runs in its own child process, alternately, so both see the same machine load.
// Usage: npm install --no-save onnxruntime-web@1.30.0 && node test/bench/runtimes.js [rounds]
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const MODEL_DIR = fileURLToPath(new URL("../../src/service/models/embed/data/minilm/", import.meta.url));

async function child(runtime) {
  const { readFileSync } = await import("node:fs");
  const { Tokenizer } = await import("@huggingface/tokenizers");
  const ort = runtime === "node" ? await import("onnxruntime-node") : await import("onnxruntime-web");
  if (runtime === "web") ort.env.wasm.numThreads = 1;
  const read = (name) => JSON.parse(readFileSync(MODEL_DIR + name, "utf8"));
  const tokenizer = new Tokenizer(read("tokenizer.json"), read("tokenizer_config.json"));
  const started = performance.now();
  const model = runtime === "node" ? MODEL_DIR + "model.onnx" : readFileSync(MODEL_DIR + "model.onnx");
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: "all" });
  const loadMs = performance.now() - started;
  const feeds = (texts) => {
    const rows = texts.map((t) => tokenizer.encode(t).ids);
    const width = Math.max(...rows.map((r) => r.length));
    const ids = new BigInt64Array(rows.length * width);
    const mask = new BigInt64Array(rows.length * width);
    rows.forEach((r, i) => r.forEach((id, j) => ((ids[i * width + j] = BigInt(id)), (mask[i * width + j] = 1n))));
    const shape = [rows.length, width];
    return {
      input_ids: new ort.Tensor("int64", ids, shape),
      attention_mask: new ort.Tensor("int64", mask, shape),
      token_type_ids: new ort.Tensor("int64", new BigInt64Array(rows.length * width), shape),
    };
  };
  const short = "Maria Lopez is our contact at Northwind.";
  const long =
    "The deployment pipeline for the payments service runs on GitHub Actions; every merge to main builds a container, runs the integration suite against a throwaway PostgreSQL, pushes the image to the registry and rolls it out to staging, and a manual approval promotes it to production on Tuesdays and Thursdays after the change advisory board has reviewed the release notes and the rollback plan.".repeat(
      2,
    );
  const out = { runtime, loadMs: Math.round(loadMs) };
  for (const [name, texts, n] of [
    ["short", [short], 60],
    ["long", [long], 20],
    ["batch32", Array.from({ length: 32 }, (_, i) => `${short} ${i}`), 8],
  ]) {
    for (let i = 0; i < 2; i++) await session.run(feeds(texts));
    const times = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await session.run(feeds(texts));
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    out[name] = { p50: +times[times.length >> 1].toFixed(2), max: +times[times.length - 1].toFixed(2) };
  }
  out.rssMB = Math.round(process.memoryUsage().rss / 1e6);
  process.stdout.write(JSON.stringify(out) + "\n");
}

if (process.argv[2] === "--child") {
  await child(process.argv[3]);
} else {
  const rounds = Number(process.argv[2] ?? 2);
  for (let r = 0; r < rounds; r++) {
    for (const runtime of ["node", "web"]) {
      const res = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", runtime], { encoding: "utf8" });
      process.stdout.write(res.stdout || `${runtime}: ${res.stderr.split("\n").slice(0, 3).join(" ")}\n`);
    }
  }
}
