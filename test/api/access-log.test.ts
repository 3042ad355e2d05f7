import { beforeAll, describe, expect, test, vi } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { revokeKey } from '../../admin/keys.ts';
import { temporalLogger } from '../../app/observability.ts';
import { createLogger } from '../../infra/logger.ts';
import { apiRequests } from '../../infra/metrics.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { channelWithKey, otherLastCharacter } from '../support/fixtures.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// What the API writes on stderr, captured: pino JSON lines, one per request, and no secret.

const BASE = '/api/v1/distribution';
const lines: string[] = [];
const capture = { write: (line: string) => void lines.push(line) };
let api: TestApi;
let receiver: Receiver;
let ctx: AdminContext;

type Line = Record<string, unknown>;
const parsed = (): Line[] => lines.map((line) => JSON.parse(line) as Line);
const accessLines = (requestId: string) =>
  parsed().filter((line) => line.message === 'request' && line.requestId === requestId);
/** The request's access lines once one is written: the line follows the answer's end, which the client may see first. */
async function loggedLines(requestId: string): Promise<Line[]> {
  await vi.waitFor(() => expect(accessLines(requestId)).not.toHaveLength(0), { timeout: 5_000, interval: 10 });
  return accessLines(requestId);
}

beforeAll(async () => {
  receiver = await startReceiver();
  ({ api, ctx } = await apiTestBed({
    log: createLogger('info', { process: 'api' }, capture),
    receiver,
  }));
});

describe('access log', () => {
  test('one pino JSON line per request with request id, channel, operation, status and duration', async () => {
    const { channel, key } = await channelWithKey(ctx);
    const res = await api.call('GET', `${BASE}/channel`, { key: key.key });
    expect(res.status).toBe(200);
    const requestId = res.headers['request-id'] as string;
    const [line, ...more] = await loggedLines(requestId);
    expect(more).toHaveLength(0);
    expect(line).toMatchObject({
      level: 'info',
      process: 'api',
      requestId,
      method: 'GET',
      operation: 'getChannel',
      path: `${BASE}/channel`,
      status: 200,
      channel: channel.name,
    });
    expect(line!.durationMs).toEqual(expect.any(Number));
    expect(Date.parse(line!.time as string)).not.toBeNaN();
    expect(line!.pid).toBe(process.pid);

    // A refusal carries its code and no channel (none was authenticated).
    const refused = await api.call('GET', `${BASE}/channel`, { key: otherLastCharacter(key.key) });
    expect(await loggedLines(refused.headers['request-id'] as string)).toEqual([
      expect.objectContaining({ operation: 'getChannel', status: 401, code: 'invalid_api_key' }),
    ]);
    expect(accessLines(refused.headers['request-id'] as string)[0]).not.toHaveProperty('channel');
  });

  test("a key revoked after this process saw it: the refused read's line names no channel either", async () => {
    const { channel, key } = await channelWithKey(ctx);
    const first = await api.call('GET', `${BASE}/properties?limit=1`, { key: key.key });
    expect(await loggedLines(first.headers['request-id'] as string)).toEqual([
      expect.objectContaining({ status: 200, channel: channel.name }),
    ]);
    await revokeKey(ctx, key.id);
    const refused = await api.call('GET', `${BASE}/properties?limit=1`, { key: key.key });
    expect(await loggedLines(refused.headers['request-id'] as string)).toEqual([
      expect.objectContaining({ operation: 'listProperties', status: 401, code: 'api_key_revoked' }),
    ]);
    expect(accessLines(refused.headers['request-id'] as string)[0]).not.toHaveProperty('channel');
  });

  test('no channel key, platform token or webhook secret reaches the log, whatever the request', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'manage:webhooks'] });
    const created = await api.call('POST', `${BASE}/webhooks`, {
      key: key.key,
      body: { url: `${receiver.url}/log-test`, events: ['property.*'] },
    });
    expect(created.status).toBe(201);
    const secret = created.json.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const rotated = await api.call('POST', `${BASE}/webhooks/${created.json.id as string}/rotate-secret`, {
      key: key.key,
    });
    receiver.respond(500);
    // A failed ping logs its detail for the operator.
    await api.call('POST', `${BASE}/webhooks/${created.json.id as string}/test`, { key: key.key });
    receiver.respond(204);
    await platform(api).organization('log-org');
    const wrongToken = `${TEST_PLATFORM_TOKEN}-but-wrong`;
    expect((await api.call('GET', '/internal/v1/organizations/log-org', { key: wrongToken })).status).toBe(401);
    // Credentials where nothing expects them: a query string and an odd header.
    await api.call('GET', `${BASE}/properties?api_key=${key.key}`, {
      key: key.key,
      headers: { 'x-debug-token': TEST_PLATFORM_TOKEN },
    });

    const output = lines.join('');
    expect(output).toContain('webhook ping failed');
    expect(await loggedLines(created.headers['request-id'] as string)).toEqual([
      expect.objectContaining({ operation: 'createWebhook', status: 201 }),
    ]);
    for (const value of [
      key.key,
      TEST_PLATFORM_TOKEN,
      wrongToken,
      secret,
      rotated.json?.secret as string | undefined,
    ].filter((v): v is string => typeof v === 'string')) {
      expect(output).not.toContain(value);
    }
  });
});

