// The layering of the code (docs/decisions.md, issue 29), checked by `npm run lint:deps` and in CI: the pipeline's
// stages and the stores know no HTTP request, the adapter and the client never load the service, and no file imports
// its own importer. Type-only imports count: they tie the files' meanings together as much as runtime ones.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Files that import each other, directly or through others: one of them belongs in another room.",
      from: {},
      to: { circular: true },
    },
    {
      name: "stages-and-storage-know-no-http",
      severity: "error",
      comment: "The pipeline and the stores reach the HTTP layer neither directly nor through other files.",
      from: { path: "^src/service/(pipeline|store)/" },
      to: { path: "^src/service/http/", reachable: true },
    },
    {
      name: "adapter-and-client-never-load-the-service",
      severity: "error",
      comment: "The adapter package ships without the service (it stays light): src/mcp and src/client never import it.",
      from: { path: "^src/(mcp|client)/" },
      to: { path: "^src/service/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^src/ui/" },
  },
};
