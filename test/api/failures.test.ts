import { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import { ormOptions } from '../../db/orm.ts';
import { generateApiKey } from '../../domain/api-keys.ts';
import { systemClock } from '../../domain/clock.ts';
import { startTestApi } from '../support/api.ts';
import { freshDatabase } from '../support/database.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { expectProblem } from '../support/problems.ts';
import { devServerClient } from '../support/temporal.ts';
import { onCleanup } from '../support/cleanup.ts';

describe('unexpected failures', () => {
  let broken: Awaited<ReturnType<typeof startTestApi>>;
  let key: string;

  beforeAll(async () => {
    const { orm } = await freshDatabase();
    const temporal = await devServerClient();
    ({ key: { key } } = await channelWithKey(adminContext(orm, temporal, systemClock)));
    // A schema fault the code cannot expect: the counters table disappears under the API.
    await orm.em.getConnection().execute('drop table request_counter');
    broken = await startTestApi({ orm, temporal, clock: systemClock });
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
