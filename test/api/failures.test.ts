import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import express from 'express';
import { beforeAll, describe, expect, test } from 'vitest';
import { ormOptions } from '../../db/orm.ts';
import { generateApiKey } from '../../domain/api-keys.ts';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi } from '../support/api.ts';
import { freshDatabase } from '../support/database.ts';
import { expectProblem } from '../support/problems.ts';
import { devServerClient } from '../support/temporal.ts';
import { onCleanup } from '../support/cleanup.ts';
import { errorHandler } from '../../api/middleware/errors.ts';
import { requestId } from '../../api/middleware/request-id.ts';
import { isServiceUnavailable } from '../../api/unavailable.ts';
import { createLogger } from '../../infra/logger.ts';

describe('unexpected failures', () => {
  let broken: Awaited<ReturnType<typeof startTestApi>>;
  let key: string;

  beforeAll(async () => {
    const bed = await apiTestBed({ clock: systemClock });
    ({
      key: { key },
    } = await bed.channel());
    // A schema fault the code cannot expect: the counters table disappears under the API.
    await bed.orm.em.getConnection().execute('drop table request_counter');
    broken = bed.api;
  });

  test('become 500 internal without leaking the error', async () => {
    const res = await broken.call('GET', '/api/v1/distribution/channel', { key });
    expectProblem(res, 500, 'internal');
    expect(res.text).not.toMatch(/request_counter|relation|does not exist|at .*\.ts/);
  });
});

describe('a lost database', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await MikroORM.init(ormOptions('postgres://postgres@127.0.0.1:1/nowhere', { pool: { min: 0, max: 1 } }));
  });
  onCleanup(() => orm.close(true));

  test('becomes 503 service_unavailable with Retry-After', async () => {
    const api = await startTestApi({ orm, temporal: await devServerClient(), clock: systemClock });
    const res = await api.call('GET', '/api/v1/distribution/channel', { key: generateApiKey('sandbox') });
    expectProblem(res, 503, 'service_unavailable');
    expect(res.headers['retry-after']).toBe('5');
  });
});

describe('a driver error that is no lost connection', () => {
  test('a protocol violation (08P01) is 500 internal, logged at error, not 503 with Retry-After', async () => {
    const { orm } = await freshDatabase();
    // What PostgreSQL answers to SQL text holding a NUL: a real error of the driver, not a lost server.
    const violation = await orm.em
      .getConnection()
      .execute('select ?::text as v', ['a\u0000b'])
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect((violation as { code?: string }).code).toBe('08P01');
    expect(isServiceUnavailable(violation)).toBe(false);

    const lines: string[] = [];
    const app = express();
    app.use(requestId);
    app.get('/fails', () => {
      throw violation;
    });
    app.use(errorHandler(createLogger('info', {}, { write: (line: string) => void lines.push(line) })));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/fails`);
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toMatchObject({ code: 'internal', status: 500 });
    expect(res.headers.get('retry-after')).toBeNull();
    expect(text).not.toMatch(/08P01|protocol|select|\.ts/);
    expect(lines.map((line) => JSON.parse(line) as { level: string; message: string })).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'unexpected failure' }),
    );
  });

  test('only the codes of a lost or unobtainable connection are unavailable', () => {
    for (const code of [
      '08000',
      '08003',
      '08006',
      '08001',
      '08004',
      '57P01',
      '57P02',
      '57P03',
      'ECONNREFUSED',
      'ECONNRESET',
    ]) {
      expect(isServiceUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    for (const code of ['08P01', '08007', '22021', '42P01', '23505', 'XX000']) {
      expect(isServiceUnavailable(Object.assign(new Error('x'), { code })), code).toBe(false);
    }
    expect(isServiceUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  test("a statement's 55000 or 3D000 is a fault of the code: only the session's refusal is unavailable", async () => {
    const { orm } = await freshDatabase();
    const connection = orm.em.getConnection();
    const failure = (sql: string) =>
      connection.execute(sql).then(
        () => undefined,
        (error: unknown) => error as { code?: string; routine?: string },
      );
    await connection.execute('create sequence never_drawn');
    // currval before nextval in the session, and a database name that does not exist in a statement.
    const currval = await failure("select currval('never_drawn')");
    const database = await failure('alter database no_such_database_here set work_mem = 1024');
    expect([currval?.code, database?.code]).toEqual(['55000', '3D000']);
    expect(isServiceUnavailable(currval)).toBe(false);
    expect(isServiceUnavailable(database)).toBe(false);
    // The same codes as PostgreSQL raises them while it sets a session up (test/api/database-refusals.test.ts).
    expect(isServiceUnavailable(Object.assign(new Error('x'), { code: '55000', routine: 'CheckMyDatabase' }))).toBe(
      true,
    );
    expect(isServiceUnavailable(Object.assign(new Error('x'), { code: '3D000', routine: 'InitPostgres' }))).toBe(true);
    expect(isServiceUnavailable(Object.assign(new Error('x'), { code: '28P01', routine: 'auth_failed' }))).toBe(true);
  });
});
