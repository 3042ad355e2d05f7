import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { loadConfig } from '../../app/config.ts';
import { serveMetrics } from '../../app/observability.ts';
import { addToWindow } from '../../db/counters.ts';
import { createLogger } from '../../infra/logger.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { onCleanup } from '../support/cleanup.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey, otherLastCharacter } from '../support/fixtures.ts';
import { count, sample, scrape } from '../support/metrics.ts';

// The API process's /metrics, scraped over HTTP as Prometheus would, after real requests.

const CHANNEL = '/api/v1/distribution/channel';
let api: TestApi;
let metricsUrl: string;
let ctx: AdminContext;
let orm: MikroORM;
const clock = new TestClock('2026-11-22T10:00:30Z');

beforeAll(async () => {
  ({ api, ctx, orm } = await apiTestBed({ clock }));
  const server = await serveMetrics(loadConfig({ METRICS_PORT: '0' }), createLogger('silent'));
  onCleanup(() => server!.close());
  metricsUrl = server!.url;
});

/** A scrape taken once the last request (named by its labels) was counted. */
async function settledScrape(before: string, last: Record<string, string>): Promise<string> {
  return vi.waitFor(
    async () => {
      const text = await scrape(metricsUrl);
      expect(
        count(text, 'svc_api_requests_total', last) - count(before, 'svc_api_requests_total', last),
      ).toBeGreaterThan(0);
      return text;
    },
    { timeout: 5_000, interval: 20 },
  );
}

describe('API metrics', () => {
  test('a 200, two 401s and a 429 are counted by operation id and status, refusals by code, and timed', async () => {
    const { channel, key } = await channelWithKey(ctx);
    const before = await scrape(metricsUrl);

    expect((await api.call('GET', CHANNEL, { key: key.key })).status).toBe(200);
    expect((await api.call('GET', CHANNEL)).status).toBe(401);
    expect((await api.call('GET', CHANNEL, { key: otherLastCharacter(key.key) })).status).toBe(401);
    // The channel's window already holds its 600 requests of this minute.
    await addToWindow(orm.em.fork(), `channel:${channel.id}`, 600, clock.now());
    expect((await api.call('GET', CHANNEL, { key: key.key })).status).toBe(429);

    // A request is counted when its answer ends, which the client can see first.
    const after = await settledScrape(before, { operation: 'getChannel', status: '429' });
    const delta = (name: string, labels: Record<string, string>) =>
      count(after, name, labels) - count(before, name, labels);
    expect(delta('svc_api_requests_total', { operation: 'getChannel', status: '200' })).toBe(1);
    expect(delta('svc_api_requests_total', { operation: 'getChannel', status: '401' })).toBe(2);
    expect(delta('svc_api_requests_total', { operation: 'getChannel', status: '429' })).toBe(1);
    expect(delta('svc_api_auth_refusals_total', { code: 'missing_api_key' })).toBe(1);
    expect(delta('svc_api_auth_refusals_total', { code: 'invalid_api_key' })).toBe(1);
    expect(delta('svc_api_rate_limit_refusals_total', { operation: 'getChannel' })).toBe(1);
    // The histogram: four observations, each under the largest bucket, and a positive sum.
    expect(delta('svc_api_request_duration_seconds_count', { operation: 'getChannel' })).toBe(4);
    expect(delta('svc_api_request_duration_seconds_bucket', { operation: 'getChannel', le: '+Inf' })).toBe(4);
    expect(delta('svc_api_request_duration_seconds_bucket', { operation: 'getChannel', le: '10' })).toBe(4);
    expect(delta('svc_api_request_duration_seconds_sum', { operation: 'getChannel' })).toBeGreaterThan(0);
  });

  test('paths are never labels: an unknown path is `unmatched`, a served route without an operation its template', async () => {
    const before = await scrape(metricsUrl);
    await api.call('GET', '/api/v1/distribution/no-such-thing-7f3a');
    await api.call('GET', '/api/v1/distribution/properties/prp_01JAAAAAAAAAAAAAAAAAAAAAAA');
    await api.call('GET', '/health/live');
    const after = await settledScrape(before, { operation: '/health/live', status: '200' });
    expect(after).not.toContain('no-such-thing-7f3a');
    expect(after).not.toContain('prp_01JAAAAAAAAAAAAAAAAAAAAAAA');
    expect(
      count(after, 'svc_api_requests_total', { operation: 'unmatched', status: '404' }) -
        count(before, 'svc_api_requests_total', { operation: 'unmatched', status: '404' }),
    ).toBe(1);
    expect(
      count(after, 'svc_api_requests_total', { operation: 'getProperty', status: '401' }) -
        count(before, 'svc_api_requests_total', { operation: 'getProperty', status: '401' }),
    ).toBe(1);
    expect(
      count(after, 'svc_api_requests_total', { operation: '/health/live', status: '200' }) -
        count(before, 'svc_api_requests_total', { operation: '/health/live', status: '200' }),
    ).toBe(1);
  });

  test('the process metrics are there too, and the listener serves nothing but /metrics', async () => {
    const text = await scrape(metricsUrl);
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeDefined();
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(404);
  });
});

describe('metrics listener configuration', () => {
  test('by default /metrics listens on 9464 on loopback only', async () => {
    const config = loadConfig({});
    expect(config.metrics).toEqual({ host: '127.0.0.1', port: 9464, temporalPort: 9465 });
    // The same default host with an ephemeral port (9464 may be taken on this machine).
    const server = await serveMetrics(loadConfig({ METRICS_PORT: '0' }), createLogger('silent'));
    onCleanup(() => server!.close());
    expect(new URL(server!.url).hostname).toBe('127.0.0.1');
  });

  test('METRICS_PORT=off serves no listener; METRICS_HOST binds elsewhere; a bad port stops the process', async () => {
    expect(await serveMetrics(loadConfig({ METRICS_PORT: 'off' }), createLogger('silent'))).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: 'off', TEMPORAL_METRICS_PORT: 'off' }).metrics).toEqual({
      host: '127.0.0.1',
      port: undefined,
      temporalPort: undefined,
    });
    expect(loadConfig({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '9100' }).metrics).toMatchObject({
      host: '0.0.0.0',
      port: 9100,
    });
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: 'yes' })).toThrow(/METRICS_PORT/);
  });
});
