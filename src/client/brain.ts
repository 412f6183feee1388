// The client's entry point: `new Brain(options)`, with one resource per part of the API.
import { ROUTES } from "../contract/wire.js";
import { Core, type ClientOptions, type RequestOptions } from "./core.js";
import { Memory } from "./resources/memory.js";
import { Optimize } from "./resources/optimize.js";
import { StatusResponseSchema, type StatusResponse } from "./schemas.js";

export class Brain {
  readonly memory: Memory;
  readonly optimize: Optimize;
  private readonly core: Core;

  /** Throws AuthenticationError with no key (option or BRAIN_API_KEY), BrainError for a plain-http non-loopback base URL. */
  constructor(options: ClientOptions = {}) {
    this.core = new Core(options);
    this.memory = new Memory(this.core);
    this.optimize = new Optimize(this.core);
  }

  /** The service's address, without a trailing slash (for messages). */
  get baseURL(): string {
    return this.core.baseURL;
  }

  /** Whether the service is healthy, and the workspace's state, plan and size. */
  status(options?: RequestOptions): Promise<StatusResponse> {
    return this.core.request({ route: ROUTES.status, schema: StatusResponseSchema }, options);
  }

  /** Closes the connection pool. */
  close(): Promise<void> {
    return this.core.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
