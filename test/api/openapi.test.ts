import type { Express } from 'express';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../app/config.ts';
import { DISTRIBUTION_BASE, distributionOperations } from '../../api/distribution/index.ts';
import {
  API_REVISION,
  describedOperations,
  openApiDocument,
  type OperationObject,
} from '../../api/openapi/document.ts';
import { singleKeyRing } from '../../domain/key-ring.ts';
import { GRANTABLE_SCOPES } from '../../domain/scopes.ts';
import { createLogger } from '../../infra/logger.ts';
import { serviceDeps } from '../../services/deps.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { description, expectMatchesDescription, TEST_ORIGIN } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const CHANNEL = `${DISTRIBUTION_BASE}/channel`;
let api: TestApi;
let app: Express;
let ctx: AdminContext;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: new TestClock() });
  const { orm, temporal, clock } = bed;
  ({ api, ctx } = bed);
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  app = createApp(
    serviceDeps({
      orm,
      temporal,
      clock,
      config,
      log: createLogger('silent'),
      secrets: { ring: singleKeyRing(new Uint8Array(32)), platformTokenHash: new Uint8Array(32) },
    }),
    { publicOrigin: TEST_ORIGIN },
  );
});

const described = () =>
  Object.entries(description.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );
const concrete = (path: string) =>
  DISTRIBUTION_BASE +
  path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => `${name.split('_')[0]}_0aaaaaaaaaaaaaaaaaaaaaaaaa`);

interface RouterLayer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
}

/** Method and path of every route Express serves, `:param` written `{param}`; `all` routes (405) left out. */
function expressRoutes(stack: RouterLayer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const paths = (Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path]) as string[];
      const methods = Object.keys(layer.route.methods).filter((m) => m !== '_all');
      return paths.flatMap((p) => methods.map((m) => `${m} ${prefix}${p.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`));
    }
    if (!layer.handle.stack) return [];
    const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    return expressRoutes(layer.handle.stack, prefix + mount);
  });
}

describe('the description and the routes cannot drift apart', () => {
  test('every described operation comes from the registry or the description itself, and each exactly once', () => {
    const fromDocument = described()
      .map(({ method, path, op }) => `${method} ${path} ${op.operationId}`)
      .sort();
    const fromRegistry = describedOperations.map((op) => `${op.method} ${op.path} ${op.operationId}`).sort();
    expect(fromDocument).toEqual(fromRegistry);
    expect(distributionOperations.length).toBeGreaterThan(20);
  });

  test('every route Express serves under the base is described, and every described operation is routed', () => {
    const routes = expressRoutes((app as unknown as { router: { stack: RouterLayer[] } }).router.stack)
      .filter((route) => route.split(' ')[1]!.startsWith(DISTRIBUTION_BASE))
      .map((route) => route.replace(` ${DISTRIBUTION_BASE}`, ' '));
    expect(routes).toContain('get /channel');
    expect(new Set(routes)).toEqual(new Set(described().map(({ method, path }) => `${method} ${path}`)));
  });

  test('every described path and method is answered, never with a path miss', async () => {
    for (const { method, path, op } of described()) {
      const res = await api.call(method.toUpperCase(), concrete(path));
      expect(res.json?.code, `${method} ${path}`).not.toBe('not_found');
      expect(res.status, `${method} ${path}`).toBe(op.security.length === 0 ? 200 : 401);
      expectMatchesDescription(method, concrete(path), res);
    }
  });

  test('after authentication every planned operation answers 501 not_implemented, as described', async () => {
    const { key } = await channelWithKey(ctx, { scopes: [...GRANTABLE_SCOPES] });
    const planned = described().filter(({ op }) => op['x-svc-availability'] === 'planned');
    expect(planned.length).toBe(distributionOperations.filter((op) => op.planned).length);
    for (const { method, path } of planned) {
      const res = await api.call(method.toUpperCase(), concrete(path), { key: key.key });
      expectProblem(res, 501, 'not_implemented');
      expectMatchesDescription(method, concrete(path), res);
    }
  });

  test('the served description is the one built from the registry', async () => {
    const res = await api.call('GET', `${DISTRIBUTION_BASE}/openapi.json`);
    expect(res.json).toEqual(JSON.parse(JSON.stringify(openApiDocument(TEST_ORIGIN, 'sandbox'))));
    expect(openApiDocument(TEST_ORIGIN, 'sandbox')).toBe(openApiDocument(TEST_ORIGIN, 'sandbox'));
  });
});

