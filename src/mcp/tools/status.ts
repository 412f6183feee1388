import { z } from "zod";
import { renderStatus } from "../render.js";
import { StatusResponseSchema } from "../../client/schemas.js";
import { defineTool } from "./tool.js";

export const status = defineTool({
  base: "status",
  title: "Memory status",
  description:
    "Show which memory workspace this server uses and whether it works: workspace name and state (active, " +
    "suspended, limit reached, deleted), plan, key prefix, number of memories and the service's health. Use it when " +
    "remembering or recalling fails, or when asked which memory is connected; it changes nothing.",
  inputSchema: z.object({}),
  outputSchema: StatusResponseSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (client, _args, opts) => client.status(opts),
  render: renderStatus,
});
