import tls from 'node:tls';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { systemClock } from '../../domain/clock.ts';
import { createLogger } from '../../infra/logger.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import { csrfOf, hostRequest, openSession, SESSION_COOKIE } from '../support/host-pages.ts';
import { request } from '../support/https-client.ts';
import { expectProblem } from '../support/problems.ts';

// What a client sends in a body is bounded before anything walks it (nesting depth, number of
// keys), and a body the service cannot read (bad compression, an unknown coding or charset, an
// upload cut short) is the client's fault: a 4xx in each interface's shape and an info line, never
// a 500 with a stack.

const DISTRIBUTION = '/api/v1/distribution';
let api: TestApi;
let host: Platform;
let readKey: string;
let webhookKey: string;
let integrationToken: string;
const lines: string[] = [];

beforeAll(async () => {
  const bed = await apiTestBed({
    clock: systemClock,
    log: createLogger('debug', {}, { write: (line: string) => void lines.push(line) }),
  });
  ({ api, host } = bed);
  await host.organization('hb-org');
  ({
    key: { key: readKey },
  } = await bed.channel({ scopes: ['read:catalog'] }));
  ({
    key: { key: webhookKey },
  } = await bed.channel({ scopes: ['manage:webhooks'] }));
  const installed = await host.call('POST', '/organizations/hb-org/installations', {
    app: 'hb-app',
    scopes: ['guests.read'],
  });
  expect(installed.status, installed.text).toBe(201);
  integrationToken = (await host.call('POST', `/installations/${installed.json.id as string}/token`, {})).json
    .token as string;
});

type Logged = { level: string; message: string };
const loggedSince = (from: number): Logged[] =>
  lines
    .slice(from)
    .map((line) => JSON.parse(line) as Logged)
    .filter((line) => line.message !== 'request');

const deepArrays = (depth: number) => `{"token":${'['.repeat(depth)}${']'.repeat(depth)}}`;
const deepObjects = (depth: number) => `{"token":${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}}`;
const manyKeys = (count: number) => `{${Array.from({ length: count }, (_, i) => `"k${i.toString(36)}":0`).join(',')}}`;

