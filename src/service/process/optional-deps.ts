// The service's dependencies are optional (the adapter must install without them): a service command that lacks
// one says exactly what to install instead of printing a stack trace.

const MODEL_PACKAGES = "onnxruntime-web @huggingface/tokenizers";

/** What to install for a missing package: a package's siblings come along (hono needs its node adapter). */
function installHint(pkg: string): string {
  if (pkg === "hono" || pkg.startsWith("@hono/")) return "npm install hono @hono/node-server";
  if (pkg.startsWith("onnxruntime-") || pkg === "@huggingface/tokenizers") return `npm install ${MODEL_PACKAGES}`;
  return `npm install ${pkg}`;
}

/** The bare package name of a module specifier (`@scope/name/sub` -> `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

export class MissingDependencyError extends Error {
  constructor(
    readonly packageName: string,
    readonly install: string,
  ) {
    super(`the optional package ${packageName} is not installed; run: ${install}`);
    this.name = "MissingDependencyError";
  }
}

/** Recognizes "package not installed" (ESM and CommonJS) and a native module that was never built. */
export function asMissingDependency(err: unknown): MissingDependencyError | null {
  if (err instanceof MissingDependencyError) return err;
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
    const match = /Cannot find (?:package|module) '([^']+)'/.exec(err.message);
    const specifier = match?.[1];
    // A missing relative or absolute path is a broken build, not a missing package.
    if (specifier === undefined || specifier.startsWith(".") || specifier.startsWith("/") || /^[A-Za-z]:\\/.test(specifier)) {
      return null;
    }
    const pkg = packageOf(specifier);
    return new MissingDependencyError(pkg, installHint(pkg));
  }
  if (/Could not locate the bindings file|better_sqlite3\.node/.test(err.message)) {
    return new MissingDependencyError("better-sqlite3", "npm rebuild better-sqlite3 (or npm install better-sqlite3)");
  }
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err ? asMissingDependency(cause) : null;
}

/** Runs `load`, turning a missing optional package into a MissingDependencyError. */
export async function loadOptional<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw asMissingDependency(err) ?? err;
  }
}
