// brain.optimize: the workspace's health diagnostic.
import { ROUTES } from "../../contract/wire.js";
import type { Core, RequestOptions } from "../core.js";
import { HealthResponseSchema, type HealthResponse } from "../schemas.js";

export class Optimize {
  constructor(private readonly core: Core) {}

  /** Quality score, signals and recommendations for the workspace's memories. */
  health(options?: RequestOptions): Promise<HealthResponse> {
    return this.core.request({ route: ROUTES.health, schema: HealthResponseSchema }, options);
  }
}
