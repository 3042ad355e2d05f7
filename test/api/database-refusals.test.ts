import net from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { describe, expect, inject, test } from 'vitest';
import { CONNECTION_TIMEOUT_MS, ormOptions } from '../../db/orm.ts';
import { generateApiKey } from '../../domain/api-keys.ts';
import { systemClock } from '../../domain/clock.ts';
import { createLogger } from '../../infra/logger.ts';
import { startTestApi } from '../support/api.ts';
import { onCleanup } from '../support/cleanup.ts';
import { freshDatabase, waitingOnALock } from '../support/database.ts';
import { expectProblem } from '../support/problems.ts';
import { devServerClient } from '../support/temporal.ts';

// docs/operations.md ("PostgreSQL") promises that while the database cannot be reached requests
// answer 503 `service_unavailable` (with `Retry-After`), never 500 `internal`. Each case makes a
// real PostgreSQL refuse the API in one of the ways an operator meets, and checks the answer, the
// log line (warn "dependency unavailable", not error "unexpected failure") and that the refusal the
// test meant is the one the API met.

interface LogLine {
  level: string;
  message: string;
  error?: string;
}

/** Runs `sql` on the run's PostgreSQL server as its superuser. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('pgServerUrl') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The real app on `orm` (the service's own pool options), with its log lines kept. */
async function apiOn(orm: MikroORM) {
  const lines: LogLine[] = [];
  const log = createLogger('info', {}, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const api = await startTestApi({ orm, temporal: await devServerClient(), clock: systemClock, log });
  return { api, lines };
}

/** The service's ORM options on `url` (with `overrides`), closed after the file. */
async function ormOn(url: string, overrides?: Parameters<typeof ormOptions>[1]): Promise<MikroORM> {
  const orm = await MikroORM.init(ormOptions(url, overrides));
  onCleanup(() => orm.close(true));
  return orm;
}

/** `url` as a new role of `attributes` (`nologin`, `login connection limit 0`), dropped after the test. */
async function asNewRole(url: string, prefix: string, attributes: string): Promise<string> {
  const role = `${prefix}_${Math.random().toString(36).slice(2, 8)}`;
  await admin(`create role "${role}" ${attributes}`);
  onCleanup(() => admin(`drop role if exists "${role}"`));
  const asRole = new URL(url);
  asRole.username = role;
  return asRole.toString();
}

/** Another session holding the table a key is looked up in, until it rolls back: a request's session waits on it. */
async function holdKeyTable(url: string): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  onCleanup(() => holder.end().catch(() => undefined));
  await holder.query('begin');
  await holder.query('lock table api_key in access exclusive mode');
  return holder;
}

/** One authenticated read, as a channel makes it. */
async function read(api: Awaited<ReturnType<typeof apiOn>>['api']) {
  return api.call('GET', '/api/v1/distribution/channel', { key: generateApiKey('sandbox') });
}

function expectUnavailable(
  res: Awaited<ReturnType<typeof read>>,
  lines: LogLine[],
  refusal: RegExp,
  secret: RegExp = /postgres|database|connection|refus/i,
): void {
  expectProblem(res, 503, 'service_unavailable');
  expect(res.headers['retry-after']).toBe('5');
  expect(res.text).not.toMatch(secret);
  const unavailable = lines.filter((line) => line.message === 'dependency unavailable');
  expect(unavailable.map((line) => line.level)).toEqual(['warn']);
  expect(unavailable[0]!.error).toMatch(refusal);
  expect(lines.filter((line) => line.level === 'error')).toEqual([]);
}

/** The database of `url`, by name. */
const databaseOf = (url: string) => new URL(url).pathname.slice(1);

describe('a PostgreSQL that refuses the API answers 503 service_unavailable', () => {
  test('a database that does not accept connections (ALLOW_CONNECTIONS false, as during maintenance)', async () => {
    const { url } = await freshDatabase();
    const name = databaseOf(url);
    await admin(`alter database "${name}" allow_connections false`);
    await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
    const { api, lines } = await apiOn(await ormOn(url));
    expectUnavailable(await read(api), lines, /is not currently accepting connections/);
  });

  test('a database dropped under a running API', async () => {
    const { url } = await freshDatabase();
    const orm = await ormOn(url);
    const { api, lines } = await apiOn(orm);
    // Served once, then the database goes (a restore that recreates it, a mistaken drop).
    await orm.em.fork().getConnection().execute('select 1');
    await admin(`drop database "${databaseOf(url)}" with (force)`);
    await orm.em
      .fork()
      .getConnection()
      .execute('select 1')
      .catch(() => undefined);
    expectUnavailable(await read(api), lines, /does not exist/);
  });

  test('a role no longer allowed to log in', async () => {
    const { url } = await freshDatabase();
    const { api, lines } = await apiOn(await ormOn(await asNewRole(url, 'svc_refused', 'nologin')));
    expectUnavailable(await read(api), lines, /is not permitted to log in/);
  });

  test('a role at its connection limit ("too many connections", 53300)', async () => {
    const { url } = await freshDatabase();
    const { api, lines } = await apiOn(await ormOn(await asNewRole(url, 'svc_limited', 'login connection limit 0')));
    expectUnavailable(await read(api), lines, /too many connections/);
  });

  test("a session the server terminates while the request waits on it (57P01, an administrator's shutdown)", async () => {
    const { url } = await freshDatabase();
    const name = databaseOf(url);
    const orm = await ormOn(url);
    const { api, lines } = await apiOn(orm);
    await holdKeyTable(url);
    const answer = read(api);
    await waitingOnALock(orm);
    await admin(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and wait_event_type = 'Lock'`,
    );
    expectUnavailable(await answer, lines, /terminating connection due to administrator command/);
  });

  test('a server that takes the connection and never answers: 503 once the connect timeout passes', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const held: net.Socket[] = [];
    silent.on('connection', (socket) => held.push(socket));
    const { port } = silent.address() as net.AddressInfo;
    const { api, lines } = await apiOn(await ormOn(`postgres://postgres@127.0.0.1:${port}/nowhere`));
    // Cleaned up before the API (last registered, first run): a connect still waiting ends.
    onCleanup(() => {
      for (const socket of held) socket.destroy();
      silent.close();
    });
    const started = Date.now();
    const res = await read(api);
    expectUnavailable(res, lines, /Connection terminated due to connection timeout/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(CONNECTION_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(CONNECTION_TIMEOUT_MS + 5_000);
  }, 30_000);

  test('a request that waits for a free connection of the pool as long as the connect timeout', async () => {
    const { url } = await freshDatabase();
    // One connection, held by a request that waits on a lock: the next request waits for the pool.
    const { api, lines } = await apiOn(await ormOn(url, { pool: { min: 0, max: 1 } }));
    const holder = await holdKeyTable(url);
    const first = read(api);
    await waitingOnALock(await ormOn(url));
    const started = Date.now();
    const second = await read(api);
    expectUnavailable(second, lines, /timeout exceeded when trying to connect/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(CONNECTION_TIMEOUT_MS - 100);
    await holder.query('rollback');
    expect((await first).status).toBe(401);
  }, 30_000);
});
