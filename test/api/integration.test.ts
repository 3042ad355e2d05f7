import type { MikroORM } from '@mikro-orm/postgresql';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { integrationDocument, integrationOperations } from '../../api/integration/index.ts';
import { generateIntegrationToken } from '../../domain/integration-tokens.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesIntegrationDescription } from '../support/integration-description.ts';
import { expectProblem } from '../support/problems.ts';

const GUESTS = '/api/v1/integration/guests';
let api: TestApi;
let clock: TestClock;
let ctx: AdminContext;
let host: Platform;
let orm: MikroORM;

beforeAll(async () => {
  ({ api, clock, ctx, host, orm } = await apiTestBed());
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

async function organization(): Promise<string> {
  const ref = unique('org');
  await host.organization(ref);
  return ref;
}

async function install(org: string, scopes = ['guests.read']): Promise<string> {
  const res = await host.call('POST', `/organizations/${org}/installations`, { app: unique('app'), scopes });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

async function issue(installation: string, body: unknown = {}): Promise<string> {
  const res = await host.call('POST', `/installations/${installation}/token`, body);
  expect(res.status, res.text).toBe(201);
  return res.json.token as string;
}

async function appToken(org: string, scopes?: string[]) {
  const installation = await install(org);
  return { installation, token: await issue(installation, scopes ? { scopes } : {}) };
}

let guestCounter = 0;
function guestBody(org: string, overrides: Record<string, unknown> = {}) {
  guestCounter += 1;
  return {
    organization: org,
    first_name: `Ana${guestCounter}`,
    last_name: 'Popescu',
    email: `ana${guestCounter}@example.com`,
    phone: `+4072100${String(guestCounter).padStart(4, '0')}`,
    ...overrides,
  };
}

async function putGuest(ref: string, body: unknown) {
  const res = await host.call('PUT', `/guests/${ref}`, body);
  expect(res.status, res.text).toBeLessThan(300);
  return res;
}

const readGuests = (token: string) => api.call('GET', GUESTS, { key: token });

function expectError(res: Awaited<ReturnType<typeof readGuests>>, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.json).sort()).toEqual(['code', 'errors', 'message']);
  expect(res.json.code).toBe(code);
  expect(typeof res.json.errors).toBe('object');
  expect(Array.isArray(res.json.errors)).toBe(false);
  expectMatchesIntegrationDescription('GET', GUESTS, res);
}

describe('installations and tokens', () => {
  test('an installation answers {id, app, scopes, status: active}; the same app twice is 409', async () => {
    const org = await organization();
    const res = await host.call('POST', `/organizations/${org}/installations`, {
      app: 'acme-crm',
      scopes: ['guests.read'],
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      app: 'acme-crm',
      scopes: ['guests.read'],
      status: 'active',
      organization: org,
    });
    expectProblem(
      await host.call('POST', `/organizations/${org}/installations`, { app: 'acme-crm', scopes: ['guests.read'] }),
      409,
      'installation_exists',
    );
    expectProblem(
      await host.call('POST', '/organizations/nobody/installations', { app: 'acme-crm', scopes: ['guests.read'] }),
      404,
      'not_found',
    );
    const bad = await host.call('POST', `/organizations/${org}/installations`, { app: '', scopes: ['guests.write'] });
    expectProblem(bad, 400, 'invalid_parameters', ['errors']);
    expect(bad.json.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/app', '/scopes/0']);
  });

  test('a token is shown once, stored only as its SHA-256, and cannot be taken for a channel key', async () => {
    const org = await organization();
    const installation = await install(org);
    const res = await host.call('POST', `/installations/${installation}/token`);
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ token: expect.stringMatching(/^svci_test_[0-9A-Za-z]{54}$/), scopes: ['guests.read'] });
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<{ row: string }[]>('select row_to_json(t)::text as row from integration_token t');
    expect(rows.some(({ row }) => row.includes(res.json.token as string))).toBe(false);
    const listed = await host.call('GET', `/installations/${installation}`);
    expect(listed.text).not.toContain(res.json.token);
  });

  test('issuing a token revokes the previous at once: 401 token_revoked, the new one reads', async () => {
    const org = await organization();
    const { installation, token: first } = await appToken(org);
    expect((await readGuests(first)).status).toBe(200);
    const second = await issue(installation);
    const refused = await readGuests(first);
    expectError(refused, 401, 'token_revoked');
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="integration", error="invalid_token"');
    expect((await readGuests(second)).status).toBe(200);
  });

  test('concurrent issues leave exactly one live token, the last one committed', async () => {
    const installation = await install(await organization());
    const tokens = await Promise.all(Array.from({ length: 5 }, () => issue(installation)));
    const codes = await Promise.all(tokens.map(async (token) => (await readGuests(token)).json.code ?? 'read'));
    expect(codes.filter((code) => code === 'read')).toHaveLength(1);
    expect(codes.filter((code) => code === 'token_revoked')).toHaveLength(4);
  });

  test("token scopes are a subset of the installation's; anything else is refused whole", async () => {
    const org = await organization();
    const installation = await install(org);
    expectProblem(
      await host.call('POST', `/installations/${installation}/token`, { scopes: ['guests.write'] }),
      400,
      'invalid_parameters',
      ['errors'],
    );
    expectProblem(
      await host.call('POST', '/installations/00000000-0000-4000-8000-000000000000/token'),
      404,
      'not_found',
    );
  });
});

