import express from 'express';
import { z } from 'zod';
import { beforeAll, describe, expect, test } from 'vitest';
import { channelGuards, interfaceRouter } from '../../api/interface-router.ts';
import { errorHandler, notFound } from '../../api/middleware/errors.ts';
import { parseJsonBody, requireJsonBody } from '../../api/middleware/json-body.ts';
import { requestId } from '../../api/middleware/request-id.ts';
import type { Operation } from '../../api/operations.ts';
import { ProblemError } from '../../domain/problems.ts';
import { listen } from '../../api/server.ts';
import { loadConfig } from '../../app/config.ts';
import { systemClock } from '../../domain/clock.ts';
import { PROBLEMS, type ProblemCode } from '../../domain/problems.ts';
import { createLogger } from '../../infra/logger.ts';
import { loadTlsMaterial } from '../../infra/tls.ts';
import { freshDatabase } from '../support/database.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { request, type HttpResponse } from '../support/https-client.ts';
import { expectProblem } from '../support/problems.ts';
import { devServerClient } from '../support/temporal.ts';

/** Extra fields the contract's Errors section lists for a code, and what the test raises them with. */
const EXTRAS: Partial<Record<ProblemCode, { fields: string[]; raise: ConstructorParameters<typeof ProblemError>[1] }>> =
  {
    invalid_parameters: {
      fields: ['errors'],
      raise: { errors: [{ detail: 'at most 500', code: 'max', parameter: 'limit' }] },
    },
    insufficient_scope: { fields: ['required_scopes'], raise: { required_scopes: ['read:ari'] } },
    window_beyond_horizon: { fields: ['horizon_end'], raise: { horizon_end: '2027-11-22' } },
  };

const codes = Object.keys(PROBLEMS) as ProblemCode[];
const raising = codes.map((code): Operation => ({
  operationId: `raise_${code}`,
  method: 'get',
  path: `/raise/${code}`,
  summary: code,
  tags: ['test'],
  scopes: [],
  responses: {},
  problems: [code],
  handler: () => Promise.reject(new ProblemError(code, EXTRAS[code]?.raise ?? {})),
}));

const Body = z
  .object({
    url: z.url(),
    nights: z.int().max(365, 'at most 365 nights').meta({}),
    events: z.array(z.string().min(1)).max(2),
  })
  .strict();
const validating: Operation = {
  operationId: 'validate',
  method: 'post',
  path: '/validate',
  summary: 'validate',
  tags: ['test'],
  scopes: [],
  responses: {},
  problems: [],
  query: z.object({ limit: z.coerce.number().int().min(1).max(500).optional(), from: z.iso.date().optional() }),
  body: Body,
  handler: ({ body }) => Promise.resolve({ body }),
};

const deprecated: Operation = {
  operationId: 'old',
  method: 'get',
  path: '/old',
  summary: 'old',
  tags: ['test'],
  scopes: [],
  responses: {},
  problems: [],
  deprecation: {
    deprecatedAt: new Date('2027-01-01T00:00:00Z'),
    sunsetAt: new Date('2027-07-01T00:00:00Z'),
    link: 'https://distribution.test/changelog#v2',
  },
  handler: () => Promise.resolve({ body: { ok: true } }),
};

let call: (method: string, path: string, body?: unknown) => Promise<HttpResponse>;

beforeAll(async () => {
  const { orm } = await freshDatabase();
  const temporal = await devServerClient();
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: (await import('node:os')).tmpdir() + '/svc-envelope-tls',
  });
  const { key } = await channelWithKey(adminContext(orm, temporal, systemClock));
  const app = express();
  app.set('etag', false);
  app.locals.publicOrigin = 'https://distribution.test';
  app.use(requestId, requireJsonBody, parseJsonBody);
  const deps = adminContext(orm, temporal, systemClock);
  app.use('/t', interfaceRouter([...raising, validating, deprecated], deps, channelGuards(deps)));
  app.use(notFound);
  app.use(errorHandler(createLogger('silent')));
  const tls = await loadTlsMaterial({ dataDir: config.dataDir });
  const listening = await listen(app, {
    host: '127.0.0.1',
    port: 0,
    plainPort: null,
    tls,
    publicOrigin: 'https://distribution.test',
  });
  call = (method, path, body) =>
    request(listening.url, tls.cert, method, path, {
      headers: { authorization: `Bearer ${key.key}` },
      ...(body === undefined ? {} : { body }),
    });
  return listening.close;
});

