// Strict request validation: every failure is 422 with a message that names the field (and `param`), never the
// value. Rejected text is never echoed.
import { reservedKeyPath } from "../../contract/input-policy.js";
import { z } from "zod";
import {
  IDEMPOTENCY_KEY_MAX_CHARS,
  META_MAX_BYTES,
  META_MAX_DEPTH,
  META_MAX_KEYS,
  MIN_SCORE_DEFAULT,
  MIN_SCORE_MAX,
  MIN_SCORE_MIN,
  QUERY_MAX_CHARS,
  QUERY_MIN_CHARS,
  TEXT_MAX_CHARS,
  TEXT_MIN_CHARS,
  TOP_K_DEFAULT,
  TOP_K_MAX,
  TOP_K_MIN,
} from "../../contract/limits.js";
import type { RetrieveInput, ServiceError, StoreInput } from "../types.js";
import { serviceError } from "./errors.js";

const n = (value: number) => value.toLocaleString("en-US");

/** What each field must be, in the words every message about it uses. */
const FIELD_RULES: Record<string, string> = {
  text: `\`text\` must be a string of ${n(TEXT_MIN_CHARS)} to ${n(TEXT_MAX_CHARS)} characters (after trimming)`,
  meta: `\`meta\` must be a JSON object of at most ${META_MAX_BYTES / 1024} KiB`,
  query: `\`query\` must be a string of ${n(QUERY_MIN_CHARS)} to ${n(QUERY_MAX_CHARS)} characters`,
  top_k: `\`top_k\` must be an integer from ${TOP_K_MIN} to ${TOP_K_MAX}`,
  min_score: `\`min_score\` must be a number from ${MIN_SCORE_MIN} to ${MIN_SCORE_MAX}`,
};

const storeShape = z.strictObject({
  text: z.string(),
  meta: z.record(z.string(), z.unknown()).optional(),
});

const retrieveShape = z.strictObject({
  query: z.string(),
  top_k: z.number().int().min(TOP_K_MIN).max(TOP_K_MAX).optional(),
  min_score: z.number().min(MIN_SCORE_MIN).max(MIN_SCORE_MAX).optional(),
});

/** NUL and the other C0 controls but tab, newline and carriage return, and DEL: never part of a memory. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/**
 * The one input policy, the same on every store: text is valid Unicode (no lone UTF-16 surrogate, which JSON's
 * `\ud800` escapes can carry) without control characters but tab, newline and carriage return.
 */
function checkText(field: string, value: string): void {
  if (!value.isWellFormed()) {
    throw invalid(field, `\`${field}\` is not valid Unicode (it holds an unpaired surrogate); send UTF-8 text.`);
  }
  if (CONTROL.test(value)) {
    throw invalid(field, `\`${field}\` holds a control character (NUL or another); only tab, newline and carriage return are allowed.`);
  }
}

/** Every key and string value of meta obeys the text policy; depth and key count are bounded. */
function checkMeta(meta: Record<string, unknown>): void {
  let keys = 0;
  const walk = (value: unknown, depth: number): void => {
    if (typeof value === "string") {
      checkText("meta", value);
      return;
    }
    if (value === null || typeof value !== "object") return;
    if (depth > META_MAX_DEPTH) {
      throw invalid("meta", `\`meta\` is nested more than ${META_MAX_DEPTH} levels deep; flatten it.`);
    }
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1);
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      if (++keys > META_MAX_KEYS) throw invalid("meta", `\`meta\` has more than ${META_MAX_KEYS} keys; keep it small.`);
      checkText("meta", key);
      walk(child, depth + 1);
    }
  };
  walk(meta, 1);
}

/**
 * `__proto__` as a meta key is refused, at any depth: JSON.parse keeps it as a key, but JavaScript objects treat it as
 * their prototype, so the key would be dropped (or worse) on its way to the store rather than kept.
 */
export function checkNoProtoKey(meta: unknown): void {
  if (reservedKeyPath(meta) !== null) {
    throw invalid("meta", "`meta` holds the key `__proto__`, which JavaScript objects reserve; rename the key.");
  }
}

function invalid(param: string | undefined, message: string): ServiceError {
  return serviceError("invalid_request", message, param === undefined ? {} : { param });
}

function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalid(undefined, "The request body must be a JSON object.");
  }
  return body as Record<string, unknown>;
}

/** The first problem zod found, as a sentence about the field. */
function firstIssue(error: z.ZodError, body: Record<string, unknown>, accepted: readonly string[]): ServiceError {
  const issue = error.issues[0]!;
  if (issue.code === "unrecognized_keys") {
    const field = issue.keys[0]!;
    const list = accepted.map((name) => `\`${name}\``).join(", ");
    return invalid(field, `Unknown field \`${field}\`; this operation accepts only ${list}.`);
  }
  const field = String(issue.path[0] ?? "");
  const rule = FIELD_RULES[field] ?? `\`${field}\` is not valid`;
  if (!(field in body)) return invalid(field, `\`${field}\` is required: ${rule}.`);
  return invalid(field, `${rule[0]!.toUpperCase()}${rule.slice(1)}.`);
}

export function parseStoreRequest(raw: unknown): StoreInput {
  const body = requireObject(raw);
  // The most common mistake from other memory APIs: point at the right field.
  if ("content" in body && !("text" in body)) {
    throw invalid("text", "Unknown field `content`: the memory goes in `text` (a string of 1 to 8,000 characters).");
  }
  checkNoProtoKey(body.meta);
  const parsed = storeShape.safeParse(body);
  if (!parsed.success) throw firstIssue(parsed.error, body, ["text", "meta"]);
  checkText("text", parsed.data.text);
  const text = parsed.data.text.trim();
  if (text.length < TEXT_MIN_CHARS) throw invalid("text", "`text` is empty; send the memory as a non-empty string.");
  if (text.length > TEXT_MAX_CHARS) {
    throw serviceError("text_too_long", `\`text\` is longer than ${n(TEXT_MAX_CHARS)} characters; split it or shorten it.`, {
      param: "text",
    });
  }
  const meta = parsed.data.meta ?? {};
  checkMeta(meta);
  if (Buffer.byteLength(JSON.stringify(meta), "utf8") > META_MAX_BYTES) {
    throw invalid("meta", `\`meta\` is larger than ${META_MAX_BYTES / 1024} KiB when serialized; keep it small.`);
  }
  return { text, meta };
}

export function parseRetrieveRequest(raw: unknown): RetrieveInput {
  const body = requireObject(raw);
  const parsed = retrieveShape.safeParse(body);
  if (!parsed.success) throw firstIssue(parsed.error, body, ["query", "top_k", "min_score"]);
  checkText("query", parsed.data.query);
  const query = parsed.data.query.trim();
  if (query.length < QUERY_MIN_CHARS || query.length > QUERY_MAX_CHARS) {
    throw invalid("query", `${FIELD_RULES.query![0]!.toUpperCase()}${FIELD_RULES.query!.slice(1)}.`);
  }
  return {
    query,
    top_k: parsed.data.top_k ?? TOP_K_DEFAULT,
    min_score: parsed.data.min_score ?? MIN_SCORE_DEFAULT,
  };
}

const IDEMPOTENCY_KEY = /^[\x20-\x7E]+$/;

/** The optional `Idempotency-Key` header: 1..255 printable ASCII characters. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = header.trim();
  if (key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX_CHARS || !IDEMPOTENCY_KEY.test(key)) {
    throw invalid(
      "Idempotency-Key",
      `The \`Idempotency-Key\` header must be 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters.`,
    );
  }
  return key;
}