describe('the refusal table', () => {
  test('401 for a missing, malformed, unknown or foreign token, each in the {message, code, errors} shape', async () => {
    const org = await organization();
    const { token } = await appToken(org);
    const { key } = await channelWithKey(ctx);
    const signIn = await new SignJWT({ sub: 'user-1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('a-user-sign-in-secret-of-32-chars!!'));
    const missing = await api.call('GET', GUESTS);
    expectError(missing, 401, 'missing_token');
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="integration"');
    const invalid = {
      'bad checksum': `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`,
      truncated: token.slice(0, -2),
      'well-formed but unknown': generateIntegrationToken('sandbox'),
      "a channel's key": key.key,
      "the platform's token": TEST_PLATFORM_TOKEN,
      "a user's sign-in token": signIn,
    };
    for (const [what, sent] of Object.entries(invalid)) {
      const res = await readGuests(sent);
      expect(res.json?.code, what).toBe('invalid_token');
      expectError(res, 401, 'invalid_token');
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(res.headers['ratelimit-limit'], what).toBeUndefined();
    }
    expectError(await readGuests(generateIntegrationToken('production')), 401, 'token_wrong_environment');
  });

  test('403 for a token without the scope, naming it', async () => {
    const org = await organization();
    const { token } = await appToken(org, []);
    const res = await readGuests(token);
    expectError(res, 403, 'insufficient_scope');
    expect(res.json.errors).toEqual({ required_scopes: ['guests.read'] });
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="integration", error="insufficient_scope", scope="guests.read"',
    );
  });

  test('403 while the installation is disabled or in error; active again reads again', async () => {
    const org = await organization();
    const { installation, token } = await appToken(org);
    for (const [status, code] of [
      ['disabled', 'installation_disabled'],
      ['error', 'installation_error'],
    ] as const) {
      const patched = await host.call('PATCH', `/installations/${installation}`, { status });
      expect(patched.json.status).toBe(status);
      expectError(await readGuests(token), 403, code);
    }
    await host.call('PATCH', `/installations/${installation}`, { status: 'active' });
    expect((await readGuests(token)).status).toBe(200);
    expectProblem(
      await host.call('PATCH', `/installations/${installation}`, { status: 'paused' }),
      400,
      'invalid_parameters',
      ['errors'],
    );
  });

  test('an integration token works on neither the distribution interface nor the platform interface', async () => {
    const { token } = await appToken(await organization());
    expectProblem(await api.call('GET', '/api/v1/distribution/channel', { key: token }), 401, 'invalid_api_key');
    expectProblem(await api.call('GET', '/internal/v1/organizations/x', { key: token }), 401, 'platform_token_invalid');
  });

  test("unknown parameters, paths and methods answer in the interface's own shape", async () => {
    const { token } = await appToken(await organization());
    const res = await api.call('GET', `${GUESTS}?limit=10`, { key: token });
    expectError(res, 400, 'invalid_parameters');
    expect(Object.keys(res.json.errors)).toEqual(['limit']);
    const post = await api.call('POST', GUESTS, { key: token });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(post.json).toEqual({ message: expect.any(String), code: 'method_not_allowed', errors: {} });
    expectMatchesIntegrationDescription('POST', GUESTS, post);
    const missing = await api.call('GET', '/api/v1/integration/reservations', { key: token });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ message: expect.any(String), code: 'not_found', errors: {} });
  });

  test('repeated 401s from one address become 429 too_many_failed_authentications in the retry shape, while a good token the process already accepted still reads', async () => {
    const { api: strict, host: strictHost } = await apiTestBed({ clock, env: { AUTH_FAILURE_LIMIT: '2' } });
    await strictHost.organization('strict-org');
    const installed = (
      await strictHost.call('POST', '/organizations/strict-org/installations', { app: 'crm', scopes: ['guests.read'] })
    ).json;
    const { token } = (await strictHost.call('POST', `/installations/${installed.id}/token`)).json;
    expect((await strict.call('GET', GUESTS, { key: token })).status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await strict.call('GET', GUESTS, { key: generateIntegrationToken('sandbox') })).status);
    expect(statuses).toEqual([401, 401, 429]);
    const limited = await strict.call('GET', GUESTS, { key: 'nonsense' });
    expect(limited.json).toEqual({
      error: 'too_many_failed_authentications',
      message: expect.any(String),
      retry_after: expect.any(Number),
    });
    expect(limited.headers['retry-after']).toBe(String(limited.json.retry_after));
    expectMatchesIntegrationDescription('GET', GUESTS, limited);
    expect((await strict.call('GET', GUESTS, { key: token })).status).toBe(200);
  });

  test("past the installation's rate limit: 429 in the {error, message, retry_after} shape with Retry-After", async () => {
    const { token } = await appToken(await organization());
    const first = await readGuests(token);
    expect(first.headers['ratelimit-limit']).toBe('120');
    expect(first.headers['ratelimit-remaining']).toBe('119');
    for (let i = 1; i < 120; i++) await readGuests(token);
    const limited = await readGuests(token);
    expect(limited.status).toBe(429);
    expect(Object.keys(limited.json).sort()).toEqual(['error', 'message', 'retry_after']);
    expect(limited.json.error).toBe('rate_limited');
    expect(Number.isInteger(limited.json.retry_after)).toBe(true);
    expect(limited.headers['retry-after']).toBe(String(limited.json.retry_after));
    expectMatchesIntegrationDescription('GET', GUESTS, limited);
    // Another installation has its own window.
    expect((await readGuests((await appToken(await organization())).token)).status).toBe(200);
  });
});