describe('every code of the catalogue, raised through the interface router', () => {
  test.each(codes)("%s comes back with its status and exactly the contract's fields", async (code) => {
    const res = await call('GET', `/t/raise/${code}`);
    expectProblem(res, PROBLEMS[code].status, code, EXTRAS[code]?.fields ?? []);
    expect(res.headers['ratelimit-limit']).toBe('600');
    for (const field of EXTRAS[code]?.fields ?? [])
      expect(res.json[field]).toEqual((EXTRAS[code]!.raise as Record<string, unknown>)[field]);
  });
});

describe('zod failures become invalid_parameters, one entry per failed rule', () => {
  test('query parameters are named by `parameter`, body fields by an RFC 6901 `pointer`, all in one refusal', async () => {
    const res = await call('POST', '/t/validate?limit=501&from=2026-13-40', {
      url: 'not a url',
      nights: 400,
      events: ['a', '', 'c'],
      extra: 1,
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual(
      expect.arrayContaining([
        { detail: expect.any(String), code: 'max', parameter: 'limit' },
        { detail: expect.any(String), code: 'date_format', parameter: 'from' },
      ]),
    );
    const where = (e: { parameter?: string; pointer?: string; code: string }) =>
      `${e.parameter ?? e.pointer} ${e.code}`;
    expect(res.json.errors.map(where).sort()).toEqual(
      ['limit max', 'from date_format', '/url url', '/nights max', '/events max', '/extra unknown_field'].sort(),
    );
  });

  test('every failed rule of the body is listed with its pointer', async () => {
    const res = await call('POST', '/t/validate', { url: 'not a url', nights: 400, events: ['a', ''], 'odd/~key': 1 });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    const byPointer = Object.fromEntries(
      res.json.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code]),
    );
    expect(byPointer).toEqual({ '/url': 'url', '/nights': 'max', '/events/1': 'min', '/odd~1~0key': 'unknown_field' });
    expect(res.json.errors).toHaveLength(4);
    const tooMany = await call('POST', '/t/validate', {
      url: 'https://example.com',
      nights: 1,
      events: ['a', 'b', 'c'],
    });
    expect(tooMany.json.errors).toEqual([{ detail: expect.any(String), code: 'max', pointer: '/events' }]);
  });

  test('a missing required field is `required`, a wrong type is `type`', async () => {
    const res = await call('POST', '/t/validate', { nights: 'three' });
    const byPointer = Object.fromEntries(
      res.json.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code]),
    );
    expect(byPointer).toEqual({ '/url': 'required', '/nights': 'type', '/events': 'required' });
  });

  test('valid input reaches the handler parsed', async () => {
    const res = await call('POST', '/t/validate?limit=5', { url: 'https://example.com/x', nights: 3, events: ['a'] });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ url: 'https://example.com/x', nights: 3, events: ['a'] });
  });
});

describe('versioning', () => {
  test('a deprecated operation carries Deprecation, Sunset and the deprecation link', async () => {
    const res = await call('GET', '/t/old');
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBe(`@${Date.parse('2027-01-01T00:00:00Z') / 1000}`);
    expect(res.headers.sunset).toBe('Thu, 01 Jul 2027 00:00:00 GMT');
    expect(res.headers.link).toBe('<https://distribution.test/changelog#v2>; rel="deprecation"');
    expect((await call('GET', '/t/raise/not_found')).headers.deprecation).toBeUndefined();
  });
});
