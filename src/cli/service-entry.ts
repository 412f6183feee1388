// The service package's entry (brain-mcp-service): the commands that need the memory service, and its version,
// which must equal the adapter's. The adapter package reaches these only through ./service.ts.
export { runServe } from "./serve.js";
export { runAdmin } from "./admin.js";
export { runUi } from "./ui.js";
export { startEmbedded } from "../service/embedded.js";
export { VERSION } from "../version.js";