describe('answers validate against the described schemas', () => {
  test('GET /channel 200, and 304 to its ETag', async () => {
    const { key } = await channelWithKey(ctx);
    const res = await api.call('GET', CHANNEL, { key: key.key });
    expect(res.status).toBe(200);
    expectMatchesDescription('GET', CHANNEL, res);
    const again = await api.call('GET', CHANNEL, { key: key.key, headers: { 'if-none-match': res.headers.etag! } });
    expect(again.status).toBe(304);
    expectMatchesDescription('GET', CHANNEL, again);
  });

  test('401 missing_api_key', async () => {
    const res = await api.call('GET', CHANNEL);
    expectProblem(res, 401, 'missing_api_key');
    expectMatchesDescription('GET', CHANNEL, res);
  });

  test('403 insufficient_scope with required_scopes', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:ari'] });
    const res = await api.call('GET', `${DISTRIBUTION_BASE}/locations`, { key: key.key });
    expectProblem(res, 403, 'insufficient_scope', ['required_scopes']);
    expectMatchesDescription('GET', `${DISTRIBUTION_BASE}/locations`, res);
  });

  test('405 with Allow on a path that lacks the method', async () => {
    const res = await api.call('DELETE', CHANNEL);
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
    expectMatchesDescription('DELETE', CHANNEL, res);
  });

  test('the validator refuses a body the description does not promise', async () => {
    const { key } = await channelWithKey(ctx);
    const res = await api.call('GET', CHANNEL, { key: key.key });
    const withExtraField = { ...res, json: { ...res.json, secret: 'x' } };
    expect(() => expectMatchesDescription('GET', CHANNEL, withExtraField)).toThrow();
    expect(() => expectMatchesDescription('GET', CHANNEL, { ...res, status: 418 })).toThrow(/418 is not described/);
    const wrongCode = await api.call('GET', CHANNEL);
    expect(() =>
      expectMatchesDescription('GET', CHANNEL, {
        ...wrongCode,
        json: { ...wrongCode.json, code: 'insufficient_scope' },
      }),
    ).toThrow();
  });
});

// The contract's Endpoints table; `null` where it does not show the scope.
const CONTRACT_ENDPOINTS: [string, string, string[] | null][] = [
  ['get', '/channel', []],
  ['get', '/locations', ['read:catalog']],
  ['get', '/owners', ['read:catalog']],
  ['get', '/properties/{property_id}', ['read:catalog']],
  ['get', '/amenities', ['read:catalog']],
  ['get', '/availability', ['read:ari']],
  ['get', '/properties/{property_id}/listing', null],
  ['put', '/properties/{property_id}/listing', ['write:listings']],
  ['post', '/listing-stats', ['write:listings']],
  ['put', '/owners/{owner_id}/connection', null],
  ['delete', '/owners/{owner_id}/connection', null],
  ['post', '/webhooks', ['manage:webhooks']],
  ['post', '/webhooks/{webhook_id}/test', ['manage:webhooks']],
  ['get', '/webhooks/{webhook_id}/deliveries', ['manage:webhooks']],
  ['get', '/webhooks/{webhook_id}/deliveries/{delivery_id}', ['manage:webhooks']],
  ['post', '/webhooks/{webhook_id}/enable', ['manage:webhooks']],
  ['post', '/webhooks/{webhook_id}/rotate-secret', ['manage:webhooks']],
  ['get', '/events', null],
  ['get', '/properties', null],
  ['get', '/webhooks', null],
  ['delete', '/webhooks/{webhook_id}', null],
  ['get', '/quotes', null],
];