describe('the guest list', () => {
  test('an app reads exactly the 50 newest guests of its own organization, newest first', async () => {
    const [mine, theirs] = [await organization(), await organization()];
    const { token } = await appToken(mine);
    const { token: theirToken } = await appToken(theirs);
    const written: string[] = [];
    for (let i = 0; i < 55; i++) {
      // Three guests share each instant: ties go to the later write.
      if (i % 3 === 0) clock.advance(1000);
      const ref = unique('guest');
      const res = await putGuest(ref, guestBody(mine));
      written.push(res.json.id as string);
    }
    const res = await readGuests(token);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expectMatchesIntegrationDescription('GET', GUESTS, res);
    expect(res.json.data.map((g: { id: string }) => g.id)).toEqual(written.slice(5).reverse());
    expect((await readGuests(theirToken)).json).toEqual({ data: [] });
    const [newest] = res.json.data;
    expect(Object.keys(newest).sort()).toEqual([
      'created_at',
      'email',
      'first_name',
      'full_name',
      'id',
      'last_name',
      'name',
      'organization_id',
      'phone',
      'updated_at',
    ]);
    expect(newest.full_name).toBe(`${newest.first_name} Popescu`);
    expect(newest.name).toBe(`Popescu, ${newest.first_name}`);
  });

  test("no guest of one organization is ever visible to the other's token, and its answer is unchanged by the other's guests", async () => {
    const [a, b] = [await organization(), await organization()];
    const { token: tokenA } = await appToken(a);
    const { token: tokenB } = await appToken(b);
    const refA = unique('guest');
    await putGuest(refA, guestBody(a, { first_name: 'Alina' }));
    const before = await readGuests(tokenA);
    for (let i = 0; i < 5; i++) await putGuest(unique('guest'), guestBody(b));
    const after = await readGuests(tokenA);
    expect(after.text).toBe(before.text);
    const seenByB = await readGuests(tokenB);
    expect(seenByB.json.data).toHaveLength(5);
    expect(seenByB.text).not.toContain('Alina');
    expect(
      new Set([...seenByB.json.data, ...after.json.data].map((g: { organization_id: string }) => g.organization_id))
        .size,
    ).toBe(2);
    // Moving a guest to the other organization moves it between the answers at once.
    await putGuest(refA, guestBody(b, { first_name: 'Alina' }));
    expect((await readGuests(tokenA)).json.data).toEqual([]);
    expect((await readGuests(tokenB)).text).toContain('Alina');
  });

  test('a removed guest is gone from the next answer', async () => {
    const org = await organization();
    const { token } = await appToken(org);
    const ref = unique('guest');
    await putGuest(ref, guestBody(org));
    expect((await readGuests(token)).json.data).toHaveLength(1);
    expect((await host.call('DELETE', `/guests/${ref}`)).status).toBe(204);
    expect((await readGuests(token)).json.data).toEqual([]);
    expectProblem(await host.call('GET', `/guests/${ref}`), 404, 'not_found');
    expectProblem(await host.call('DELETE', `/guests/${ref}`), 404, 'not_found');
  });
});

