// The four operations and the config commands for people and shell scripts.
// Same client, same tools and same rendering as the adapter; the exit code says whether it worked.

import { parseArgs } from "node:util";
import { Brain } from "../client/brain.js";
import { checkBaseURL, ConfigError, createLogger, loadConfig, readEnv, configFilePath, writeConfigFile } from "../config/index.js";
import { renderError } from "../mcp/render-error.js";
import { TOOLS, type Tool } from "../mcp/tools/index.js";

/** 0 done, 1 the operation failed, 2 the command was wrong. */
export async function runOperation(command: string, argv: string[]): Promise<number> {
  if (command === "config") return runConfig(argv);
  const tool = TOOLS.find((t) => t.base === command);
  if (!tool) return usage(`unknown command: ${command}`);

  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: command === "remember" || command === "recall",
      strict: true,
      options: {
        json: { type: "boolean", default: false },
        ...(command === "remember" ? { meta: { type: "string" } } : {}),
        ...(command === "recall" ? { "top-k": { type: "string" }, "min-score": { type: "string" } } : {}),
      },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values, positionals } = parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };

  let args: Record<string, unknown> = {};
  if (command === "remember") {
    const text = positionals.length ? positionals.join(" ") : await readStdinIfPiped();
    if (!text) return usage("remember needs the text to remember (as arguments, or on stdin)");
    args = { text };
    if (typeof values.meta === "string") {
      try {
        args.meta = JSON.parse(values.meta);
      } catch {
        return usage("--meta must be a JSON object, e.g. --meta '{\"source\":\"cli\"}'");
      }
    }
  } else if (command === "recall") {
    if (!positionals.length) return usage("recall needs a query");
    args = { query: positionals.join(" ") };
    if (values["top-k"] !== undefined) args.top_k = Number(values["top-k"]);
    if (values["min-score"] !== undefined) args.min_score = Number(values["min-score"]);
  }
  return runTool(tool, args, values.json === true);
}

async function runTool(tool: Tool, args: Record<string, unknown>, json: boolean): Promise<number> {
  const input = tool.inputSchema.safeParse(args);
  if (!input.success) {
    return usage(input.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; "));
  }
  const config = loadConfig();
  const secrets = config.apiKey ? [config.apiKey] : [];
  const context = {
    operation: tool.base,
    baseURL: config.baseURL,
    configPath: config.configPath,
    timeoutMs: config.timeoutMs,
    callDeadlineMs: config.callDeadlineMs,
    maxRetries: config.maxRetries,
    secrets,
  };
  if (!config.apiKey) {
    process.stderr.write(`${renderError(null, { ...context, missingKey: true })}\n`);
    return 1;
  }
  const client = new Brain({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    logger: createLogger({ level: config.logLevel, secrets }),
  });
  const deadline = AbortSignal.timeout(config.callDeadlineMs);
  try {
    const output = await tool.call(client, input.data, { signal: deadline });
    process.stdout.write(json ? `${JSON.stringify(output, null, 2)}\n` : `${tool.render(output)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${renderError(error, { ...context, deadlineExceeded: deadline.aborted })}\n`);
    return 1;
  } finally {
    await client.close();
  }
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

function usage(message: string): number {
  process.stderr.write(`brain-mcp: ${message}\nRun \`brain-mcp --help\` for usage.\n`);
  return 2;
}
