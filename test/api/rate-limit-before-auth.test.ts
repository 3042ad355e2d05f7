import { beforeAll, describe, expect, test } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AdminContext } from '../../admin/context.ts';
import { issueKey, revokeKey } from '../../admin/keys.ts';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { openApiDocument, type OperationObject } from '../../api/openapi/document.ts';
import { setChannelStatus } from '../../admin/channels.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { channelWithKey, otherLastCharacter } from '../support/fixtures.ts';
import type { HttpResponse } from '../support/https-client.ts';
import { description, expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

let api: TestApi;
let ctx: AdminContext;
let orm: MikroORM;

beforeAll(async () => {
  // One minute's window for the whole file (the bed's clock stands still): counts are compared within it.
  ({ api, ctx, orm } = await apiTestBed());
});

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const concrete = (path: string) =>
  DISTRIBUTION_BASE +
  path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => `${name.split('_')[0]}_0aaaaaaaaaaaaaaaaaaaaaaaaa`);
/** Every described path whose operations take a key, with a method it lacks. */
const keyedPaths = Object.entries(description.paths)
  .filter(([, item]) => Object.values(item as Record<string, OperationObject>).every((op) => op.security.length > 0))
  .map(([path, item]) => [path, METHODS.find((method) => !(method in item))!] as const);
const remaining = (res: HttpResponse) => Number(res.headers['ratelimit-remaining']);
/** Failed authentications counted in this file's database, every address and window together. */
const failedAuthentications = async () =>
  (
    await orm.em
      .fork()
      .execute<{ n: number }[]>(
        `select coalesce(sum(count), 0)::int as n from request_counter where bucket like 'auth-fail:%'`,
      )
  )[0]!.n;
const RATE_LIMIT_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
];

describe('answers given before authentication count a usable key', () => {
  test('the walk covers every path that takes a key', () => {
    expect(keyedPaths.length).toBeGreaterThan(15);
    expect(keyedPaths.map(([path]) => path)).toEqual(
      expect.arrayContaining(['/channel', '/webhooks/{webhook_id}', '/properties/{property_id}/listing']),
    );
  });

  test.each(keyedPaths)(
    '%s answered %s: 405 with a usable key is counted and carries the RateLimit headers, as described',
    async (path, method) => {
      const { key } = await channelWithKey(ctx);
      const first = await api.call(method.toUpperCase(), concrete(path), { key: key.key });
      const second = await api.call(method.toUpperCase(), concrete(path), { key: key.key });
      expectProblem(second, 405, 'method_not_allowed');
      for (const header of RATE_LIMIT_HEADERS) expect(second.headers[header], header).toEqual(expect.any(String));
      expect(remaining(first) - remaining(second)).toBe(1);
      expectMatchesDescription(method, concrete(path), second);
      const served = await api.call('GET', `${DISTRIBUTION_BASE}/channel`, { key: key.key });
      expect(remaining(served)).toBe(remaining(second) - 1);
    },
  );

  test.each([
    `${DISTRIBUTION_BASE}/nowhere`,
    `${DISTRIBUTION_BASE}/channel/`,
    `${DISTRIBUTION_BASE}/properties/prp_0aaaaaaaaaaaaaaaaaaaaaaaaa/photos`,
  ])('unknown path %s: 404 with a usable key is counted and carries the RateLimit headers', async (path) => {
    const { key } = await channelWithKey(ctx);
    const first = await api.call('GET', path, { key: key.key });
    const second = await api.call('DELETE', path, { key: key.key });
    expectProblem(second, 404, 'not_found');
    for (const header of RATE_LIMIT_HEADERS) expect(second.headers[header], header).toEqual(expect.any(String));
    expect(remaining(first) - remaining(second)).toBe(1);
  });

  test('no key, a malformed key or a revoked one changes nothing: no headers, nothing counted, no failed authentication', async () => {
    const { channel, key } = await channelWithKey(ctx);
    const revoked = await issueKey(ctx, { channel: channel.name, scopes: 'read:catalog' });
    await revokeKey(ctx, revoked.id);
    const before = remaining(await api.call('GET', `${DISTRIBUTION_BASE}/channel`, { key: key.key }));
    const failuresBefore = await failedAuthentications();
    const tries = [undefined, otherLastCharacter(key.key), 'svc_test_short', revoked.key];
    for (const sent of tries) {
      for (const [method, path] of [
        ['DELETE', `${DISTRIBUTION_BASE}/channel`],
        ['GET', `${DISTRIBUTION_BASE}/nowhere`],
      ] as const) {
        const res = await api.call(method, path, sent === undefined ? {} : { key: sent });
        expect(res.status).toBe(method === 'DELETE' ? 405 : 404);
        for (const header of RATE_LIMIT_HEADERS) expect(res.headers[header], header).toBeUndefined();
      }
    }
    expect(remaining(await api.call('GET', `${DISTRIBUTION_BASE}/channel`, { key: key.key }))).toBe(before - 1);
    expect(await failedAuthentications()).toBe(failuresBefore);
    // Where a key is asked for, the revoked one is a failed authentication, and the count shows it.
    expectProblem(await api.call('GET', `${DISTRIBUTION_BASE}/channel`, { key: revoked.key }), 401, 'api_key_revoked');
    expect(await failedAuthentications()).toBe(failuresBefore + 1);
  });

  test('past the limit a 405 stays a 405, with no request left', async () => {
    const { key } = await channelWithKey(ctx, { rateLimit: 600 });
    let last: HttpResponse | undefined;
    for (let i = 0; i < 601; i++) last = await api.call('DELETE', `${DISTRIBUTION_BASE}/channel`, { key: key.key });
    expectProblem(last!, 405, 'method_not_allowed');
    expect(last!.headers['ratelimit-remaining']).toBe('0');
  });
});

describe('the description says which refusals carry the RateLimit headers', () => {
  test('every answer of an operation taking a key lists them, except 401', () => {
    for (const [path, item] of Object.entries(description.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, OperationObject>)) {
        if (op.security.length === 0) continue;
        for (const [status, response] of Object.entries(op.responses)) {
          expect(Object.keys(response.headers ?? {}).includes('RateLimit-Limit'), `${method} ${path} ${status}`).toBe(
            status !== '401',
          );
        }
      }
    }
  });

  test('403 partner_suspended and 415 carry them, as described', async () => {
    const { channel, key } = await channelWithKey(ctx, { scopes: ['manage:webhooks'] });
    const unsupported = await api.call('POST', `${DISTRIBUTION_BASE}/webhooks`, {
      key: key.key,
      rawBody: 'url=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(unsupported, 415, 'unsupported_media_type');
    expect(unsupported.headers['ratelimit-limit']).toBe('600');
    expectMatchesDescription('POST', `${DISTRIBUTION_BASE}/webhooks`, unsupported);
    await setChannelStatus(ctx, channel.name, 'suspended');
    const suspended = await api.call('GET', `${DISTRIBUTION_BASE}/webhooks`, { key: key.key });
    expectProblem(suspended, 403, 'partner_suspended');
    expect(suspended.headers['ratelimit-limit']).toBe('600');
    expectMatchesDescription('GET', `${DISTRIBUTION_BASE}/webhooks`, suspended);
  });

  test('the key set is described as needing no key, nowhere as taking any valid key', () => {
    const info = openApiDocument('https://distribution.test', 'sandbox').info.description;
    expect(info).toContain('`GET /owner-connect/keys`: no key');
    expect(info).not.toMatch(/owner-connect\/keys`: any valid key/);
    expect(info).not.toMatch(/absent from answers refused before the key was accepted \(401, 403 `partner_suspended`/);
  });
});
