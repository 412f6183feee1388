// The four operations and the config commands for people and shell scripts.
// Same client, same tools and same rendering as the adapter; the exit code says whether it worked.

import { BrainError, CLIENT_ERROR_CODES } from "../client/errors.js";
import { Brain } from "../client/brain.js";
import { checkBaseURL, ConfigError, createLogger, loadConfig, readEnv, configFilePath, writeConfigFile } from "../config/index.js";
import { apiKeyProblem } from "../contract/input-policy.js";
import { MIN_SCORE_MAX, MIN_SCORE_MIN, TOP_K_MAX, TOP_K_MIN } from "../contract/limits.js";
import { renderError } from "../mcp/render-error.js";
import { TOOLS, type Tool } from "../mcp/tools/index.js";
import type { ServiceCommands } from "./service.js";

/** 0 done, 1 the operation failed, 2 the command was wrong. */
const FAILED = 1;
const USAGE = 2;

/** What each operation takes besides its text or query (every one takes --json and --embedded). */
const FLAGS: Record<string, Record<string, string>> = {
  remember: { "--meta": "JSON" },
  recall: { "--top-k": "N", "--min-score": "X" },
  health: {},
  status: {},
};

interface Invocation {
  words: string[];
  values: Record<string, string>;
  json: boolean;
  embedded: boolean;
}

/** A failure as `--json` prints it: the API's error object, with the sentence a person reads as its message. */
interface ErrorObject {
  type: string;
  code: string | null;
  message: string;
  status: number | null;
  request_id: string | null;
}

export async function runOperation(
  command: string,
  argv: string[],
  loadService?: (what: string) => Promise<ServiceCommands>,
): Promise<number> {
  if (command === "config") return runConfig(argv);
  const tool: Tool | undefined = TOOLS.find((t) => t.base === command);
  const flags = FLAGS[command];
  if (!tool || !flags) return usage(`unknown command: ${command}`);
  const json = argv.includes("--json");
  const parsed = parseFlags(command, flags, argv);
  if (typeof parsed === "string") return usage(parsed, json);

  let args: Record<string, unknown> = {};
  if (command === "remember") {
    const text = parsed.words.length ? parsed.words.join(" ") : await readStdinIfPiped();
    if (!text) return usage('remember needs the text to remember, e.g. brain-mcp remember "The user prefers tabs." (or pipe it in)', json);
    args = { text };
    if (parsed.values["--meta"] !== undefined) {
      try {
        args.meta = JSON.parse(parsed.values["--meta"]);
      } catch {
        return usage('--meta must be a JSON object, e.g. --meta \'{"source":"cli"}\'', json);
      }
    }
  } else if (command === "recall") {
    if (!parsed.words.length) return usage('recall needs a query, e.g. brain-mcp recall "what does the user prefer?"', json);
    args = { query: parsed.words.join(" ") };
    const topK = parsed.values["--top-k"];
    if (topK !== undefined) {
      if (!/^\d+$/.test(topK) || Number(topK) < TOP_K_MIN || Number(topK) > TOP_K_MAX) {
        return usage(`--top-k takes a whole number from ${TOP_K_MIN} to ${TOP_K_MAX} (got ${JSON.stringify(topK)})`, json);
      }
      args.top_k = Number(topK);
    }
    const minScore = parsed.values["--min-score"];
    if (minScore !== undefined) {
      const value = Number(minScore);
      if (minScore.trim() === "" || !Number.isFinite(value) || value < MIN_SCORE_MIN || value > MIN_SCORE_MAX) {
        return usage(
          `--min-score takes a number from ${MIN_SCORE_MIN} to ${MIN_SCORE_MAX}, e.g. 0.3 (got ${JSON.stringify(minScore)})`,
          json,
        );
      }
      args.min_score = value;
    }
  } else if (parsed.words.length) {
    return usage(`${command} takes no text (got ${JSON.stringify(parsed.words.join(" "))})`, json);
  }
  const input = tool.inputSchema.safeParse(args);
  if (!input.success) {
    return usage(input.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; "), json);
  }
  if (!parsed.embedded) return runTool(tool, input.data, json, null);
  if (!loadService) return usage("--embedded needs the memory service, which this program cannot load", json);
  let service: ServiceCommands;
  try {
    service = await loadService(`brain-mcp ${command} --embedded`);
  } catch (error) {
    return failure(json, { type: "service_missing", code: null, message: (error as Error).message, status: null, request_id: null });
  }
  return runTool(tool, input.data, json, service);
}

/** Our own reading of the flags, so that every mistake gets a sentence that says what the command takes. */
function parseFlags(command: string, flags: Record<string, string>, argv: string[]): Invocation | string {
  const takes = [...Object.entries(flags).map(([flag, value]) => `${flag} ${value}`), "--json", "--embedded"].join(", ");
  const out: Invocation = { words: [], values: {}, json: false, embedded: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      out.words.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--") || arg === "--") {
      if (/^-[a-zA-Z]/.test(arg)) return `unknown option ${arg} for ${command}; it takes ${takes}`;
      out.words.push(arg);
      continue;
    }
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag === "--json" || flag === "--embedded") {
      if (inline !== undefined) return `${flag} takes no value`;
      out[flag === "--json" ? "json" : "embedded"] = true;
      continue;
    }
    if (!(flag in flags)) {
      const hint =
        flag === "--api-key" ? " (the key is never taken from the command line: set BRAIN_API_KEY or run `brain-mcp config set-key`)" : "";
      return `unknown option ${flag} for ${command}; it takes ${takes || "no options"}${hint}`;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) return `${flag} needs a value (${flag} ${flags[flag]})`;
    out.values[flag] = value;
  }
  return out;
}

