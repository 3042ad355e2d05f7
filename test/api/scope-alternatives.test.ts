import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import type { OperationObject } from '../../api/openapi/document.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { description, expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const EVENTS = '/api/v1/distribution/events';
let api: TestApi;
let ctx: AdminContext;

beforeAll(async () => {
  ({ api, ctx } = await apiTestBed({ clock: new TestClock() }));
});

describe('an operation that takes either of two scopes says so', () => {
  test('GET /events with a manage:webhooks key: required_scopes lists the alternatives and required_scopes_match says any one is enough', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['manage:webhooks'] });
    const res = await api.call('GET', EVENTS, { key: key.key });
    expectProblem(res, 403, 'insufficient_scope', ['required_scopes', 'required_scopes_match']);
    expect(res.json.required_scopes).toEqual(['read:catalog', 'read:ari']);
    expect(res.json.required_scopes_match).toBe('any');
    expect(res.json.detail).toBe('Needs any one of read:catalog, read:ari');
    expect(res.headers['www-authenticate']).toContain('scope="read:catalog read:ari"');
    expectMatchesDescription('GET', EVENTS, res);
  });

  test.each([['read:catalog'], ['read:ari']] as const)('GET /events with only %s is served', async (scope) => {
    const { key } = await channelWithKey(ctx, { scopes: [scope] });
    expect((await api.call('GET', EVENTS, { key: key.key })).status).toBe(200);
  });

  test('a refusal where every listed scope is needed carries no required_scopes_match', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:ari'] });
    const res = await api.call('GET', '/api/v1/distribution/locations', { key: key.key });
    expectProblem(res, 403, 'insufficient_scope', ['required_scopes']);
  });

  test('the description lists each alternative as its own security requirement', () => {
    const op = (description.paths['/events'] as Record<string, OperationObject>).get!;
    expect(op.security).toEqual([{ ApiKey: ['read:catalog'] }, { ApiKey: ['read:ari'] }]);
    expect(op['x-required-scopes-any']).toEqual(['read:catalog', 'read:ari']);
    expect(op.description).toContain('Needs a key with any one of `read:catalog` or `read:ari`.');
  });
});
