// Where the service commands (serve, admin, ui, --embedded) come from: beside this file in a checkout of the
// repository, else from the service package, which the adapter package never depends on (it stays light).
import { VERSION } from "../version.js";

export type ServiceCommands = typeof import("./service-entry.js");

/** The npm package that holds the memory service, its model and its stores. */
export const SERVICE_PACKAGE = "brain-mcp-service";

/** The one command that makes the service commands available, for a person to type. */
export const SERVICE_INSTALL = `npm install -g ${SERVICE_PACKAGE}@${VERSION}`;

/** The service package is not installed, or is another version: says what to type. */
export class ServiceMissingError extends Error {
  constructor(detail: string) {
    super(`${detail}. Install the memory service with: ${SERVICE_INSTALL} (or run it once with: npx -y ${SERVICE_PACKAGE} …)`);
    this.name = "ServiceMissingError";
  }
}

const isNotFound = (error: unknown, name: string) =>
  (error as NodeJS.ErrnoException)?.code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(name);

export async function loadServiceCommands(what: string): Promise<ServiceCommands> {
  let service: ServiceCommands;
  try {
    // a variable: the adapter's bundle keeps it as a file beside it, present only in the repository's build
    const beside = "../cli/service-entry.js";
    service = (await import(beside)) as ServiceCommands;
  } catch (error) {
    if (!isNotFound(error, "service-entry.js")) throw error;
    try {
      service = (await import(SERVICE_PACKAGE)) as ServiceCommands;
    } catch (missing) {
      if (!isNotFound(missing, SERVICE_PACKAGE)) throw missing;
      throw new ServiceMissingError(`${what} needs the memory service, which is not installed`);
    }
  }
  if (service.VERSION !== VERSION) {
    throw new ServiceMissingError(`brain-mcp ${VERSION} found ${SERVICE_PACKAGE} ${service.VERSION}; they must be the same version`);
  }
  return service;
}
