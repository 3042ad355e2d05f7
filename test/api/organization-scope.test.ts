import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { sampleLocation, sampleProperty, type Platform } from '../support/catalogue.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { csrfOf, hostRequest, openSession } from '../support/host-pages.ts';
import { expectProblem } from '../support/problems.ts';

// An owner, its locations and its properties are of one organization: the platform's writes refuse
// a record that would join two, and the host pages show nothing that crosses organizations even in
// rows written before that rule.

let api: TestApi;
let host: Platform;
let ctx: AdminContext;
let orm: MikroORM;

beforeAll(async () => {
  ({ api, ctx, host, orm } = await apiTestBed());
  await host.organization('os-a');
  await host.organization('os-b');
  await host.owner('os-own-a', { organization: 'os-a', display_name: 'Ana of A' });
  await host.owner('os-own-b', { organization: 'os-b', display_name: 'Bogdan of B' });
  await host.location('os-loc-a', { organization: 'os-a', owner: 'os-own-a' });
  await host.location('os-loc-b', { organization: 'os-b', owner: 'os-own-b' });
});

const mismatch = (pointer: string) => [expect.objectContaining({ code: 'organization_mismatch', pointer })];

describe("the platform's catalogue writes", () => {
  test('refuse a location whose owner is of another organization, writing nothing', async () => {
    const res = await host.call('PUT', '/locations/os-loc-x', sampleLocation('os-a', 'os-own-b'));
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual(mismatch('/owner'));
    expect((await host.call('GET', '/locations/os-loc-x')).status).toBe(404);
  });

  test('refuse a property whose owner is of another organization than its location, writing nothing', async () => {
    const res = await host.call('PUT', '/properties/os-prp-x', sampleProperty('os-loc-a', 'os-own-b'));
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual(mismatch('/owner'));
    expect((await host.call('GET', '/properties/os-prp-x')).status).toBe(404);
  });

  test('refuse moving an owner to another organization while its locations stay', async () => {
    const res = await host.call('PUT', '/owners/os-own-a', {
      organization: 'os-b',
      type: 'individual',
      display_name: 'Ana of A',
      languages: ['ro'],
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual(mismatch('/organization'));
    expect((await host.call('GET', '/owners/os-own-a')).json.organization).toBe('os-a');
  });

  test("refuse moving a location to another organization while its properties' owner stays", async () => {
    await host.property('os-prp-a', { location: 'os-loc-a', owner: 'os-own-a' });
    const res = await host.call('PUT', '/locations/os-loc-a', sampleLocation('os-b', 'os-own-b'));
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual(mismatch('/organization'));
    expect((await host.call('GET', '/locations/os-loc-a')).json.organization).toBe('os-a');
  });

  test('accept an owner, location and property of one organization', async () => {
    await host.owner('os-own-a2', { organization: 'os-a' });
    await host.location('os-loc-a2', { organization: 'os-a', owner: 'os-own-a2' });
    await host.property('os-prp-a2', { location: 'os-loc-a2', owner: 'os-own-a2' });
  });
});

describe('the host pages, over rows that cross organizations', () => {
  test("neither organization sees or connects the other's owner or property", async () => {
    const { channel } = await channelWithKey(ctx);
    // A property at A's location naming B's owner, as a write before the rule could leave it.
    await host.property('os-prp-cross', {
      location: 'os-loc-a',
      owner: 'os-own-a',
      name: { ro: 'Casa Încrucișată', en: 'Crossed House' },
    });
    await host.distribute('os-prp-cross', [channel.name]);
    await orm.em
      .fork()
      .execute(
        `update property set owner_id = (select id from owner where ref = 'os-own-b') where ref = 'os-prp-cross'`,
      );

    const cookieB = await openSession(api, 'os-b');
    const ownersB = await hostRequest(api, 'GET', '/host/', { cookie: cookieB });
    expect(ownersB.text).toContain('Bogdan of B');
    expect(ownersB.text).not.toContain(channel.name);
    const connect = await hostRequest(api, 'POST', `/host/owners/os-own-b/channels/${channel.name}/connect`, {
      cookie: cookieB,
      form: { csrf: csrfOf(ownersB) },
    });
    expect(connect.status).toBe(404);

    const cookieA = await openSession(api, 'os-a');
    const listingsA = await hostRequest(api, 'GET', '/host/listings', { cookie: cookieA });
    expect(listingsA.status).toBe(200);
    expect(listingsA.text).not.toContain('Crossed House');
    expect(listingsA.text).not.toContain('Bogdan of B');
    expect((await hostRequest(api, 'GET', '/host/listings/os-prp-cross', { cookie: cookieA })).status).toBe(404);
  });
});