async function runTool(tool: Tool, input: unknown, json: boolean, service: ServiceCommands | null): Promise<number> {
  const config = loadConfig();
  let embedded: Awaited<ReturnType<ServiceCommands["startEmbedded"]>> | null = null;
  if (service) {
    const { dirname } = await import("node:path");
    // the same local service and key as `brain-mcp --embedded` (embedded.json beside the config file)
    embedded = await service.startEmbedded({
      configDir: dirname(config.configPath),
      // one call: the model loads only if the operation needs it, and is never closed in the middle of loading
      warmUp: false,
      log: createLogger({ level: config.logLevel === "off" ? "off" : "error", prefix: "brain-mcp service" }),
    });
  }
  const apiKey = embedded?.apiKey ?? config.apiKey;
  const baseURL = embedded?.baseURL ?? config.baseURL;
  const secrets = apiKey ? [apiKey] : [];
  const context = {
    operation: tool.base,
    baseURL,
    configPath: config.configPath,
    timeoutMs: config.timeoutMs,
    callDeadlineMs: config.callDeadlineMs,
    maxRetries: config.maxRetries,
    secrets,
  };
  if (!apiKey) {
    return failure(json, {
      type: "authentication_error",
      code: CLIENT_ERROR_CODES.missingApiKey,
      message:
        `No API key is set, so ${baseURL} cannot be asked. Give this shell one with export BRAIN_API_KEY=svc_ws_…, ` +
        "or save it with `brain-mcp config set-key` (it reads the key from stdin). A key comes from whoever runs the " +
        "service; on your own `brain-mcp serve`, `brain-mcp admin key create 1` makes one. Or add --embedded to use a " +
        "local service that needs no key.",
      status: null,
      request_id: null,
    });
  }
  const client = new Brain({
    apiKey,
    baseURL,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    logger: createLogger({ level: config.logLevel, secrets }),
  });
  const deadline = AbortSignal.timeout(config.callDeadlineMs);
  try {
    const output = await tool.call(client, input as never, { signal: deadline });
    process.stdout.write(json ? `${JSON.stringify(output, null, 2)}\n` : `${tool.render(output)}\n`);
    return 0;
  } catch (error) {
    const brain = error instanceof BrainError ? error : null;
    return failure(json, {
      type: brain ? typeOf(brain) : "error",
      code: brain?.code ?? null,
      message: renderError(error, { ...context, deadlineExceeded: deadline.aborted }),
      status: brain?.statusCode ?? null,
      request_id: brain?.requestId ?? null,
    });
  } finally {
    await client.close();
    await embedded?.close();
  }
}

/** The API's error `type` when the service sent one, else the client's class of failure. */
function typeOf(error: BrainError): string {
  const body = error.body as { error?: { type?: unknown } } | null;
  if (typeof body?.error?.type === "string") return body.error.type;
  const words = error.name.replace(/Error$/, "").replace(/([a-z])([A-Z])/g, "$1_$2");
  return `${words.toLowerCase()}_error`;
}

/** Prints a failure (a sentence on stderr, or with --json the error object on stdout) and returns its exit code. */
function failure(json: boolean, error: ErrorObject, exitCode = FAILED): number {
  if (json) process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
  else
    process.stderr.write(
      `${exitCode === USAGE ? "brain-mcp: " : ""}${error.message}\n${exitCode === USAGE ? "Run `brain-mcp --help` for usage.\n" : ""}`,
    );
  return exitCode;
}

async function runConfig(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const path = configFilePath(readEnv(process.env).configPath);
  if (sub === "path" && rest.length === 0) {
    process.stdout.write(`${path}\n`);
    return 0;
  }
  if (sub === "set-url" && rest.length === 1) {
    checkBaseURL(rest[0]!, "the URL");
    writeConfigFile(path, { base_url: rest[0]!.replace(/\/+$/, "") });
    process.stdout.write(`Saved the memory service address ${rest[0]} in ${path}.\n`);
    return 0;
  }
  if (sub === "set-key" && rest.length === 0) {
    const key = (await readSecret("API key: ")).trim();
    if (!key) return usage("no key given: pipe it in, e.g. `brain-mcp config set-key < key.txt`");
    if (/\s/.test(key)) throw new ConfigError("the key contains whitespace: give the key alone");
    // The rule `admin key import` applies: what cannot be a key never replaces one that may work.
    const problem = apiKeyProblem(key, "a saved key");
    if (problem) return usage(`not saved: ${problem}; the saved key is unchanged`);
    writeConfigFile(path, { api_key: key });
    process.stdout.write(`Saved the API key in ${path} (readable only by you).\n`);
    if (process.env.BRAIN_API_KEY) {
      process.stderr.write("Note: BRAIN_API_KEY is set in this environment and takes precedence over the file.\n");
    }
    return 0;
  }
  return usage("config takes: set-key | set-url <URL> | path");
}

/** A piped stdin in full, or "" when stdin is a terminal (nothing was piped). */
async function readStdinIfPiped(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

/** The key from a pipe, or typed at a terminal without echo. */
async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return readStdinIfPiped();
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding("utf8");
  return new Promise((resolve, reject) => {
    let typed = "";
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n" || ch === "\u0004") return finish();
        if (ch === "\u0003") return finish(new Error("cancelled"));
        if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    const finish = (error?: Error) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(typed);
    };
    stdin.on("data", onData);
  });
}

function usage(message: string, json = false): number {
  return failure(json, { type: "usage_error", code: null, message, status: null, request_id: null }, USAGE);
}
