import type { MikroORM } from '@mikro-orm/postgresql';
import { decodeJwt } from 'jose';
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { csrfOf, hostRequest, openSession } from '../support/host-pages.ts';
import type { HttpResponse } from '../support/https-client.ts';
import { expectProblem } from '../support/problems.ts';

// Hand-offs cost a row, a signature and an hour-long workflow each: a Connect pressed again
// moments later answers the token it just minted, and mints are limited per host session and per
// organization (the platform's hand-offs count against the organization too).

let api: TestApi;
let clock: TestClock;
let host: Platform;
let orm: MikroORM;
let channel: string;
const OWNERS = 8;

beforeAll(async () => {
  const bed = await apiTestBed({ env: { HAND_OFF_SESSION_LIMIT: '3', HAND_OFF_ORGANIZATION_LIMIT: '5' } });
  ({ api, clock, host, orm } = bed);
  channel = (await bed.channel()).channel.name;
  for (const organization of ['ho-org', 'ho-other']) {
    await host.organization(organization);
    for (let n = 1; n <= OWNERS; n++) {
      const ref = `${organization}-own-${n}`;
      await host.owner(ref, { organization, display_name: `Owner ${n}` });
      await host.location(`${ref}-loc`, { organization, owner: ref });
      await host.property(`${ref}-prp`, { location: `${ref}-loc`, owner: ref });
      await host.distribute(`${ref}-prp`, [channel]);
    }
  }
}, 120_000);

// Each test starts in a minute of its own: the limits count per minute.
beforeEach(() => {
  clock.set(new Date(Math.floor(clock.now().getTime() / 60_000) * 60_000 + 120_000));
});

async function session(organization: string, locale?: string) {
  const cookie = await openSession(api, organization, locale);
  return { cookie, csrf: csrfOf(await hostRequest(api, 'GET', '/host/', { cookie })) };
}

const connect = (s: { cookie: string; csrf: string }, owner: string) =>
  hostRequest(api, 'POST', `/host/owners/${owner}/channels/${channel}/connect`, {
    cookie: s.cookie,
    form: { csrf: s.csrf },
  });

function jtiOf(res: HttpResponse): string {
  expect(res.status, res.text).toBe(200);
  const token = /name="token" value="([^"]+)"/.exec(res.text)?.[1];
  expect(token, 'a hand-off page with its token').toBeDefined();
  return decodeJwt(token!).jti!;
}

async function tokensOf(owner: string): Promise<number> {
  const [row] = await orm.em
    .fork()
    .execute<{ count: string }[]>(
      'select count(*) as count from owner_connect_token t join owner o on o.id = t.owner_id where o.ref = ?',
      [owner],
    );
  return Number(row!.count);
}

describe('Connect pressed again', () => {
  test('moments later answers the token it just minted, minting nothing more', async () => {
    const s = await session('ho-org');
    const first = jtiOf(await connect(s, 'ho-org-own-1'));
    clock.advance(5_000);
    expect(jtiOf(await connect(s, 'ho-org-own-1'))).toBe(first);
    expect(await tokensOf('ho-org-own-1')).toBe(1);
  });

  test('mints a new token once the first is confirmed, past 30 seconds, or from another session', async () => {
    const s = await session('ho-org');
    const first = jtiOf(await connect(s, 'ho-org-own-2'));
    await orm.em.fork().execute(`update owner_connect_token set state = 'confirmed' where jti = ?`, [first]);
    const second = jtiOf(await connect(s, 'ho-org-own-2'));
    expect(second).not.toBe(first);
    clock.advance(31_000);
    const third = jtiOf(await connect(s, 'ho-org-own-2'));
    expect(third).not.toBe(second);
    const other = await session('ho-org');
    expect(jtiOf(await connect(other, 'ho-org-own-2'))).not.toBe(third);
  });
});

describe('the hand-off limits', () => {
  test("past the session's limit, Connect answers 429 in the host's language with Retry-After, minting nothing", async () => {
    const s = await session('ho-org', 'ro');
    for (const n of [1, 2, 3]) jtiOf(await connect(s, `ho-org-own-${n}`));
    clock.advance(15_000);
    const refused = await connect(s, 'ho-org-own-4');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('45');
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.text).toContain('<html lang="ro">');
    expect(refused.text).toContain('Încercați din nou peste 45 s.');
    expect(refused.text).not.toContain('id="hand-off"');
    expect(await tokensOf('ho-org-own-4')).toBe(0);
    // A token just minted is still answered again: it costs nothing.
    expect((await connect(s, 'ho-org-own-3')).status).toBe(200);
    clock.advance(45_000);
    jtiOf(await connect(s, 'ho-org-own-4'));
  });

  test("the organization's limit holds across its sessions and the platform's hand-offs, and no other organization's", async () => {
    const one = await session('ho-org');
    const two = await session('ho-org');
    for (const n of [1, 2, 3]) jtiOf(await connect(one, `ho-org-own-${n}`));
    jtiOf(await connect(two, 'ho-org-own-4'));
    const platformCall = (owner: string) =>
      api.call('POST', `/internal/v1/owners/${owner}/owner-connect`, {
        key: TEST_PLATFORM_TOKEN,
        body: { channel },
        headers: { accept: 'application/json' },
      });
    expect((await platformCall('ho-org-own-5')).status).toBe(200);
    const refused = await connect(two, 'ho-org-own-6');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.text).toContain('Try again in');
    const platformRefused = await platformCall('ho-org-own-7');
    expectProblem(platformRefused, 429, 'rate_limited');
    expect(platformRefused.headers['retry-after']).toMatch(/^\d+$/);
    expect((await tokensOf('ho-org-own-6')) + (await tokensOf('ho-org-own-7'))).toBe(0);
    const other = await session('ho-other');
    jtiOf(await connect(other, 'ho-other-own-1'));
    expect((await platformCall('ho-other-own-2')).status).toBe(200);
  });
});