describe('the document', () => {
  test('names its revision and its server', () => {
    expect(description.openapi).toBe('3.1.0');
    expect(description.info.version).toBe(API_REVISION);
    expect(description.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(description.servers).toEqual([expect.objectContaining({ url: `${TEST_ORIGIN}${DISTRIBUTION_BASE}` })]);
  });

  test.each(CONTRACT_ENDPOINTS)(
    'describes %s %s with its scopes in the requirement, the extension and the text',
    (method, path, scopes) => {
      const op = (description.paths[path] as Record<string, OperationObject> | undefined)?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      const required = op!['x-required-scopes'];
      const alternatives = op!['x-required-scopes-any'];
      expect(op!.security).toEqual(
        alternatives ? alternatives.map((scope) => ({ ApiKey: [...required!, scope] })) : [{ ApiKey: required }],
      );
      if (scopes) expect(required).toEqual(scopes);
      for (const scope of required ?? []) expect(op!.description).toContain(`\`${scope}\``);
      expect(op!.responses['401']?.['x-problem-codes']).toEqual([
        'missing_api_key',
        'invalid_api_key',
        'api_key_wrong_environment',
        'api_key_expired',
        'api_key_revoked',
      ]);
      expect(op!.responses['429']?.headers).toHaveProperty('Retry-After');
      // GET /events needs no one scope but refuses a key holding neither read:catalog nor read:ari.
      const refusesScope = required!.length > 0 || path === '/events';
      expect(op!.responses['403']?.['x-problem-codes']).toEqual(
        refusesScope ? ['insufficient_scope', 'partner_suspended'] : ['partner_suspended'],
      );
    },
  );

  // The contract leaves its authentication unshown; the key set is public and served without a key.
  test('describes get /owner-connect/keys as needing no key, with no refusal of a key', () => {
    const op = (description.paths['/owner-connect/keys'] as Record<string, OperationObject>).get!;
    expect(op.security).toEqual([]);
    expect(op['x-required-scopes']).toBeUndefined();
    expect(op.responses['401']).toBeUndefined();
    expect(op.description).toContain('No key needed');
    expect(op['x-svc-availability']).toBeUndefined();
  });

  test('marks planned operations and only them', () => {
    for (const op of describedOperations) {
      const doc = (description.paths[op.path] as Record<string, OperationObject>)[op.method]!;
      expect(doc['x-svc-availability'], op.operationId).toBe(op.planned ? 'planned' : undefined);
      expect(Object.keys(doc.responses).includes('501'), op.operationId).toBe(op.planned === true);
    }
    expect(description.paths['/channel']?.get?.['x-svc-availability']).toBeUndefined();
    expect(description.paths['/locations']?.get?.['x-svc-availability']).toBeUndefined();
    expect(description.paths['/availability']?.get?.['x-svc-availability']).toBeUndefined();
    // Served on the sandbox first: planned only in production's description.
    expect(description.paths['/quotes']?.get?.['x-svc-availability']).toBeUndefined();
    expect(openApiDocument(TEST_ORIGIN, 'production').paths['/quotes']?.get?.['x-svc-availability']).toBe('planned');
  });

  test('every GET carries ETag and answers 304, nothing else does; the description and changelog need no key', () => {
    for (const { method, op } of described()) {
      expect(Object.keys(op.responses).includes('304'), op.operationId).toBe(method === 'get');
      if (method === 'get') expect(op.responses['200']?.headers, op.operationId).toHaveProperty('ETag');
      else expect(op.responses['200']?.headers ?? {}, op.operationId).not.toHaveProperty('ETag');
    }
    expect(description.paths['/openapi.json']!.get!.security).toEqual([]);
    expect(description.paths['/CHANGELOG.md']!.get!.security).toEqual([]);
  });
});

describe('serving the description', () => {
  test('openapi.json needs no key, is cacheable and answers 304 to its ETag', async () => {
    const path = `${DISTRIBUTION_BASE}/openapi.json`;
    const res = await api.call('GET', path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toContain('max-age');
    expect(res.json.info.version).toBe(API_REVISION);
    expectMatchesDescription('GET', path, res);
    const again = await api.call('GET', path, { headers: { 'if-none-match': res.headers.etag! } });
    expect(again.status).toBe(304);
    expectMatchesDescription('GET', path, again);
    const refused = await api.call('POST', path, { body: {} });
    expectProblem(refused, 405, 'method_not_allowed');
    expect(refused.headers.allow).toBe('GET, HEAD');
    expectMatchesDescription('POST', path, refused);
  });

  test('the changelog is served as markdown with an entry for the current revision', async () => {
    const path = `${DISTRIBUTION_BASE}/CHANGELOG.md`;
    const res = await api.call('GET', path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.text).toContain(`## ${API_REVISION}`);
    expectMatchesDescription('GET', path, res);
    const again = await api.call('GET', path, { headers: { 'if-none-match': res.headers.etag! } });
    expect(again.status).toBe(304);
    expectMatchesDescription('GET', path, again);
  });

  test('/docs renders the description with a renderer served here, not from a CDN', async () => {
    const page = await api.call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).toEqual(
      expect.arrayContaining(['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/init.js']),
    );
    for (const source of sources) {
      expect(source, 'no external address').toMatch(/^\//);
      const asset = await api.call('GET', source);
      expect(asset.status, source).toBe(200);
    }
    const bundle = await api.call('GET', '/docs/swagger-ui-bundle.js');
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.text).toContain('SwaggerUIBundle');
    const init = await api.call('GET', '/docs/init.js');
    expect(init.text).toContain(`'${DISTRIBUTION_BASE}/openapi.json'`);
    expect(init.text).toContain('validatorUrl: null');
  });
});
