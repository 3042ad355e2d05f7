import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { ROOT } from './processes.ts';

const exec = promisify(execFile);

/**
 * Directories that may hold PostgreSQL's client tools, in the order they are preferred: PG_BIN,
 * the project's own (`scripts/tools.sh` installs the embedded server's major version into
 * .tools/pg), Debian's per-version directories, then PATH.
 */
function candidateDirs(): string[] {
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((entry) => /^\d+$/.test(entry))
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => path.join(debian, version, 'bin'))
    : [];
  return [
    ...(process.env.PG_BIN ? [process.env.PG_BIN] : []),
    path.join(ROOT, '.tools', 'pg', 'bin'),
    ...versions,
    ...(process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== ''),
  ];
}

async function majorOf(tool: string): Promise<number | undefined> {
  try {
    const { stdout } = await exec(tool, ['--version']);
    const match = /\(PostgreSQL\) (\d+)/.exec(stdout);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function serverMajor(serverUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version_num: string }>('show server_version_num');
    return Math.floor(Number(rows[0]!.server_version_num) / 10_000);
  } finally {
    await client.end();
  }
}

/**
 * The path of `pg_dump` or `pg_restore` of the server's major version (a newer one if that is all
 * there is): pg_dump refuses a server newer than itself ("server version mismatch"), and the test
 * run's server is the machine's (DATABASE_URL) or the embedded one, whose version the machine's
 * tools need not share. Names every tool it found when none fits.
 */
async function pgTool(name: 'pg_dump' | 'pg_restore', serverUrl: string): Promise<string> {
  const wanted = await serverMajor(serverUrl);
  const found: { tool: string; major: number }[] = [];
  for (const dir of candidateDirs()) {
    const tool = path.join(dir, name);
    if (!existsSync(tool) || found.some((seen) => seen.tool === tool)) continue;
    const major = await majorOf(tool);
    if (major !== undefined) found.push({ tool, major });
  }
  const fit =
    found.find(({ major }) => major === wanted) ??
    found.filter(({ major }) => major > wanted).sort((a, b) => a.major - b.major)[0];
  if (fit) return fit.tool;
  const seen = found.map(({ tool, major }) => `${tool} (${major})`).join(', ') || 'none';
  throw new Error(
    `no ${name} for PostgreSQL ${wanted} (found: ${seen}); \`source scripts/tools.sh\` installs PostgreSQL 17's into .tools/pg, or set PG_BIN to a directory of ${wanted}'s`,
  );
}

/** The database at `databaseUrl` dumped as docs/operations.md's backup does it; the dump file's path. */
export async function dumpDatabase(databaseUrl: string): Promise<string> {
  const dump = path.join(await mkdtemp(path.join(os.tmpdir(), 'svc-backup-')), 'distribution.dump');
  await exec(await pgTool('pg_dump', databaseUrl), ['--format=custom', '--file', dump, '--dbname', databaseUrl]);
  return dump;
}

/** `dump` restored into the (new, empty) database at `databaseUrl`, as docs/operations.md's restore does it. */
export async function restoreDatabase(dump: string, databaseUrl: string): Promise<void> {
  await exec(await pgTool('pg_restore', databaseUrl), ['--no-owner', '--exit-on-error', '--dbname', databaseUrl, dump]);
}