describe('the shape of a JSON body is bounded before it is walked', () => {
  test('a body nested 30,000 arrays deep is 400 max_depth naming the limit, before any rule runs', async () => {
    const from = lines.length;
    const res = await api.call('PUT', `${DISTRIBUTION}/owners/own_x/connection`, {
      key: readKey,
      rawBody: deepArrays(30_000),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual([
      { code: 'max_depth', pointer: '', detail: expect.stringMatching(/at most 32 levels/) as unknown },
    ]);
    expect(loggedSince(from).filter((line) => line.level === 'error')).toEqual([]);
  });

  test('objects nested 33 deep are refused and 32 deep are read, on the platform interface too', async () => {
    const refused = await api.call('PUT', '/internal/v1/organizations/hb-org', {
      key: TEST_PLATFORM_TOKEN,
      rawBody: deepObjects(32),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(refused, 400, 'invalid_parameters', ['errors']);
    expect(refused.json.errors).toMatchObject([{ code: 'max_depth', pointer: '' }]);
    // 31 objects inside the body's own: read, and refused by the operation's rules instead.
    const read = await api.call('PUT', '/internal/v1/organizations/hb-org', {
      key: TEST_PLATFORM_TOKEN,
      rawBody: deepObjects(31),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(read, 400, 'invalid_parameters', ['errors']);
    expect((read.json.errors as { code: string }[]).map((error) => error.code)).not.toContain('max_depth');
  });

  test('a body of 5,005 keys in six objects is 400 max_keys naming the limit of its 64 KiB', async () => {
    const res = await api.call('POST', `${DISTRIBUTION}/webhooks`, {
      key: webhookKey,
      rawBody: `{${Array.from({ length: 5 }, (_, i) => `"o${i}":${manyKeys(1000)}`).join(',')}}`,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual([
      { code: 'max_keys', pointer: '', detail: expect.stringMatching(/at most 4096 keys/) as unknown },
    ]);
  });

  test('one object of 1,001 keys is 400 max_object_keys; one array of 10,001 items is 400 max_array_items', async () => {
    const wide = await api.call('POST', `${DISTRIBUTION}/webhooks`, {
      key: webhookKey,
      rawBody: manyKeys(1001),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(wide, 400, 'invalid_parameters', ['errors']);
    expect(wide.json.errors).toMatchObject([{ code: 'max_object_keys', pointer: '' }]);
    const long = await api.call('POST', `${DISTRIBUTION}/webhooks`, {
      key: webhookKey,
      rawBody: `{"events":[${'0,'.repeat(10_000)}0]}`,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(long, 400, 'invalid_parameters', ['errors']);
    expect(long.json.errors).toMatchObject([{ code: 'max_array_items', pointer: '' }]);
  });

  test('a body failing thousands of rules lists the first 100 and says more failed', async () => {
    const res = await api.call('POST', '/internal/v1/organizations/hb-org/installations', {
      key: TEST_PLATFORM_TOKEN,
      rawBody: `{"app":"many-wrong-scopes","scopes":[${'0,'.repeat(9_000)}0]}`,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toHaveLength(100);
    expect((res.json.errors as { pointer: string }[]).map((error) => error.pointer).slice(0, 2)).toEqual([
      '/scopes/0',
      '/scopes/1',
    ]);
    expect(res.json.detail).toBe('More than 100 rules failed; the first 100 are listed');
  });

  test('a body refused for its shape or its coding counts toward the rate limit and says so, as every refusal does', async () => {
    const refusals: { rawBody: string | Buffer; headers: Record<string, string> }[] = [
      { rawBody: deepArrays(100), headers: { 'content-type': 'application/json' } },
      { rawBody: Buffer.from('not gzip'), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } },
      { rawBody: Buffer.from('{}'), headers: { 'content-type': 'application/json; charset=koi8-r' } },
    ];
    const remaining: number[] = [];
    for (const refusal of refusals) {
      const res = await api.call('POST', `${DISTRIBUTION}/webhooks`, { key: webhookKey, ...refusal });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers['ratelimit-limit']).toBe('600');
      remaining.push(Number(res.headers['ratelimit-remaining']));
    }
    expect(remaining).toEqual([remaining[0], remaining[0]! - 1, remaining[0]! - 2]);
  });

  test('a string with brackets and escaped quotes counts no depth', async () => {
    const res = await api.call('POST', `${DISTRIBUTION}/webhooks`, {
      key: webhookKey,
      body: { url: 'https://hooks.example.com/in', events: ['*'], description: `\\"${'[{'.repeat(5000)}` },
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect((res.json.errors as { code: string }[]).map((error) => error.code)).toEqual(['max']);
  });
});

/** A body each way a client can get its coding wrong. */
const badBodies: { name: string; headers: Record<string, string>; body: Buffer; status: number }[] = [
  { name: 'bad gzip', headers: { 'content-encoding': 'gzip' }, body: Buffer.from('not gzip at all'), status: 400 },
  {
    name: 'gzip cut short',
    headers: { 'content-encoding': 'gzip' },
    body: zlib.gzipSync('{"a":"' + 'x'.repeat(2000) + '"}').subarray(0, 40),
    status: 400,
  },
  { name: 'bad deflate', headers: { 'content-encoding': 'deflate' }, body: Buffer.from('not deflate'), status: 400 },
  { name: 'bad br', headers: { 'content-encoding': 'br' }, body: Buffer.from([0xff, 0xff, 0xff, 0xff]), status: 400 },
  { name: 'bad zstd', headers: { 'content-encoding': 'zstd' }, body: Buffer.from('not zstd'), status: 400 },
  { name: 'unknown coding', headers: { 'content-encoding': 'x-unheard-of' }, body: Buffer.from('{}'), status: 415 },
];

const charsetBody = { name: 'koi8-r charset', charset: 'koi8-r', status: 415 };

describe('a body the service cannot read is a 4xx and an info line', () => {
  const json = (extra: Record<string, string>, charset = 'utf-8') => ({
    'content-type': `application/json; charset=${charset}`,
    ...extra,
  });

  test.each(badBodies)('distribution interface: $name is $status', async ({ headers, body, status }) => {
    const from = lines.length;
    const res = await api.call('POST', `${DISTRIBUTION}/webhooks`, {
      key: webhookKey,
      rawBody: body,
      headers: json(headers),
    });
    if (status === 415) expectProblem(res, 415, 'unsupported_media_type');
    else expectProblem(res, 400, 'invalid_parameters', ['errors']);
    if (status === 400) expect(res.json.errors).toMatchObject([{ code: 'content_encoding', pointer: '' }]);
    // The access log's line is written when the answer is finished: wait for it, by request id.
    const requestId = res.headers['request-id'];
    const ofRequest = () =>
      lines
        .slice(from)
        .map((line) => JSON.parse(line) as Logged & { reason?: string; requestId?: string })
        .filter((line) => line.requestId === requestId);
    for (let i = 0; i < 100 && ofRequest().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ofRequest().map((line) => [line.level, line.message, line.reason])).toEqual([
      ['info', 'request', status === 415 ? 'unsupported_coding' : 'undecodable'],
    ]);
  });

  test.each(badBodies)('platform interface: $name is $status', async ({ headers, body, status }) => {
    const from = lines.length;
    const res = await api.call('PUT', '/internal/v1/organizations/hb-org', {
      key: TEST_PLATFORM_TOKEN,
      rawBody: body,
      headers: json(headers),
    });
    if (status === 415) expectProblem(res, 415, 'unsupported_media_type');
    else expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(loggedSince(from).filter((line) => line.level === 'error')).toEqual([]);
  });

  test.each(badBodies)(
    'integration interface: $name is $status in its own shape',
    async ({ headers, body, status }) => {
      const from = lines.length;
      const res = await api.call('GET', '/api/v1/integration/guests', {
        key: integrationToken,
        rawBody: body,
        headers: json(headers),
      });
      expect(res.status, res.text).toBe(status);
      expect(res.json).toMatchObject({ code: status === 415 ? 'unsupported_media_type' : 'invalid_parameters' });
      expect(loggedSince(from).filter((line) => line.level === 'error')).toEqual([]);
    },
  );

  test.each(badBodies)('host forms: $name is a $status page', async ({ headers, body, status }) => {
    const cookie = await openSession(api, 'hb-org', 'en');
    const csrf = csrfOf(await hostRequest(api, 'GET', '/host/', { cookie }));
    expect(csrf).not.toBe('');
    const from = lines.length;
    const res = await request(api.url, api.ca, 'POST', '/host/locale', {
      headers: {
        cookie: `${SESSION_COOKIE}=${cookie}`,
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      rawBody: body,
    });
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('The form could not be read');
    expect(loggedSince(from).map((line) => [line.level, line.message])).toEqual([['info', 'host form refused']]);
  });

  test(`${charsetBody.name} is 415 on the three JSON interfaces`, async () => {
    const raw = Buffer.from('{"url":"https://hooks.example.com/in"}');
    const headers = json({}, charsetBody.charset);
    const from = lines.length;
    expectProblem(
      await api.call('POST', `${DISTRIBUTION}/webhooks`, { key: webhookKey, rawBody: raw, headers }),
      415,
      'unsupported_media_type',
    );
    expectProblem(
      await api.call('PUT', '/internal/v1/organizations/hb-org', { key: TEST_PLATFORM_TOKEN, rawBody: raw, headers }),
      415,
      'unsupported_media_type',
    );
    const integration = await api.call('GET', '/api/v1/integration/guests', {
      key: integrationToken,
      rawBody: raw,
      headers,
    });
    expect(integration.status).toBe(415);
    expect(integration.json).toMatchObject({ code: 'unsupported_media_type' });
    expect(loggedSince(from).filter((line) => line.level === 'error')).toEqual([]);
  });

  test("a compressed body that inflates past the limit is 413 naming the limit, in each interface's shape", async () => {
    const inflating = (bytes: number) => zlib.gzipSync(`{"a":"${'x'.repeat(bytes)}"}`);
    const distribution = await api.call('POST', `${DISTRIBUTION}/webhooks`, {
      key: webhookKey,
      rawBody: inflating(100 * 1024),
      headers: json({ 'content-encoding': 'gzip' }),
    });
    expectProblem(distribution, 413, 'payload_too_large');
    expect(distribution.json.detail).toMatch(/64 KiB/);
    const integration = await api.call('GET', '/api/v1/integration/guests', {
      key: integrationToken,
      rawBody: inflating(1100 * 1024),
      headers: json({ 'content-encoding': 'gzip' }),
    });
    expect(integration.status, integration.text).toBe(413);
    expect(integration.json).toMatchObject({ code: 'payload_too_large', message: expect.stringMatching(/1024 KiB/) });
  });

  test('an upload cut short is logged at info, not as a failure', async () => {
    const from = lines.length;
    const url = new URL(api.url);
    const socket = tls.connect({ host: '127.0.0.1', port: Number(url.port), ca: api.ca, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    socket.write(
      `POST ${DISTRIBUTION}/webhooks HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${webhookKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"url":"https://',
    );
    // Long enough for the key's check to pass and the reader to start on the body.
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    const all = () => lines.slice(from).map((line) => JSON.parse(line) as Logged & { status?: number });
    for (let i = 0; i < 100 && !all().some((line) => line.message === 'request'); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(all().map((line) => [line.level, line.message, line.status])).toEqual([['info', 'request', 499]]);
  });
});
