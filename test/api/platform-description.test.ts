import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { internalOperations } from '../../api/internal/catalogue.ts';
import { platformDocument } from '../../api/internal/openapi.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi, TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { request } from '../support/https-client.ts';
import { describedPlatformPath, expectMatchesPlatformDescription } from '../support/platform-description.ts';
import { expectProblem } from '../support/problems.ts';

const BASE = '/internal/v1';
let api: TestApi;
let split: TestApi;
let ctx: AdminContext;

beforeAll(async () => {
  const bed = await apiTestBed();
  ({ api, ctx } = bed);
  // A second API on the same database, the platform interface on a listener of its own.
  split = await startTestApi({
    orm: bed.orm,
    temporal: bed.temporal,
    clock: bed.clock,
    env: { AUTH_FAILURE_LIMIT: '1000', INTERNAL_PORT: '0' },
  });
});

describe('the platform description', () => {
  test('is served with its changelog and docs page, needs no token, and lists exactly the routes the interface serves', async () => {
    const res = await api.call('GET', `${BASE}/openapi.json`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual(platformDocument('https://distribution.test'));
    expect(res.json.openapi).toBe('3.1.0');
    expect(res.json.servers[0].url).toBe('https://distribution.test/internal/v1');
    expect(res.json.components.securitySchemes).toHaveProperty('PlatformToken');
    expectMatchesPlatformDescription('GET', `${BASE}/openapi.json`, res);
    expect(
      (await api.call('GET', `${BASE}/openapi.json`, { headers: { 'if-none-match': res.headers.etag! } })).status,
    ).toBe(304);
    const changelog = await api.call('GET', `${BASE}/CHANGELOG.md`);
    expect(changelog.text).toContain(`## ${res.json.info.version}`);
    expectMatchesPlatformDescription('GET', `${BASE}/CHANGELOG.md`, changelog);
    const docs = await api.call('GET', `${BASE}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.text).toContain(`${BASE}/docs/init.js`);
    expect(docs.headers['content-security-policy']).toContain("script-src 'self'");
    expect(docs.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect((await api.call('GET', `${BASE}/docs/init.js`)).text).toContain(`url: '${BASE}/openapi.json'`);
    const served = internalOperations.map((op) => `${op.method} ${op.path}`);
    const described = Object.entries(res.json.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(described.filter((entry) => !entry.endsWith('.md') && !entry.endsWith('.json')).sort()).toEqual(
      served.sort(),
    );
    // Every platform operation needs the token; the description's own two addresses do not.
    for (const [path, item] of Object.entries(
      res.json.paths as Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>>,
    )) {
      for (const operation of Object.values(item)) {
        const open = path === '/openapi.json' || path === '/CHANGELOG.md';
        expect(operation.security).toEqual(open ? [] : [{ PlatformToken: [] }]);
        expect('401' in operation.responses).toBe(!open);
      }
    }
    // Neither other description lists the platform interface.
    for (const other of ['/api/v1/distribution/openapi.json', '/api/v1/integration/openapi.json']) {
      const document = (await api.call('GET', other)).json;
      expect(Object.keys(document.paths)).not.toContain('/organizations/{ref}');
      expect(JSON.stringify(document)).not.toContain('PlatformToken');
    }
  });

  test('the request schema of POST /availability shows how its fields nest', () => {
    const document = platformDocument('https://distribution.test');
    const body = JSON.stringify(document.paths['/availability']!.post!.requestBody);
    for (const field of ['updates', 'property', 'from', 'to', 'rates', 'rate_plan', 'prices_by_occupancy'])
      expect(body).toContain(`"${field}"`);
  });

  test("a platform operation without the token is refused as described; the description's other methods are 405", async () => {
    const refused = await api.call('GET', `${BASE}/organizations/none`);
    expectProblem(refused, 401, 'platform_token_invalid');
    expectMatchesPlatformDescription('GET', `${BASE}/organizations/none`, refused);
    const post = await api.call('POST', `${BASE}/openapi.json`, { key: TEST_PLATFORM_TOKEN, body: {} });
    expectProblem(post, 405, 'method_not_allowed');
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  test('on a listener of its own the platform interface serves its description and a docs page whose renderer is on that listener', async () => {
    const internal = split.internalUrl!;
    const get = (path: string) => request(internal, split.ca, 'GET', path);
    const description = await get(`${BASE}/openapi.json`);
    expect(description.status).toBe(200);
    expect(JSON.parse(description.text).info.title).toBe('Distribution Service: platform interface');
    const page = await get(`${BASE}/docs`);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) expect((await get(asset)).status, asset).toBe(200);
    // The public listener of that deployment has none of it.
    expect((await split.call('GET', `${BASE}/openapi.json`)).status).toBe(404);
  });

  test('every platform operation answers as described: a tour of all of them, each answer checked against the description', async () => {
    const host = platform(api);
    const called = new Set<string>();
    // The helper checks each answer against the description; this records which operations the tour reached.
    const call = async (method: string, path: string, body?: unknown, expected = 200) => {
      const res = await host.call(method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(expected);
      called.add(`${method.toLowerCase()} ${describedPlatformPath(`${BASE}${path}`)}`);
      return res;
    };
    const { channel } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    await call('PUT', '/organizations/tour-org', { name: 'Tour', country: 'RO' }, 201);
    await call('GET', '/organizations/tour-org');
    await call(
      'PUT',
      '/owners/tour-own',
      { organization: 'tour-org', type: 'individual', display_name: 'Ana Popescu' },
      201,
    );
    await call('GET', '/owners/tour-own');
    await host.location('tour-loc', { organization: 'tour-org', owner: 'tour-own' });
    await call('PUT', '/locations/tour-loc', (await call('GET', '/locations/tour-loc')).json);
    await host.property('tour-prp', { location: 'tour-loc', owner: 'tour-own' });
    await call('PUT', '/properties/tour-prp', (await call('GET', '/properties/tour-prp')).json);
    await call('PUT', '/properties/tour-prp/distribution', { channels: [channel.name] });
    await call('GET', '/properties/tour-prp/distribution');
    await call('POST', '/availability', {
      updates: [{ property: 'tour-prp', from: '2026-12-01', to: '2026-12-03', units_available: 1 }],
    });
    await call('POST', '/owners/tour-own/owner-connect', { channel: channel.name });
    const json = await api.call('POST', `${BASE}/owners/tour-own/owner-connect`, {
      key: TEST_PLATFORM_TOKEN,
      body: { channel: channel.name },
      headers: { accept: 'application/json' },
    });
    expect(json.status, json.text).toBe(200);
    expectMatchesPlatformDescription('POST', `${BASE}/owners/tour-own/owner-connect`, json);
    await call('GET', '/properties/tour-prp/listings');
    await call('GET', '/properties/tour-prp/stats?from=2026-11-01&to=2026-11-22');
    const installation = (
      await call('POST', '/organizations/tour-org/installations', { app: 'tour-crm', scopes: ['guests.read'] }, 201)
    ).json.id as string;
    await call('GET', `/installations/${installation}`);
    await call('PATCH', `/installations/${installation}`, { status: 'disabled' });
    await call('POST', `/installations/${installation}/token`, {}, 201);
    await call(
      'PUT',
      '/guests/tour-gst',
      {
        organization: 'tour-org',
        first_name: 'Ion',
        last_name: 'Pop',
        email: 'ion@example.com',
        phone: '+40721000002',
      },
      201,
    );
    await call('GET', '/guests/tour-gst');
    await call('DELETE', '/guests/tour-gst', undefined, 204);
    await call('PUT', '/vat-rates/HU', { rates: [{ from: '2025-01-01', rate_bp: 1800 }] });
    await call('GET', '/vat-rates/HU');
    await call('POST', '/host-sessions', { organization: 'tour-org' }, 201);
    await call('DELETE', '/properties/tour-prp', undefined, 204);
    await call('DELETE', '/locations/tour-loc', undefined, 204);
    await call('DELETE', '/owners/tour-own', undefined, 204);
    await call('PUT', '/organizations/tour-empty', { name: 'Empty', country: 'RO' }, 201);
    await call('DELETE', '/organizations/tour-empty', undefined, 204);
    // Refusals are described too: bad input, an unknown record, a record in use.
    await call('PUT', '/organizations/tour-bad', { name: '' }, 400);
    await call('GET', '/organizations/tour-none', undefined, 404);
    await call('DELETE', '/organizations/tour-org', undefined, 409);
    expect([...called].filter((entry) => entry.includes('undefined'))).toEqual([]);
    expect(internalOperations.map((op) => `${op.method} ${op.path}`).filter((entry) => !called.has(entry))).toEqual([]);
  });
});
