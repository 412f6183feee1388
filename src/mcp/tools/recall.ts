import { z } from "zod";
import {
  MIN_SCORE_DEFAULT,
  MIN_SCORE_MAX,
  MIN_SCORE_MIN,
  QUERY_MAX_CHARS,
  TOP_K_DEFAULT,
  TOP_K_MAX,
  TOP_K_MIN,
} from "../../contract/limits.js";
import { renderRecall } from "../render.js";
import { RetrieveResponseSchema } from "../../client/schemas.js";
import { defineTool } from "./tool.js";

const input = z.object({
  query: z
    .string()
    .trim()
    .min(1, "query is empty")
    .max(QUERY_MAX_CHARS, `query is longer than ${QUERY_MAX_CHARS} characters`)
    .describe("What to look for, in natural language (a question or the topic at hand)."),
  top_k: z
    .number()
    .int()
    .min(TOP_K_MIN)
    .max(TOP_K_MAX)
    .optional()
    .describe(`How many memories to return at most (${TOP_K_MIN}..${TOP_K_MAX}, default ${TOP_K_DEFAULT}).`),
  min_score: z
    .number()
    .min(MIN_SCORE_MIN)
    .max(MIN_SCORE_MAX)
    .optional()
    .describe(
      `Leave out memories scoring below this (${MIN_SCORE_MIN}..${MIN_SCORE_MAX}, default ${MIN_SCORE_DEFAULT}, which keeps answers ` +
        "and leaves out memories unrelated to the query; 0 returns every candidate).",
    ),
});

export const recall = defineTool({
  base: "recall",
  title: "Recall",
  description:
    "Search long-term memory for what was remembered before. Use it before answering anything about the user " +
    "(preferences, background, people), the project or past decisions, and whenever earlier context might help, " +
    "instead of guessing or asking again. Returns the best matches first with a score (0..1, how sure the match is; " +
    `below ${MIN_SCORE_DEFAULT} left out unless min_score says otherwise), or nothing when no memory is about the query; memories marked expired ` +
    "describe something that has ended.",
  inputSchema: input,
  outputSchema: RetrieveResponseSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (client, args, opts) => client.memory.retrieve(args.query, { topK: args.top_k, minScore: args.min_score }, opts),
  render: renderRecall,
});
