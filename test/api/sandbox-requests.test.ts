import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { runHousekeeping } from '../../services/housekeeping.ts';
import { registry } from '../../infra/metrics.ts';
import { createLogger } from '../../infra/logger.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import type { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

// A sandbox key's own request log through the real API over TLS: what a request leaves in it,
// who reads it, and how long it stays.

const BASE = '/api/v1/distribution';
let api: TestApi;
let ctx: AdminContext;
let orm: MikroORM;
let clock: TestClock;

interface Logged {
  request_id: string;
  received_at: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  units: number;
  duration_ms: number;
  key_id: string;
}

beforeAll(async () => {
  ({ api, ctx, orm, clock } = await apiTestBed());
});

async function requests(key: string, query = ''): Promise<{ data: Logged[]; next_cursor: string | null }> {
  const path = `${BASE}/sandbox/requests${query}`;
  const res = await api.call('GET', path, { key });
  expect(res.status, res.text).toBe(200);
  expectMatchesDescription('GET', path, res);
  return res.json;
}

/** The log is written after each answer: wait until the request with this id is there. */
async function loggedRequest(key: string, requestId: string): Promise<Logged> {
  for (let tries = 0; tries < 50; tries += 1) {
    const found = (await requests(key, '?limit=100')).data.find((r) => r.request_id === requestId);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`request ${requestId} never appeared in the log`);
}

const rows = async (channelId: string) =>
  Number(
    (
      await orm.em
        .fork()
        .execute<{ n: string }[]>('select count(*) as n from sandbox_request where channel_id = ?', [channelId])
    )[0]!.n,
  );

/** The channel's stored records: each request id and when it was received. */
const records = async (channelId: string) =>
  (
    await orm.em
      .fork()
      .execute<{ request_id: string; received_at: Date }[]>(
        'select request_id, received_at from sandbox_request where channel_id = ?',
        [channelId],
      )
  ).map((row) => ({ request_id: row.request_id, received_at: new Date(row.received_at) }));