describe('logger', () => {
  test('secret-named fields at any depth, secret-shaped text and error messages are redacted', () => {
    const out: string[] = [];
    const log = createLogger('debug', {}, { write: (line: string) => void out.push(line) });
    const key = 'svc_live_0123456789abcdefghijABCDEFGHIJ0123456789abcdefghij0AbCdE';
    log.info(`refused Bearer ${key}`, {
      authorization: `Bearer ${key}`,
      nested: {
        webhookSecret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
        list: [{ token: 'platform-token-value-0123456789abcdef' }],
      },
      url: 'postgres://svc:database-password@db.internal/svc',
      error: new Error(`connect failed for ${key}`),
      detail: 'the body quoted whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
    });
    const text = out.join('');
    for (const secret of [key, 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', 'platform-token-value', 'database-password'])
      expect(text).not.toContain(secret);
    const line = JSON.parse(text) as Line;
    expect(line).toMatchObject({
      level: 'info',
      message: 'refused Bearer [redacted]',
      authorization: '[redacted]',
      url: 'postgres://svc:[redacted]@db.internal/svc',
    });
  });

  test('LOG_LEVEL filters, and silent writes nothing', () => {
    const out: string[] = [];
    const sink = { write: (line: string) => void out.push(line) };
    createLogger('warn', {}, sink).info('not written');
    createLogger('silent', {}, sink).error('not written either');
    expect(out).toEqual([]);
    createLogger('warn', {}, sink).warn('written');
    expect(out).toHaveLength(1);
  });

  test("the Temporal runtime's lines keep their workflow context and lose their secrets", () => {
    const out: string[] = [];
    const bridge = temporalLogger(
      createLogger('info', { process: 'worker' }, { write: (line: string) => void out.push(line) }),
    );
    bridge.debug('dropped below info');
    bridge.warn('Activity failed', {
      workflowId: 'webhook-delivery:whk_1:evt_1',
      workflowType: 'webhookDelivery',
      activityType: 'attemptDelivery',
      token: 'abc',
    });
    expect(out.map((line) => JSON.parse(line) as Line)).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'Activity failed',
        source: 'temporal',
        process: 'worker',
        workflowId: 'webhook-delivery:whk_1:evt_1',
        workflowType: 'webhookDelivery',
        activityType: 'attemptDelivery',
        token: '[redacted]',
      }),
    ]);
  });
});

describe('health probes', () => {
  test('a passing probe is counted, and writes no access line at info', async () => {
    const probes = async () =>
      (await apiRequests.get()).values.find(
        (value) => value.labels.operation === '/health/live' && value.labels.status === '200',
      )?.value ?? 0;
    const before = await probes();
    const res = await api.call('GET', '/health/live');
    expect(res.status).toBe(200);
    await vi.waitFor(async () => expect(await probes()).toBe(before + 1), { timeout: 5_000, interval: 10 });
    expect(accessLines(res.headers['request-id'] as string)).toEqual([]);
  });
});
