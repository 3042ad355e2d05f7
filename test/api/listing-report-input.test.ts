import { beforeAll, describe, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let key: string;
let path: string;

beforeAll(async () => {
  const bed = await apiTestBed();
  const { host } = bed;
  api = bed.api;
  const { channel, key: made } = await bed.channel({ scopes: ['read:catalog', 'write:listings'] });
  key = made.key;
  await host.organization('inst-org');
  await host.owner('inst-own', { organization: 'inst-org' });
  await host.location('inst-loc', { organization: 'inst-org', owner: 'inst-own' });
  await host.property('inst-p', { location: 'inst-loc', owner: 'inst-own' });
  await host.distribute('inst-p', [channel.name]);
  const [property] = (await api.call('GET', `${BASE}/properties`, { key })).json.data as { id: string }[];
  path = `${BASE}/properties/${property!.id}/listing`;
});

const report = (promotedUntil: string) => ({ status: 'unpublished', promoted: true, promoted_until: promotedUntil });

describe('promoted_until is an instant the service can store and read back', () => {
  test.each(['0024-01-01T01:23:22Z', '0999-12-31T23:59:59Z', '1969-12-31T23:59:59Z', '+012026-01-01T00:00:00Z'])(
    '%s is refused as invalid_parameters, as the description says, and nothing is stored',
    async (instant) => {
      const res = await api.call('PUT', path, { key, body: report(instant) });
      expectProblem(res, 400, 'invalid_parameters', ['errors']);
      expect(res.json.errors).toEqual([expect.objectContaining({ pointer: '/promoted_until' })]);
      expectMatchesDescription('PUT', path, res);
    },
  );

  test.each([
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'],
    ['9999-12-31T23:59:59+01:00', '9999-12-31T22:59:59Z'],
  ])('%s is stored and read back as %s', async (instant, stored) => {
    expect((await api.call('PUT', path, { key, body: report(instant) })).status).toBe(200);
    const read = await api.call('GET', path, { key });
    expect(read.status).toBe(200);
    expect(read.json.promoted_until).toBe(stored);
  });
});

describe('text for people to read carries no control characters', () => {
  test.each(['\u0000', 'a\u0007b', '\u001b[31mred'])(
    'a rejection text with %j is refused as invalid_parameters, not a failure of the service',
    async (text) => {
      const res = await api.call('PUT', path, {
        key,
        body: { status: 'rejected', rejection: { reason: 'photos', text } },
      });
      expectProblem(res, 400, 'invalid_parameters', ['errors']);
      expect(res.json.errors).toEqual([
        expect.objectContaining({ code: 'control_character', pointer: '/rejection/text' }),
      ]);
    },
  );

  test('tabs and line breaks are text', async () => {
    const res = await api.call('PUT', path, {
      key,
      body: { status: 'rejected', rejection: { reason: 'photos', text: 'Line one\r\nLine\ttwo' } },
    });
    expect(res.status).toBe(200);
    expect(res.json.rejection.text).toBe('Line one\r\nLine\ttwo');
  });
});