describe('GET /sandbox/requests', () => {
  test('a refused request explains itself: method, path, status, code, units, request id, key', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const refused = await api.call('GET', `${BASE}/webhooks`, { key: key.key });
    expectProblem(refused, 403, 'insufficient_scope', ['required_scopes']);
    const logged = await loggedRequest(key.key, refused.headers['request-id']!);
    expect(logged).toMatchObject({
      method: 'GET',
      path: `${BASE}/webhooks`,
      status: 403,
      code: 'insufficient_scope',
      units: 1,
      key_id: key.id,
      received_at: clock
        .now()
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    });
    expect(logged.duration_ms).toBeGreaterThanOrEqual(0);
  });

  test('a query value the operation does not declare is withheld; declared ones are kept', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const res = await api.call('GET', `${BASE}/properties?limit=5&api_key=${key.key}`, { key: key.key });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    const logged = await loggedRequest(key.key, res.headers['request-id']!);
    expect(logged.path).toBe(`${BASE}/properties?limit=5&api_key=~`);
    expect(JSON.stringify(await requests(key.key))).not.toContain(key.key);
  });

  test("newest first, paged, filtered by status and code; another channel's requests never appear", async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const other = (await channelWithKey(ctx, { scopes: ['read:catalog'] })).key;
    const ids: string[] = [];
    for (const path of ['/channel', '/webhooks', '/properties?limit=1', '/webhooks']) {
      clock.advance(1000);
      ids.push((await api.call('GET', `${BASE}${path}`, { key: key.key })).headers['request-id']!);
    }
    const foreign = (await api.call('GET', `${BASE}/webhooks`, { key: other.key })).headers['request-id']!;
    await loggedRequest(key.key, ids.at(-1)!);
    await loggedRequest(other.key, foreign);
    const all = (await requests(key.key, '?limit=100')).data.filter((r) => ids.includes(r.request_id));
    expect(all.map((r) => r.request_id)).toEqual([...ids].reverse());
    const everything = (await requests(key.key, '?limit=100')).data.map((r) => r.request_id);
    expect(everything).not.toContain(foreign);

    const first = await requests(key.key, '?limit=1&status=4xx');
    expect(first.data.map((r) => r.request_id)).toEqual([ids[3]]);
    const second = await requests(key.key, `?limit=1&status=4xx&cursor=${first.next_cursor!}`);
    expect(second.data.map((r) => r.request_id)).toEqual([ids[1]]);
    expect((await requests(key.key, '?status=200')).data.every((r) => r.status === 200)).toBe(true);
    expect((await requests(key.key, '?code=insufficient_scope')).data.map((r) => r.request_id)).toEqual([
      ids[3],
      ids[1],
    ]);
    const since = new Date(clock.now().getTime() - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect((await requests(key.key, `?since=${since}&status=4xx`)).data.map((r) => r.request_id)).toEqual([ids[3]]);
    // A cursor is bound to its query.
    const elsewhere = await api.call('GET', `${BASE}/sandbox/requests?code=rate_limited&cursor=${first.next_cursor!}`, {
      key: key.key,
    });
    expectProblem(elsewhere, 400, 'invalid_cursor');
    expectProblem(
      await api.call('GET', `${BASE}/sandbox/requests?status=4x`, { key: key.key }),
      400,
      'invalid_parameters',
      ['errors'],
    );
  });

  test('a `since` the calendar does not have is refused 400 date_format, as `updated_since` is', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const refusal = async (path: string) => {
      const res = await api.call('GET', `${BASE}${path}`, { key: key.key });
      expectProblem(res, 400, 'invalid_parameters', ['errors']);
      return res.json.errors as { parameter: string; code: string; detail: string }[];
    };
    // The value the fuzzer sent (it was answered 500), and one that only the calendar refuses.
    for (const impossible of ['2815-33-57T69:06:19Z', '2026-02-30T10:00:00Z']) {
      const errors = await refusal(`/sandbox/requests?code=&since=${encodeURIComponent(impossible)}`);
      expect(errors).toEqual([{ parameter: 'since', code: 'date_format', detail: expect.any(String) }]);
      const catalogue = await refusal(`/properties?updated_since=${encodeURIComponent(impossible)}`);
      expect(errors).toEqual(catalogue.map((error) => ({ ...error, parameter: 'since' })));
    }
  });

  test('a request older than a day is no longer listed, and the housekeeping prunes it', async () => {
    const { key, channel } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const old = (await api.call('GET', `${BASE}/channel`, { key: key.key })).headers['request-id']!;
    await loggedRequest(key.key, old);
    clock.advance(24 * 3600 * 1000 + 1000);
    expect((await requests(key.key, '?limit=100')).data.map((r) => r.request_id)).not.toContain(old);
    const dayAgo = clock.now().getTime() - 24 * 3600 * 1000;
    const before = await records(channel.id);
    expect(before.map((r) => r.request_id)).toContain(old);
    expect(await runHousekeeping({ ...ctx, log: createLogger('silent') })).toEqual([]);
    // Every record older than a day went (the old request, and the log reads made while waiting
    // for it); every younger one stays (a read's record may land meanwhile: it is younger too).
    const after = await records(channel.id);
    expect(after.filter((r) => r.received_at.getTime() < dayAgo)).toEqual([]);
    const stayed = new Set(after.map((r) => r.request_id));
    expect(before.filter((r) => r.received_at.getTime() >= dayAgo && !stayed.has(r.request_id))).toEqual([]);
  });

  test('a request whose record cannot be written is answered all the same, and counted', async () => {
    const { key, channel } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const failures = async () =>
      (await registry.getSingleMetric('svc_sandbox_request_log_failures_total')!.get()).values[0]?.value ?? 0;
    const before = await failures();
    await orm.em.fork().execute('alter table sandbox_request rename to sandbox_request_away');
    try {
      const res = await api.call('GET', `${BASE}/channel`, { key: key.key });
      expect(res.status).toBe(200);
      for (let tries = 0; tries < 50 && (await failures()) === before; tries += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await failures()).toBe(before + 1);
    } finally {
      await orm.em.fork().execute('alter table sandbox_request_away rename to sandbox_request');
    }
    expect(await rows(channel.id)).toBe(0);
  });
});
