// `brain-mcp ui`: a local dashboard over the service's own store (like `admin`, an operator's tool; the
// service's public API is untouched). Opened through a URL carrying a random token, as Jupyter does.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_UI_PORT, HTTP_SERVER_TIMEOUTS } from "../contract/limits.js";
import { createJsonLog, parseLogLevel } from "../service/process/json-log.js";
import { loadOptional } from "../service/process/optional-deps.js";
import type { ServiceLog } from "../service/types.js";
import { readFlags, usageError as flagUsageError } from "./flags.js";
import { isLoopbackHost, portFrom, reportFailure, resolveStoreLocation, STORE_FLAGS, type StoreLocation } from "./serve.js";

const USAGE = `usage: brain-mcp ui [--port ${DEFAULT_UI_PORT}] [--db PATH] [--database-url URL] [--host ADDR --allow-remote]

  --port N             port on 127.0.0.1 (0 picks a free one)
  --db PATH            SQLite file (env BRAIN_DB; default brain.db in the data folder), as \`serve\` uses
  --database-url URL   PostgreSQL (env BRAIN_DATABASE_URL; wins over a SQLite path)
  --host ADDR          listen on another address, the one browsers will use (it is the Host accepted);
                       refused unless --allow-remote is given too (plain HTTP: the token crosses the
                       network in clear text)

Prints the URL to open; it carries this session's token, which a browser trades for a cookie.`;

const usageError = (message: string) => flagUsageError("ui", USAGE, message);

/** The store, the service's models and the dashboard over them, all in this process. */
async function openDashboard(location: StoreLocation, env: NodeJS.ProcessEnv, log: ServiceLog) {
  const [{ openStore }, { loadModels }, { createDashboard }, { createDashboardWebhooks }, { webhookSettings }, { VERSION }] =
    await Promise.all([
      import("../service/store/open-store.js"),
      loadOptional(() => import("../service/models/index.js")),
      import("../service/dashboard/data.js"),
      import("../service/dashboard/webhooks.js"),
      import("../service/webhooks/settings.js"),
      import("../version.js"),
    ]);
  const store = await loadOptional(() => openStore(location, { log }));
  try {
    const models = await loadOptional(() => loadModels(env));
    const close = async () => {
      await store.close();
      await models.close?.();
    };
    // A test event from the dashboard is sent from this process, with the delivery settings `serve` reads.
    const webhooks = createDashboardWebhooks(store, { settings: webhookSettings(env), log, version: VERSION });
    return { dashboard: createDashboard({ store, embedder: models.embedder }), webhooks, close };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** Runs until SIGTERM/SIGINT. Returns an exit code only on failure. */
export async function runUi(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const flags = readFlags("ui", USAGE, argv, {
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: String(DEFAULT_UI_PORT) },
    ...STORE_FLAGS,
    "allow-remote": { type: "boolean", default: false },
  });
  if (flags.exitCode !== undefined) return flags.exitCode;
  const { values } = flags;
  const port = portFrom(values.port);
  if (port === null) return usageError(`--port must be 0..65535, not ${values.port}`);
  const host = values.host;
  if (!isLoopbackHost(host) && !values["allow-remote"]) {
    return usageError(`refusing to listen on ${host}: the dashboard is for this machine. Add --allow-remote to mean it.`);
  }

  const log = createJsonLog(process.stderr, parseLogLevel(env.BRAIN_LOG, "warn"));
  const say = (line: string) => process.stdout.write(`brain-mcp ui: ${line}\n`);
  let opened: Awaited<ReturnType<typeof openDashboard>> | undefined;
  try {
    const location = resolveStoreLocation(values, env);
    say(`store: ${location.description}`);
    opened = await openDashboard(location, env, log);
    const [{ getRequestListener }, { createUiApp, newUiToken }] = await Promise.all([
      loadOptional(() => import("@hono/node-server")),
      loadOptional(() => import("../service/dashboard/http.js")),
    ]);
    const token = newUiToken();
    // The app needs the bound port (Host check, cookie name), known only once listening: it is set before any request.
    let app: { fetch: (request: Request) => Response | Promise<Response> } | undefined;
    // The service's limits: a connection that never finishes its headers or its request is cut, as there.
    const server = createServer(
      HTTP_SERVER_TIMEOUTS,
      getRequestListener((request) => app!.fetch(request)),
    );
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    const bound = address.port;
    // The address actually bound (`localhost` may be ::1), and the name given: the Host values a browser sends.
    const inUrl = (h: string) => (h.includes(":") ? `[${h}]` : h);
    const shownHost = inUrl(address.address);
    const allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`, `${shownHost}:${bound}`, `${inUrl(host)}:${bound}`];
    app = createUiApp({
      dashboard: opened.dashboard,
      webhooks: opened.webhooks,
      token,
      allowedHosts,
      cookieName: `brain_ui_${bound}`,
      log,
    });
    say("open this URL in a browser (it holds this session's token; keep it to yourself):");
    process.stdout.write(`    http://${shownHost}:${bound}/?token=${token}\n`);

    const store = opened;
    let stopping = false;
    const stop = () => {
      if (stopping) process.exit(130);
      stopping = true;
      server.closeAllConnections();
      server.close(() => void store.close().finally(() => process.exit(0)));
    };
    process.once("SIGTERM", stop);
    process.on("SIGINT", stop);
    return 0;
  } catch (err) {
    await opened?.close().catch(() => undefined);
    const code = reportFailure("ui", err);
    process.exitCode = code;
    return code;
  }
}
