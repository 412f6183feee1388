// Vitest globalSetup for running a whole suite against PostgreSQL: one throwaway cluster for the run, its URL in
// BRAIN_TEST_DATABASE_URL (test/support/service.ts then starts every service with BRAIN_DATABASE_URL).
import { startPostgres, type PgCluster } from "../support/pg.js";

let cluster: PgCluster | undefined;

export async function setup(): Promise<void> {
  if (process.env.BRAIN_TEST_DATABASE_URL) return; // a database given from outside is used as is
  cluster = await startPostgres();
  process.env.BRAIN_TEST_DATABASE_URL = cluster.url;
  process.stderr.write(`service suite on PostgreSQL: ${cluster.url}\n`);
}

export async function teardown(): Promise<void> {
  await cluster?.stop();
}
