// The export file (`brain-mcp admin export` / `import`): JSON Lines, a header line then one memory per line.
// The README's "Export, import and backup" documents these names; this module is their one definition.
import { z } from "zod";
import { IMPORTANCE_MAX, IMPORTANCE_MIN } from "../../contract/limits.js";
import { isValidCategoryList } from "../../contract/taxonomy.js";
import { checkNoProtoKey, parseStoreRequest } from "../http/validation.js";
import type { MemoryRecord } from "../store/types.js";
import { ServiceError, type Workspace } from "../types.js";

/** The header's `format`: what tells an export file from any other JSON Lines file. */
export const EXPORT_FORMAT = "brain-mcp.export";
/** The newest version this build writes and reads; a file of a newer version is refused, never guessed at. */
export const EXPORT_VERSION = 1;

/** ISO 8601 UTC with milliseconds (`2026-11-25T01:27:16.123Z`): the store keeps milliseconds, and so does the file. */
const timestamp = z.iso.datetime({ precision: 3 });

/** Line 1. `memories` counts the lines that follow, so a file cut at a line boundary is still found truncated. */
export const headerLine = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  version: z.number().int().min(1),
  workspace: z.strictObject({
    id: z.number().int().positive(),
    name: z.string().min(1),
    plan: z.string().min(1),
    billing_cycle: z.string().min(1),
    status: z.enum(["active", "suspended", "limit_reached", "deleted"]),
  }),
  /** The embedder whose vectors the exported memories carry (the most common one), null for an empty workspace. */
  model: z.string().min(1).nullable(),
  exported_at: timestamp,
  memories: z.number().int().min(0),
});
export type HeaderLine = z.infer<typeof headerLine>;

export const memoryLine = z
  .strictObject({
    text: z.string(),
    meta: z.record(z.string(), z.unknown()),
    importance: z.number().int().min(IMPORTANCE_MIN).max(IMPORTANCE_MAX),
    categories: z.array(z.string()).refine(isValidCategoryList, "must be one domain then one to three topics"),
    temporal: z.strictObject({
      type: z.enum(["persistent", "time_bound"]),
      valid_until: timestamp.nullable(),
    }),
    access_count: z.number().int().min(0),
    last_accessed_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    /** With `--vectors`: the memory's vector (little-endian float32, base64) and the model that made it. */
    model: z.string().min(1).optional(),
    vector: z.base64().optional(),
  })
  .refine((m) => (m.temporal.type === "persistent") === (m.temporal.valid_until === null), {
    message: "a persistent memory has valid_until null, a time-bound one a timestamp",
    path: ["temporal", "valid_until"],
  })
  .refine((m) => (m.vector === undefined) === (m.model === undefined), {
    message: "vector and model go together",
    path: ["vector"],
  });
export type MemoryLine = z.infer<typeof memoryLine>;

/** What is wrong with one line of an export file; `line` counts from 1. The message never holds the memory's text. */
export class ExportLineError extends Error {
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(`line ${line}: ${problem}`);
    this.name = "ExportLineError";
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (at: string) => Date.parse(at);

export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

export function decodeVector(base64: string): Float32Array {
  const bytes = Buffer.from(base64, "base64");
  const copy = new Uint8Array(bytes.byteLength - (bytes.byteLength % 4));
  copy.set(bytes.subarray(0, copy.byteLength));
  return new Float32Array(copy.buffer);
}

export function toHeaderLine(workspace: Workspace, model: string | null, memories: number, nowMs: number): HeaderLine {
  const { id, name, plan, billing_cycle, status } = workspace;
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    workspace: { id, name, plan, billing_cycle, status },
    model,
    exported_at: iso(nowMs),
    memories,
  };
}

export function toMemoryLine(m: MemoryRecord, vector?: Float32Array): MemoryLine {
  return {
    text: m.text,
    meta: m.meta,
    importance: m.importance,
    categories: m.categories,
    temporal: { type: m.temporal_type, valid_until: m.valid_until === null ? null : iso(m.valid_until) },
    access_count: m.access_count,
    last_accessed_at: m.last_accessed_at === null ? null : iso(m.last_accessed_at),
    created_at: iso(m.created_at),
    updated_at: iso(m.updated_at),
    ...(vector ? { model: m.embedder_id, vector: encodeVector(vector) } : {}),
  };
}

/** A memory line's fields in the store's units (milliseconds). */
export function fromMemoryLine(m: MemoryLine) {
  return {
    text: m.text,
    meta: m.meta,
    importance: m.importance,
    categories: m.categories,
    temporal_type: m.temporal.type,
    valid_until: m.temporal.valid_until === null ? null : ms(m.temporal.valid_until),
    access_count: m.access_count,
    last_accessed_at: m.last_accessed_at === null ? null : ms(m.last_accessed_at),
    created_at: ms(m.created_at),
    updated_at: ms(m.updated_at),
  };
}

function parseJson(raw: string, line: number): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new ExportLineError(line, "not a complete JSON object (the file may be truncated or damaged)");
  }
}

/** Names the field zod found wrong, never the value (a rejected value may be a secret). */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  if (issue.code === "unrecognized_keys") return `unknown field \`${issue.keys[0]}\``;
  const path = issue.path.join(".");
  return path ? `\`${path}\` ${issue.message.replace(/^Invalid input: /, "")}` : issue.message;
}

/** A newer writer's header, named as such before its other fields are judged. */
function checkVersion(value: unknown, line: number): void {
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > EXPORT_VERSION) {
    throw new ExportLineError(
      line,
      `written in export format version ${version}; this brain-mcp reads up to version ${EXPORT_VERSION} (upgrade brain-mcp to import it)`,
    );
  }
}

const isHeaderShaped = (value: unknown) => typeof value === "object" && value !== null && "format" in value;

export function parseHeaderLine(raw: string): HeaderLine {
  const value = parseJson(raw, 1);
  if (!isHeaderShaped(value) || (value as { format: unknown }).format !== EXPORT_FORMAT) {
    throw new ExportLineError(1, `not a brain-mcp export: the first line must be the header ({"format":"${EXPORT_FORMAT}",...})`);
  }
  checkVersion(value, 1);
  const parsed = headerLine.safeParse(value);
  if (!parsed.success) throw new ExportLineError(1, `the header's ${describeIssue(parsed.error)}`);
  return parsed.data;
}

/** One memory line, checked against the same text and meta policy as a store request. */
export function parseMemoryLine(raw: string, line: number): MemoryLine {
  const value = parseJson(raw, line);
  if (isHeaderShaped(value)) {
    checkVersion(value, line);
    throw new ExportLineError(line, "a second header: import export files one at a time, not joined together");
  }
  try {
    checkNoProtoKey((value as { meta?: unknown } | null)?.meta); // before zod, which would drop it
  } catch (err) {
    if (err instanceof ServiceError) throw new ExportLineError(line, err.message);
    throw err;
  }
  const parsed = memoryLine.safeParse(value);
  if (!parsed.success) throw new ExportLineError(line, describeIssue(parsed.error));
  try {
    const checked = parseStoreRequest({ text: parsed.data.text, meta: parsed.data.meta });
    if (checked.text !== parsed.data.text) throw new ExportLineError(line, "`text` has leading or trailing whitespace");
  } catch (err) {
    if (err instanceof ServiceError) throw new ExportLineError(line, err.message);
    throw err;
  }
  return parsed.data;
}
