import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { addToWindow } from '../../db/counters.ts';
import { openDatabase } from '../../db/orm.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { onCleanup } from '../support/cleanup.ts';
import type { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectProblem } from '../support/problems.ts';

const CHANNEL = '/api/v1/distribution/channel';
/** Two API instances on one database, each with its own connection pool, as two processes would be. */
let first: TestApi;
let second: TestApi;
let ctx: AdminContext;
/** Windows are fixed minutes of this clock; it moves only when a test moves it. */
let clock: TestClock;
let orm: MikroORM;

beforeAll(async () => {
  const bed = await apiTestBed();
  ({ api: first, clock, ctx, orm } = bed);
  const otherOrm = await openDatabase(bed.databaseUrl);
  onCleanup(() => otherOrm.close(true));
  second = await startTestApi({ orm: otherOrm, temporal: bed.temporal, clock, env: { AUTH_FAILURE_LIMIT: '1000' } });
});

describe('per-channel rate limit', () => {
  test('a burst from two API instances sharing the database is refused at the limit, not at twice it', async () => {
    const { key } = await channelWithKey(ctx, { rateLimit: 600 });
    clock.set('2026-11-22T10:01:00Z');
    const answers: { status: number; remaining: number; retryAfter?: string; code?: string }[] = [];
    // 660 sequential requests alternating between the two instances.
    for (let i = 0; i < 660; i++) {
      const res = await (i % 2 === 0 ? first : second).call('GET', CHANNEL, { key: key.key });
      answers.push({
        status: res.status,
        remaining: Number(res.headers['ratelimit-remaining']),
        retryAfter: res.headers['retry-after'],
        code: res.json?.code,
      });
      expect(res.headers['ratelimit-limit']).toBe('600');
      expect(res.headers['ratelimit-policy']).toBe('"per-minute";q=600;w=60');
      expect(res.headers.ratelimit).toMatch(/^"per-minute";r=\d+;t=\d+$/);
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(600);
    expect(answers.slice(0, 600).every((a) => a.status === 200)).toBe(true);
    expect(answers.slice(600).every((a) => a.status === 429 && a.code === 'rate_limited')).toBe(true);
    // Remaining counts down by one per request across both instances, then stays at zero.
    expect(answers.slice(0, 600).map((a) => a.remaining)).toEqual(Array.from({ length: 600 }, (_, i) => 599 - i));
    expect(answers.slice(600).every((a) => a.remaining === 0)).toBe(true);
    // At the start of the minute, the window has all of its 60 s to run.
    expect(answers[600]!.retryAfter).toBe('60');
  });

  test('the 429 is a full problem with Retry-After and the rate-limit headers; the next minute is a new window', async () => {
    const { key } = await channelWithKey(ctx, { rateLimit: 600 });
    clock.set('2026-11-22T10:02:45Z');
    for (let i = 0; i < 600; i++) expect((await first.call('GET', CHANNEL, { key: key.key })).status).toBe(200);
    const refused = await first.call('GET', CHANNEL, { key: key.key });
    expectProblem(refused, 429, 'rate_limited');
    // 15 s are left of the minute.
    expect(refused.headers['retry-after']).toBe('15');
    expect(refused.headers['ratelimit-reset']).toBe('15');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers.ratelimit).toBe('"per-minute";r=0;t=15');

    clock.set('2026-11-22T10:02:59.999Z');
    expect((await second.call('GET', CHANNEL, { key: key.key })).status).toBe(429);
    clock.set('2026-11-22T10:03:00Z');
    const next = await second.call('GET', CHANNEL, { key: key.key });
    expect(next.status).toBe(200);
    expect(next.headers['ratelimit-remaining']).toBe('599');
    expect(next.headers['ratelimit-reset']).toBe('60');
  });

  test('refusals after authentication count too (a 403 insufficient_scope uses a unit)', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:ari'] });
    const res = await first.call('GET', CHANNEL, { key: key.key });
    const refused = await first.call('GET', '/api/v1/distribution/locations', { key: key.key });
    expect(refused.status).toBe(403);
    expect(Number(refused.headers['ratelimit-remaining'])).toBe(Number(res.headers['ratelimit-remaining']) - 1);
  });

  test('over the limit a read answers 429 whatever it found (its count runs beside it): not 200, 404, 400 or 403', async () => {
    const { channel, key } = await channelWithKey(ctx, { rateLimit: 600 });
    clock.set('2026-11-22T10:04:30Z');
    await addToWindow(orm.em.fork(), `channel:${channel.id}`, 600, clock.now());
    for (const path of [
      CHANNEL,
      '/api/v1/distribution/properties/prp_0000000000000000000000000',
      '/api/v1/distribution/properties?limit=9999',
      '/api/v1/distribution/availability',
    ]) {
      const res = await first.call('GET', path, { key: key.key });
      expectProblem(res, 429, 'rate_limited');
      expect(res.headers['ratelimit-remaining']).toBe('0');
      expect(res.headers['retry-after']).toBe('30');
    }
  });
});