describe('guest writes', () => {
  test('a write is idempotent: the same body again changes nothing', async () => {
    const org = await organization();
    const ref = unique('guest');
    const body = guestBody(org);
    const created = await putGuest(ref, body);
    expect(created.status).toBe(201);
    clock.advance(5000);
    const again = await putGuest(ref, body);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(created.json);
    const changed = await putGuest(ref, { ...body, phone: '+40721999999' });
    expect(changed.json.updated_at).not.toBe(created.json.updated_at);
    expect(changed.json.id).toBe(created.json.id);
  });

  test('bad input is refused whole, one entry per failed rule, and writes nothing', async () => {
    const org = await organization();
    const ref = unique('guest');
    const res = await host.call('PUT', `/guests/${ref}`, {
      organization: org,
      first_name: ' ',
      last_name: 'Popescu',
      email: 'ana@',
      phone: '0721 000 000',
      extra: 1,
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      '/email',
      '/extra',
      '/first_name',
      '/phone',
    ]);
    expectProblem(await host.call('GET', `/guests/${ref}`), 404, 'not_found');
    const unknownOrg = await host.call('PUT', `/guests/${ref}`, guestBody('no-such-org'));
    expectProblem(unknownOrg, 400, 'invalid_parameters', ['errors']);
    expect(unknownOrg.json.errors).toEqual([
      expect.objectContaining({ pointer: '/organization', code: 'unknown_reference' }),
    ]);
  });

  test('an organization with guests or installations cannot be deleted', async () => {
    const org = await organization();
    await putGuest(unique('guest'), guestBody(org));
    expectProblem(await host.call('DELETE', `/organizations/${org}`), 409, 'resource_in_use');
  });
});

describe('the integration description', () => {
  test('is served with its changelog and docs page, needs no token, and lists exactly the routes the interface serves', async () => {
    const res = await api.call('GET', '/api/v1/integration/openapi.json');
    expect(res.status).toBe(200);
    expect(res.json).toEqual(integrationDocument('https://distribution.test'));
    expect(res.json.servers[0].url).toBe('https://distribution.test/api/v1/integration');
    expect(Object.keys(res.json.paths).sort()).toEqual(['/CHANGELOG.md', '/guests', '/openapi.json']);
    expect(res.json.paths['/guests'].get['x-required-scopes']).toEqual(['guests.read']);
    expect(res.json.info.description).toContain('**429**');
    expectMatchesIntegrationDescription('GET', '/api/v1/integration/openapi.json', res);
    expect(
      (await api.call('GET', '/api/v1/integration/openapi.json', { headers: { 'if-none-match': res.headers.etag! } }))
        .status,
    ).toBe(304);
    const changelog = await api.call('GET', '/api/v1/integration/CHANGELOG.md');
    expect(changelog.text).toContain(`## ${res.json.info.version}`);
    expectMatchesIntegrationDescription('GET', '/api/v1/integration/CHANGELOG.md', changelog);
    const docs = await api.call('GET', '/api/v1/integration/docs');
    expect(docs.text).toContain('/api/v1/integration/docs/init.js');
    // The page's own scripts and styles may run; nothing from elsewhere, no framing.
    expect(docs.headers['content-security-policy']).toContain("script-src 'self'");
    expect(docs.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect((await api.call('GET', '/api/v1/integration/docs/init.js')).text).toContain(
      "url: '/api/v1/integration/openapi.json'",
    );
    const served = integrationOperations.map((op) => `${op.method} ${op.path}`);
    const described = Object.entries(res.json.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(described.filter((entry) => !entry.endsWith('.md') && !entry.endsWith('.json')).sort()).toEqual(
      served.sort(),
    );
    // The distribution interface's description does not list the integration interface.
    const distribution = await api.call('GET', '/api/v1/distribution/openapi.json');
    expect(Object.keys(distribution.json.paths)).not.toContain('/guests');
  });
});

describe('personal data', () => {
  test("an unexpected failure of a guest write is answered 500 and logged without the guest's fields", async () => {
    const org = await organization();
    const lines: string[] = [];
    const { host: loudHost, orm: failing } = await apiTestBed({ clock, env: { LOG_LEVEL: 'error' } });
    await loudHost.organization(org);
    // A constraint this code does not expect: the insert fails inside the database.
    await failing.em
      .fork()
      .getConnection()
      .execute("alter table guest add constraint no_test_guests check (email not like '%@refused.example')");
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    };
    let res;
    try {
      res = await loudHost.call(
        'PUT',
        `/guests/${unique('guest')}`,
        guestBody(org, { first_name: 'Zenovia', email: 'zenovia@refused.example' }),
      );
    } finally {
      process.stderr.write = write;
    }
    expectProblem(res, 500, 'internal');
    expect(lines.join('')).toContain('guest write failed');
    expect(lines.join('')).not.toMatch(/Zenovia|zenovia|\+4072/);
  });
});
