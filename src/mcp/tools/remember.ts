import { z } from "zod";
import { reservedKeyMessage, reservedKeyPath } from "../../contract/input-policy.js";
import { META_MAX_BYTES, TEXT_MAX_CHARS } from "../../contract/limits.js";
import { renderRemember } from "../render.js";
import { StoreResponseSchema } from "../../client/schemas.js";
import { defineTool } from "./tool.js";

const fields = z.object({
  text: z
    .string()
    .trim()
    .min(1, "text is empty")
    .max(TEXT_MAX_CHARS, `text is longer than ${TEXT_MAX_CHARS} characters`)
    .describe(`The fact to remember, as one self-contained sentence or short paragraph (at most ${TEXT_MAX_CHARS} characters).`),
  meta: z
    .record(z.string(), z.unknown())
    .refine((meta) => Buffer.byteLength(JSON.stringify(meta)) <= META_MAX_BYTES, `meta is larger than ${META_MAX_BYTES} bytes as JSON`)
    .optional()
    .describe(`Optional JSON object stored beside the memory (source, project, ...), at most ${META_MAX_BYTES} bytes.`),
});

// `__proto__` is refused before the fields are read: parsing into an object would drop it silently, and the REST API
// answers 422 for it, so the adapter and the CLI (which parse with this schema) say so and send nothing.
const input = z.preprocess((args, ctx) => {
  const where = reservedKeyPath(args);
  if (where !== null) ctx.issues.push({ code: "custom", message: reservedKeyMessage(where), input: args });
  return args;
}, fields);

export const remember = defineTool({
  base: "remember",
  title: "Remember",
  description:
    "Store a durable fact in long-term memory so it is available in later conversations: the user's preferences, " +
    "facts about the user, the project or its people, decisions and their reasons, commitments and deadlines. " +
    "Write it self-contained (names, not pronouns). The service detects duplicates and merges them, rates importance, " +
    "marks time-bound facts and files categories. Never store secrets or personal identifiers (passwords, API keys, " +
    "card or account numbers, government IDs): the service rejects them. Do not store small talk or passing details.",
  inputSchema: input,
  outputSchema: StoreResponseSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  call: (client, args, opts) => client.memory.store(args.text, args.meta, opts),
  render: renderRemember,
});
