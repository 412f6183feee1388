// One way for every long-running command to read its flags: a usage error names the problem under the command's
// usage and exits 2; --help prints the usage and exits 0.
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O & { help: { type: "boolean" } } }>>["values"];

export function usageError(command: string, usage: string, message: string): number {
  process.stderr.write(`brain-mcp ${command}: ${message}\n${usage}\n`);
  process.exitCode = 2;
  return 2;
}

/** The command's flag values, or the exit code when reading them already ended the command. */
export function readFlags<O extends Options>(
  command: string,
  usage: string,
  argv: string[],
  options: O,
): { values: Values<O>; exitCode?: undefined } | { exitCode: number } {
  let values: Values<O>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { ...options, help: { type: "boolean", short: "h", default: false } },
    }) as { values: Values<O> });
  } catch (err) {
    return { exitCode: usageError(command, usage, (err as Error).message) };
  }
  if ((values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    return { exitCode: 0 };
  }
  return { values };
}
