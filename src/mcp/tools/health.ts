import { z } from "zod";
import { renderHealth } from "../render.js";
import { HealthResponseSchema } from "../../client/schemas.js";
import { defineTool } from "./tool.js";

export const health = defineTool({
  base: "health",
  title: "Memory health",
  description:
    "Diagnose the quality of this workspace's memory: a quality score out of 100, counts of stale, duplicate, " +
    "overlong and never-retrieved memories, and recommendations. Use it when asked how the memory is doing or " +
    "before tidying it up; it changes nothing.",
  inputSchema: z.object({}),
  outputSchema: HealthResponseSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (client, _args, opts) => client.optimize.health(opts),
  render: renderHealth,
});
