// The OpenAI-compatible judge (DESIGN.md "Models"): asks a chat model for the judgement as JSON, checks it
// against the contract, and falls back to the offline judge on any failure. Never logs the text or the key.
import { z } from "zod";
import { IMPORTANCE_MAX, IMPORTANCE_MIN } from "../../../contract/limits.js";
import { DOMAINS, TOPICS, MAX_TOPICS, isValidCategoryList } from "../../../contract/taxonomy.js";
import type { Judge, Judgement } from "../types.js";

export interface JudgeProviderEnv {
  BRAIN_JUDGE_URL?: string;
  BRAIN_JUDGE_MODEL?: string;
  BRAIN_JUDGE_API_KEY?: string;
}

export interface ProviderJudgeOptions {
  /** Per request; the store waits at most this long before the offline judge answers instead. */
  timeoutMs?: number;
  /** Told why the provider was bypassed; never given the memory text or the key. */
  warn?: (message: string) => void;
  fetch?: typeof globalThis.fetch;
}

export const JUDGE_TIMEOUT_MS_DEFAULT = 10_000;
/** Used when BRAIN_JUDGE_URL is set without BRAIN_JUDGE_MODEL. */
export const JUDGE_MODEL_DEFAULT = "gpt-4o-mini";

const WEEKDAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

const SYSTEM_PROMPT = [
  "You classify one memory that an AI agent stores about its user or its work. Answer with one JSON object and nothing else:",
  '{"importance": <integer 1-10>, "temporal": {"type": "persistent" | "time_bound", "valid_until": <ISO 8601 UTC "YYYY-MM-DDTHH:MM:SSZ" or null>}, "categories": [<domain>, <topic>, ...]}',
  "importance: how costly forgetting it would be. 1-3 chit-chat, trivia, passing states; 4-6 ordinary facts and preferences; 7-8 decisions, deadlines, commitments, explicit rules (always/never/must); 9-10 security, health, legal or money-critical facts.",
  "temporal: persistent for preferences, facts about people and projects, decisions, processes, recurring habits (valid_until null). time_bound when the text says it stops holding: a deadline, an absence, a state said to be current or temporary, an event on a date (valid_until = when it ends; a day ends at 23:59:59Z in UTC; compute it from the given current time).",
  `categories: exactly one domain first, one of ${DOMAINS.join(", ")}; then 1 to ${MAX_TOPICS} distinct topics, most relevant first, from ${TOPICS.join(", ")}. Use only these labels, lowercase.`,
].join("\n");

const answerSchema = z.object({
  importance: z.number().int().min(IMPORTANCE_MIN).max(IMPORTANCE_MAX),
  temporal: z.object({
    type: z.enum(["persistent", "time_bound"]),
    valid_until: z.string().nullable(),
  }),
  categories: z
    .array(z.string())
    .min(2)
    .max(1 + MAX_TOPICS),
});

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
});

class InvalidAnswer extends Error {}

function secondPrecision(d: Date): string {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Checks the model's JSON against the contract and normalizes it; throws InvalidAnswer otherwise. */
export function parseJudgeAnswer(content: string, now: Date): Judgement {
  const json = content
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new InvalidAnswer("the answer is not JSON");
  }
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success) throw new InvalidAnswer("the answer does not match the schema");
  const { importance, temporal } = parsed.data;
  const categories = parsed.data.categories.map((c) => c.trim().toLowerCase());
  if (!isValidCategoryList(categories)) throw new InvalidAnswer("the categories are not one domain then 1-3 distinct topics");
  if (temporal.type === "persistent") return { importance, temporal: { type: "persistent", valid_until: null }, categories };
  const until = temporal.valid_until === null ? NaN : Date.parse(temporal.valid_until);
  if (!Number.isFinite(until) || !/(?:Z|[+-]\d{2}:?\d{2})$/i.test(temporal.valid_until!)) {
    throw new InvalidAnswer("a time_bound answer needs a UTC valid_until");
  }
  if (until <= now.getTime()) throw new InvalidAnswer("valid_until is not in the future");
  return { importance, temporal: { type: "time_bound", valid_until: secondPrecision(new Date(until)) }, categories };
}

/** An OpenAI-compatible judge, or null when BRAIN_JUDGE_URL is unset. Falls back to `fallback` on any failure. */
export function createProviderJudge(env: JudgeProviderEnv, fallback: Judge, options: ProviderJudgeOptions = {}): Judge | null {
  const base = env.BRAIN_JUDGE_URL?.trim();
  if (!base) return null;
  const endpoint = `${base.replace(/\/+$/, "")}/chat/completions`;
  const model = env.BRAIN_JUDGE_MODEL?.trim() || JUDGE_MODEL_DEFAULT;
  const apiKey = env.BRAIN_JUDGE_API_KEY?.trim();
  const timeoutMs = options.timeoutMs ?? JUDGE_TIMEOUT_MS_DEFAULT;
  const doFetch = options.fetch ?? globalThis.fetch;
  const warn = options.warn ?? (() => {});

  async function ask(text: string, now: Date): Promise<Judgement> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const stamp = secondPrecision(now);
    const body = {
      model,
      temperature: 0,
      response_format: { type: "json_object" },
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: `Current time: ${stamp} (${WEEKDAY_NAMES[now.getUTCDay()]}).\nMemory:\n${text}` },
      ],
    };
    const response = await doFetch(endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`HTTP ${response.status}`);
    }
    const completion = completionSchema.safeParse(await response.json().catch(() => null));
    if (!completion.success) throw new InvalidAnswer("the response is not a chat completion");
    return parseJudgeAnswer(completion.data.choices[0]!.message.content, now);
  }

  return {
    id: `openai-compatible:${model}`,
    async load() {
      await fallback.load();
    },
    async judge(text, now, vector) {
      try {
        return await ask(text, now);
      } catch (error) {
        warn(`judge provider unavailable (${describe(error)}); the offline judge answered instead`);
        return fallback.judge(text, now, vector);
      }
    },
  };
}

/** A reason fit for a log line: the kind of failure, never the request or its text. */
function describe(error: unknown): string {
  if (error instanceof InvalidAnswer) return `invalid answer: ${error.message}`;
  if (error instanceof Error) {
    if (error.name === "TimeoutError" || error.name === "AbortError") return "timed out";
    if (/^HTTP \d{3}$/.test(error.message)) return error.message;
    return `network error: ${error.name}`;
  }
  return "unknown error";
}
