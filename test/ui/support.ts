// The dashboard under test: a store filled through the real `brain-mcp serve`, and the real `brain-mcp ui` on it.
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { ROUTES } from "../../src/contract/wire.js";
import { BIN, call, type ServiceHandle } from "../support/service.js";

/** Varied memories: several domains, persistent and time-bound, trivial to critical. */
export const MEMORIES = [
  "Production deploys run from the main branch through the GitHub Actions release workflow every Tuesday.",
  "To roll back a bad deploy, redeploy the previous release tag with the release workflow.",
  "The staging database is PostgreSQL 15 on db-staging.internal, port 5432.",
  "Alice prefers code reviews in the morning and answers messages after lunch.",
  "Bob is allergic to peanuts; order the team lunch without them.",
  "The quarterly planning meeting is next Thursday at 10:00 in room Orion.",
  "Our API rate limit is 200 requests per second per key, with bursts of 400.",
  "The mobile app is written in Kotlin for Android and Swift for iOS.",
  "Invoices are sent on the first business day of each month by the finance team.",
  "The office Wi-Fi network is called Nebula; guests use Nebula-Guest.",
  "Use two spaces of indentation in YAML files and four in Python.",
  "The customer Acme Corp renews its contract at the end of March.",
  "Until Friday the CI runners are slow because of a storage migration.",
  "The company offsite this year is in Lisbon in September.",
  "Maria is the on-call engineer this week for the payments service.",
  "The search service caches results in Redis for five minutes.",
  "Coffee beans are reordered from the roastery every second Monday.",
  "The design system uses the Inter typeface and an 8 pixel grid.",
  "Backups of the production database are kept for 35 days in cold storage.",
  "Remember to water the plants in the meeting room on Fridays.",
] as const;

/** One memory over health's 1,000 characters: a runbook pasted whole. */
export const OVERLONG = [
  "Release runbook for the billing service, step by step.",
  "First, freeze merges to the main branch and announce the release window in the engineering channel.",
  "Second, run the full integration suite against staging and wait for every check to turn green.",
  "Third, take a snapshot of the billing database and confirm the snapshot finished before continuing.",
  "Fourth, deploy the new version to one canary instance and watch error rates and latency for fifteen minutes.",
  "Fifth, if the canary looks healthy, roll the release out to the remaining instances in batches of four.",
  "Sixth, run the smoke tests that create, update and cancel a test subscription in production.",
  "Seventh, unfreeze merges and post the release notes with the list of changes and their tickets.",
  "If anything fails along the way, stop the rollout, restore traffic to the previous version, and open an incident.",
  "Keep the snapshot for at least two weeks so that a late-found data problem can still be repaired from it.",
  "Finally, update the release calendar and hand the pager to the next on-call engineer with a short summary.",
].join(" ");

/** Every text fillThroughService stores, in order. */
export const STORED_TEXTS: readonly string[] = [...MEMORIES, OVERLONG];

/** Stores STORED_TEXTS through the service's API; returns the store answers (ids, categories, importance, temporal). */
export async function fillThroughService(service: ServiceHandle): Promise<Record<string, any>[]> {
  const answers = [];
  for (const text of STORED_TEXTS) {
    const res = await call(service.baseURL, "POST", ROUTES.store.path, {
      key: service.apiKey,
      json: { text, meta: { source: "ui-test" } },
    });
    if (res.status !== 200) throw new Error(`store failed (${res.status}): ${res.text}`);
    answers.push(res.json);
  }
  return answers;
}

export interface UiHandle {
  child: ChildProcess;
  /** The printed URL, token included. */
  url: string;
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
  token: string;
  cookie: string;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns `brain-mcp ui` on a store and resolves once it prints its URL. */
export async function startUi(args: string[], env: NodeJS.ProcessEnv): Promise<UiHandle> {
  const child = spawn(process.execPath, [BIN, "ui", "--port", "0", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`ui did not print its URL in 60 s\nstdout: ${out}\nstderr: ${err}`));
    }, 60_000);
    child.stdout!.on("data", (d) => {
      out += d;
      const match = /(http:\/\/\S+\?token=\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`ui exited (${code ?? signal}) before printing its URL\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  const parsed = new URL(url);
  const port = Number(parsed.port);
  const token = parsed.searchParams.get("token")!;
  return {
    child,
    url,
    base: `http://127.0.0.1:${port}`,
    port,
    token,
    cookie: `brain_ui_${port}=${token}`,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A GET (or another method, with a body) with any headers, Host included (fetch will not send a forged Host). */
export function rawGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        let json: any = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
