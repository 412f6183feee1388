import { build } from "esbuild";
const external = ["./serve.js", "./admin.js", "../service/embedded.js"];
const r = await build({
  entryPoints: ["dist/cli/main.js"], bundle: true, platform: "node", format: "esm", minify: true,
  splitting: true, outdir: "/tmp/cs/out1", external, metafile: true, logLevel: "warning",
  banner: { js: "import{createRequire as __cr}from'module';const require=__cr(import.meta.url);" },
});
for (const [f, o] of Object.entries(r.metafile.outputs)) {
  const by = {};
  for (const [i, v] of Object.entries(o.inputs)) { const k = i.replace(/node_modules\/((@[^/]+\/)?[^/]+)\/.*/, "$1").replace(/^dist\/([^/]+)\/.*/, "dist/$1"); by[k] = (by[k] ?? 0) + v.bytesInOutput; }
  console.log(f.replace(/.*\//, ""), o.bytes, JSON.stringify(by), "imports:", o.imports.map(x => x.path.replace(/.*\//, "") + (x.kind === "dynamic-import" ? "(dyn)" : "")).join(","));
}
