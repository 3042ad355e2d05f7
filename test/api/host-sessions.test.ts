import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi, TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { createChannel, setChannelStatus } from '../../admin/channels.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { cookieValue, csrfOf, hostLink, hostRequest, openSession, SESSION_COOKIE } from '../support/host-pages.ts';
import { createLogger } from '../../infra/logger.ts';
import { request } from '../support/https-client.ts';
import { expectProblem } from '../support/problems.ts';

// The platform's link to the host pages and the session it opens, over real TLS against the real
// database: refusals of POST /internal/v1/host-sessions, the link's single use and lifetime, the
// session's cookie, lifetimes and CSRF, and the organization scope of the pages.

let api: TestApi;
let clock: TestClock;
let host: Platform;
let ctx: AdminContext;
let orm: MikroORM;
let temporal: Client;

beforeAll(async () => {
  ({ api, clock, ctx, host, orm, temporal } = await apiTestBed());
  await host.organization('hs-org');
  await host.organization('hs-other');
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

/** An owner of `organization` with one property distributed to a fresh channel. */
async function distributedOwner(organization: string, displayName: string) {
  const { channel } = await channelWithKey(ctx);
  const owner = unique('own');
  const location = unique('loc');
  const property = unique('prp');
  await host.owner(owner, { organization, display_name: displayName });
  await host.location(location, { organization, owner });
  await host.property(property, { location, owner });
  await host.distribute(property, [channel.name]);
  return { owner, channel: channel.name };
}

describe('POST /internal/v1/host-sessions', () => {
  test('answers a one-time link to the host pages valid five minutes', async () => {
    const res = await api.call('POST', '/internal/v1/host-sessions', {
      key: TEST_PLATFORM_TOKEN,
      body: { organization: 'hs-org', locale: 'ro-RO' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(['expires_at', 'url']);
    // The token in the query string: the access log writes paths without it.
    expect(res.json.url).toMatch(/^https:\/\/distribution\.test\/host\/open\?token=hsl_[A-Za-z0-9_-]{43}$/);
    expect(res.json.expires_at).toBe('2026-11-22T10:05:00Z');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('refuses an organization the platform never wrote, naming the field', async () => {
    const res = await api.call('POST', '/internal/v1/host-sessions', {
      key: TEST_PLATFORM_TOKEN,
      body: { organization: 'no-such-org' },
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual([expect.objectContaining({ code: 'unknown_reference', pointer: '/organization' })]);
  });

  test.each([
    ['no organization', {}, '/organization'],
    ['a reference with a space', { organization: 'hs org' }, '/organization'],
    ['a locale that is no language tag', { organization: 'hs-org', locale: 'english please' }, '/locale'],
    ['an unknown field', { organization: 'hs-org', user: 'ana' }, '/user'],
  ])('refuses a body with %s', async (_name, body, pointer) => {
    const res = await api.call('POST', '/internal/v1/host-sessions', { key: TEST_PLATFORM_TOKEN, body });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  test('refuses a channel key and no token', async () => {
    const { key } = await channelWithKey(ctx);
    expectProblem(
      await api.call('POST', '/internal/v1/host-sessions', { key: key.key, body: { organization: 'hs-org' } }),
      401,
      'platform_token_invalid',
    );
    expectProblem(
      await api.call('POST', '/internal/v1/host-sessions', { body: { organization: 'hs-org' } }),
      401,
      'platform_token_invalid',
    );
  });
});

describe('with INTERNAL_PORT (the platform interface on a listener of its own)', () => {
  test('the platform asks on the internal listener; the link opens on the public one, which alone serves the pages', async () => {
    const split = await startTestApi({ orm, temporal, clock, env: { INTERNAL_PORT: '0', AUTH_FAILURE_LIMIT: '1000' } });
    const ask = (base: string) =>
      request(base, split.ca, 'POST', '/internal/v1/host-sessions', {
        headers: { authorization: `Bearer ${TEST_PLATFORM_TOKEN}` },
        body: { organization: 'hs-org' },
      });
    expectProblem(await ask(split.url), 404, 'not_found');
    const asked = await ask(split.internalUrl!);
    expect(asked.status).toBe(201);
    const url = new URL(asked.json.url as string);
    const path = `${url.pathname}${url.search}`;
    expect((await request(split.internalUrl!, split.ca, 'GET', path)).status).toBe(404);
    const opened = await hostRequest(split, 'GET', path);
    expect(opened.status).toBe(303);
    expect((await hostRequest(split, 'GET', '/host/', { cookie: cookieValue(opened) })).status).toBe(200);
  });
});

describe('the log', () => {
  test("carries neither the link's token nor the session cookie nor the CSRF token", async () => {
    const lines: string[] = [];
    const logged = await startTestApi({
      orm,
      temporal,
      clock,
      log: createLogger('debug', {}, { write: (line: string) => void lines.push(line) }),
      env: { AUTH_FAILURE_LIMIT: '1000' },
    });
    const link = await hostLink(logged, 'hs-org');
    const token = new URL(link.url).searchParams.get('token')!;
    const opened = await hostRequest(logged, 'GET', link.path);
    const cookie = cookieValue(opened);
    const page = await hostRequest(logged, 'GET', '/host/', { cookie });
    await hostRequest(logged, 'POST', '/host/logout', { cookie, form: { csrf: csrfOf(page) } });
    await hostRequest(logged, 'GET', link.path);
    const requests = lines.filter((line) => line.includes('"request"'));
    expect(requests.some((line) => line.includes('"/host/open"'))).toBe(true);
    for (const secret of [token, cookie, cookie.split('.')[0]!, csrfOf(page)])
      expect(lines.join('\n')).not.toContain(secret);
  });
});

describe('the link', () => {
  test('opens a session once: an HttpOnly, Secure, SameSite cookie, then the owners page', async () => {
    const link = await hostLink(api, 'hs-org');
    // A link checker's HEAD does not spend it.
    const head = await hostRequest(api, 'HEAD', link.path);
    expect(head.status).toBe(200);
    expect(head.headers['set-cookie']).toBeUndefined();
    const opened = await hostRequest(api, 'GET', link.path);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/host/');
    expect(opened.headers['set-cookie']).toMatch(
      new RegExp(
        `^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}\\.[A-Za-z0-9_-]{43}; Path=/; Max-Age=43200; Secure; HttpOnly; SameSite=Lax$`,
      ),
    );
    expect(opened.headers['referrer-policy']).toBe('no-referrer');
    const page = await hostRequest(api, 'GET', '/host/', { cookie: cookieValue(opened) });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Org hs-org');

    const again = await hostRequest(api, 'GET', link.path);
    expect(again.status).toBe(410);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.text).toContain('This link was already used');
  });

  test('expires after five minutes, and an unknown link is told apart from neither with a stack', async () => {
    const link = await hostLink(api, 'hs-org');
    clock.advance(300_000);
    const expired = await hostRequest(api, 'GET', link.path);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('This link has expired');
    const unknown = await hostRequest(api, 'GET', `/host/open?token=hsl_${'A'.repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('This link is not valid');
    for (const res of [expired, unknown]) expect(res.text).not.toMatch(/at \w+ \(|Error:/);
  });
});

describe('the session', () => {
  test('is refused when forged, after 8 idle hours, and 12 hours after sign-in however active', async () => {
    const cookie = await openSession(api, 'hs-org');
    const forged = `${cookie.slice(0, 43)}.${'A'.repeat(43)}`;
    expect((await hostRequest(api, 'GET', '/host/', { cookie: forged })).status).toBe(401);

    clock.advance(8 * 3600_000 - 1000);
    expect((await hostRequest(api, 'GET', '/host/', { cookie })).status).toBe(200);
    clock.advance(3 * 3600_000);
    expect((await hostRequest(api, 'GET', '/host/', { cookie })).status).toBe(200);
    clock.advance(3600_000 + 1000);
    const ended = await hostRequest(api, 'GET', '/host/', { cookie });
    expect(ended.status).toBe(401);
    expect(ended.text).toContain('Your session has ended');

    const idle = await openSession(api, 'hs-org');
    clock.advance(8 * 3600_000);
    expect((await hostRequest(api, 'GET', '/host/', { cookie: idle })).status).toBe(401);
  });

  test('ends at sign-out: the cookie is cleared and no longer accepted', async () => {
    const cookie = await openSession(api, 'hs-org');
    const page = await hostRequest(api, 'GET', '/host/', { cookie });
    const out = await hostRequest(api, 'POST', '/host/logout', { cookie, form: { csrf: csrfOf(page) } });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/host/signed-out');
    expect(out.headers['set-cookie']).toMatch(/Max-Age=0/);
    expect((await hostRequest(api, 'GET', '/host/', { cookie })).status).toBe(401);
  });

  test("refuses a POST without the session's CSRF token, or with another session's", async () => {
    const cookie = await openSession(api, 'hs-org');
    const other = await openSession(api, 'hs-org');
    const otherToken = csrfOf(await hostRequest(api, 'GET', '/host/', { cookie: other }));
    for (const form of [{}, { csrf: '' }, { csrf: otherToken }] as Record<string, string>[]) {
      const res = await hostRequest(api, 'POST', '/host/logout', { cookie, form });
      expect(res.status).toBe(403);
      expect(res.text).toContain('This form is no longer valid');
    }
    expect((await hostRequest(api, 'GET', '/host/', { cookie })).status).toBe(200);
  });

  test('switches its language to Romanian, keeping it on later pages', async () => {
    const cookie = await openSession(api, 'hs-org', 'en-GB');
    const page = await hostRequest(api, 'GET', '/host/', { cookie });
    expect(page.text).toContain('<html lang="en">');
    const switched = await hostRequest(api, 'POST', '/host/locale', {
      cookie,
      form: { csrf: csrfOf(page), locale: 'ro', return_to: 'https://evil.example/' },
    });
    expect(switched.status).toBe(303);
    expect(switched.headers.location).toBe('/host/');
    const after = await hostRequest(api, 'GET', '/host/', { cookie });
    expect(after.text).toContain('<html lang="ro">');
    expect(after.text).toContain('Proprietari și canale');
  });
});

describe('the pages', () => {
  test("list the organization's owners with each channel, not connected, and not another organization's", async () => {
    const mine = await distributedOwner('hs-org', 'Ana Popescu');
    const theirs = await distributedOwner('hs-other', 'Ion Ionescu');
    const cookie = await openSession(api, 'hs-org');
    const page = await hostRequest(api, 'GET', '/host/', { cookie });
    expect(page.text).toContain('Ana Popescu');
    expect(page.text).toContain(`<tr data-channel="${mine.channel}" data-state="not-connected">`);
    expect(page.text).not.toContain('Ion Ionescu');
    expect(page.text).not.toContain(theirs.channel);
  });

  test('show a suspended channel as suspended, without a Connect button, and offer it again once reinstated', async () => {
    const mine = await distributedOwner('hs-org', 'Elena Marin');
    await setChannelStatus(ctx, mine.channel, 'suspended');
    const cookie = await openSession(api, 'hs-org');
    const row = (text: string) =>
      new RegExp(`<tr data-channel="${mine.channel}"[^>]*>[\\s\\S]*?</tr>`).exec(text)?.[0] ?? '';
    const suspended = row((await hostRequest(api, 'GET', '/host/', { cookie })).text);
    expect(suspended).toContain('data-channel-suspended');
    expect(suspended).toContain('channel suspended: connecting is paused');
    expect(suspended).not.toContain('<form');
    await setChannelStatus(ctx, mine.channel, 'active');
    const active = row((await hostRequest(api, 'GET', '/host/', { cookie })).text);
    expect(active).not.toContain('suspended');
    expect(active).toContain(`action="/host/owners/${mine.owner}/channels/${mine.channel}/connect"`);
  });

  test("answer another organization's owner exactly as an owner that does not exist", async () => {
    const theirs = await distributedOwner('hs-other', 'Ion Ionescu');
    const cookie = await openSession(api, 'hs-org');
    const csrf = csrfOf(await hostRequest(api, 'GET', '/host/', { cookie }));
    const other = await hostRequest(api, 'POST', `/host/owners/${theirs.owner}/channels/${theirs.channel}/connect`, {
      cookie,
      form: { csrf },
    });
    const none = await hostRequest(api, 'POST', `/host/owners/no-such-owner/channels/${theirs.channel}/connect`, {
      cookie,
      form: { csrf },
    });
    expect(other.status).toBe(404);
    const strip = (text: string) => text.replace(/nonce="[^"]+"/g, '');
    expect(strip(other.text)).toBe(strip(none.text));
    expect(other.text).not.toContain('Ion Ionescu');
  });

  test('Connect answers the hand-off page, its form to the channel under a policy naming that origin only', async () => {
    const mine = await distributedOwner('hs-org', 'Ana Popescu');
    const cookie = await openSession(api, 'hs-org', 'ro');
    const csrf = csrfOf(await hostRequest(api, 'GET', '/host/', { cookie }));
    const res = await hostRequest(api, 'POST', `/host/owners/${mine.owner}/channels/${mine.channel}/connect`, {
      cookie,
      form: { csrf },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<html lang="ro">');
    expect(res.text).toMatch(
      /<form id="hand-off" method="post" action="https:\/\/partner\.example\/connect"><input type="hidden" name="token" value="[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+">/,
    );
    const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers['content-security-policy']!)?.[1];
    expect(res.text).toContain(`<script nonce="${nonce}">`);
    expect(res.headers['content-security-policy']).toContain('form-action https://partner.example');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  test('Connect to a channel that registered no redirect URL says so, in a page', async () => {
    const name = unique('noredirect');
    await createChannel(ctx, { name, rateLimit: 600 });
    const owner = unique('own');
    await host.owner(owner, { organization: 'hs-org' });
    await host.location(`${owner}-loc`, { organization: 'hs-org', owner });
    await host.property(`${owner}-prp`, { location: `${owner}-loc`, owner });
    await host.distribute(`${owner}-prp`, [name]);
    const cookie = await openSession(api, 'hs-org');
    const csrf = csrfOf(await hostRequest(api, 'GET', '/host/', { cookie }));
    const res = await hostRequest(api, 'POST', `/host/owners/${owner}/channels/${name}/connect`, {
      cookie,
      form: { csrf },
    });
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('This channel does not take connections yet');
  });

  test("Connect to a suspended channel says so in a page, in the session's language", async () => {
    const mine = await distributedOwner('hs-org', 'Radu Ionescu');
    await setChannelStatus(ctx, mine.channel, 'suspended');
    const cookie = await openSession(api, 'hs-org', 'ro');
    const csrf = csrfOf(await hostRequest(api, 'GET', '/host/', { cookie }));
    const res = await hostRequest(api, 'POST', `/host/owners/${mine.owner}/channels/${mine.channel}/connect`, {
      cookie,
      form: { csrf },
    });
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Acest canal este suspendat');
    expect(res.text).not.toContain('id="hand-off"');
  });

  test('carry a policy of their own: the nonce of their one style block, forms to this origin only', async () => {
    const cookie = await openSession(api, 'hs-org');
    const page = await hostRequest(api, 'GET', '/host/', { cookie });
    const nonce = /style-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(page.headers['content-security-policy']!)?.[1];
    expect(nonce).toBeDefined();
    expect(page.text).toContain(`<style nonce="${nonce}">`);
    expect(page.headers['content-security-policy']).toBe(
      `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).not.toMatch(/https?:\/\/(?!distribution\.test)[^"' ]+\.(css|js|woff2?)/);
  });
});
