#!/usr/bin/env node
// A registry as npm sees one, for the packed tarballs given: their packuments and tarballs from here, every other
// package proxied from the upstream registry. It lets CI install `brain-mcp-service` by name, so npm resolves its
// `brain-mcp` dependency the way it does for a user (issue 29), not from tarballs given on the command line.
// Hand-written (about 60 lines) rather than verdaccio: that is a server with ~100 packages to fetch on every CI run,
// and this one only has to answer GET for two names.
//   node .ci/tiny-registry.mjs UPSTREAM TARBALL...   prints "http://127.0.0.1:PORT/" once listening
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { basename } from "node:path";

const [upstream, ...tarballs] = process.argv.slice(2);
if (!upstream || tarballs.length === 0) {
  console.error("usage: node .ci/tiny-registry.mjs UPSTREAM_REGISTRY TARBALL...");
  process.exit(2);
}
/** Each upstream request gets this long (the registry is another system). */
const UPSTREAM_TIMEOUT_MS = 60_000;
const packages = new Map(); // name → { manifest, file, bytes }
for (const path of tarballs) {
  const manifest = JSON.parse(execFileSync("tar", ["-xzOf", path, "package/package.json"], { encoding: "utf8" }));
  const bytes = readFileSync(path);
  packages.set(manifest.name, { manifest, file: basename(path), bytes });
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", "http://registry");
  const name = decodeURIComponent(url.pathname.slice(1));
  const own = packages.get(name);
  if (req.method === "GET" && own) {
    const { manifest, file, bytes } = own;
    const dist = {
      tarball: `http://${req.headers.host}/${manifest.name}/-/${file}`,
      integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
      shasum: createHash("sha1").update(bytes).digest("hex"),
    };
    const version = { ...manifest, _id: `${manifest.name}@${manifest.version}`, dist };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ name: manifest.name, "dist-tags": { latest: manifest.version }, versions: { [manifest.version]: version } }));
    return;
  }
  const tarball = [...packages.values()].find((p) => url.pathname === `/${p.manifest.name}/-/${p.file}`);
  if (req.method === "GET" && tarball) {
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": tarball.bytes.length });
    res.end(tarball.bytes);
    return;
  }
  try {
    const answer = await fetch(new URL(url.pathname.slice(1) + url.search, upstream), {
      headers: { accept: req.headers.accept ?? "application/json" },
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
    });
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    res.end(Buffer.from(await answer.arrayBuffer()));
  } catch (error) {
    res.writeHead(502, { "content-type": "text/plain" });
    res.end(`upstream ${upstream}: ${error.message}`);
  }
});
server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${server.address().port}/`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
