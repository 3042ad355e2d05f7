import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { systemClock } from '../../domain/clock.ts';
import { startApiProcess } from '../support/api-process.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { freshDatabase } from '../support/database.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { request } from '../support/https-client.ts';
import { expectProblem } from '../support/problems.ts';
import { devServerClient } from '../support/temporal.ts';

const CHANNEL = '/api/v1/distribution/channel';
let inProcess: TestApi;
let other: { url: string; ca: string };
let ctx: ReturnType<typeof adminContext>;

beforeAll(async () => {
  const db = await freshDatabase();
  const temporal = await devServerClient();
  ctx = adminContext(db.orm, temporal, systemClock);
  inProcess = await startTestApi({ orm: db.orm, temporal, clock: systemClock });
  other = await startApiProcess({ DATABASE_URL: db.url, TEMPORAL_ADDRESS: inject('temporalAddress') });
});

/** A burst must fit in one fixed window: start it early in a minute. */
async function atStartOfWindow(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await sleep(60_000 - intoMinute + 50);
}

describe('per-channel rate limit', () => {
  test('a burst from two API processes sharing the database is refused at the limit, not at twice it', async () => {
    const { key } = await channelWithKey(ctx, { rateLimit: 600 });
    await atStartOfWindow();
    const answers: { status: number; remaining: number; retryAfter?: string; code?: string }[] = [];
    // 660 sequential requests alternating between the two processes.
    for (let i = 0; i < 660; i++) {
      const res = i % 2 === 0
        ? await inProcess.call('GET', CHANNEL, { key: key.key })
        : await request(other.url, other.ca, 'GET', CHANNEL, { headers: { authorization: `Bearer ${key.key}` } });
      answers.push({ status: res.status, remaining: Number(res.headers['ratelimit-remaining']), retryAfter: res.headers['retry-after'], code: res.json?.code });
      expect(res.headers['ratelimit-limit']).toBe('600');
      expect(res.headers['ratelimit-policy']).toBe('"per-minute";q=600;w=60');
      expect(res.headers.ratelimit).toMatch(/^"per-minute";r=\d+;t=\d+$/);
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(600);
    expect(answers.slice(0, 600).every((a) => a.status === 200)).toBe(true);
    expect(answers.slice(600).every((a) => a.status === 429 && a.code === 'rate_limited')).toBe(true);
    // Remaining counts down by one per request across both processes, then stays at zero.
    expect(answers.slice(0, 600).map((a) => a.remaining)).toEqual(Array.from({ length: 600 }, (_, i) => 599 - i));
    expect(answers.slice(600).every((a) => a.remaining === 0)).toBe(true);
    const retryAfter = Number(answers[600]!.retryAfter);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  test('the 429 is a full problem with Retry-After and the rate-limit headers', async () => {
    const { key } = await channelWithKey(ctx, { rateLimit: 600 });
    await atStartOfWindow();
    for (let i = 0; i < 600; i++) await inProcess.call('GET', CHANNEL, { key: key.key });
    const refused = await inProcess.call('GET', CHANNEL, { key: key.key });
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['ratelimit-reset'])).toBe(Number(refused.headers['retry-after']));
  });

  test('refusals after authentication count too (a 403 insufficient_scope uses a unit)', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:ari'] });
    const first = await inProcess.call('GET', CHANNEL, { key: key.key });
    const refused = await inProcess.call('GET', '/api/v1/distribution/locations', { key: key.key });
    expect(refused.status).toBe(403);
    expect(Number(refused.headers['ratelimit-remaining'])).toBe(Number(first.headers['ratelimit-remaining']) - 1);
  });
});
