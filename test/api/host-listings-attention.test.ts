import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { addDays } from '../../domain/time.ts';
import { listingsOverview } from '../../services/host-dashboard.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { sampleProperty } from '../support/catalogue.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { classification } from '../support/host-dashboard.ts';

// What to act on across an organization, read from the few properties that can give an item
// (withdrawn somewhere, rejected by a channel they are distributed to, or valid through a date
// near today) and counted in SQL for the owners: the same list, in the same order, as the rules
// applied to every property.

// 20:00 UTC: 22:00 on 22 November in Bucharest, already 10:00 on 23 November in Kiritimati (UTC+14).
const NOW = '2026-11-22T20:00:00Z';
const BUCHAREST_TODAY = '2026-11-22';
const KIRITIMATI_TODAY = '2026-11-23';

let ctx: AdminContext;
let channels: string[];
let keys: Record<string, string>;
let organizationId: string;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: new TestClock(NOW) });
  const { host, orm } = bed;
  ctx = bed.ctx;
  const made = [
    await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] }),
    await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] }),
  ];
  channels = made.map((m) => m.channel.name).sort();
  keys = Object.fromEntries(made.map((m) => [m.channel.name, m.key.key]));
  await host.organization('la-org');
  await host.owner('la-own-ana', { organization: 'la-org', display_name: 'Ana Popescu' });
  await host.owner('la-own-zeta', { organization: 'la-org', display_name: 'Zeta SRL' });
  await host.location('la-buc', { organization: 'la-org', owner: 'la-own-ana' });
  await host.location('la-kir', { organization: 'la-org', owner: 'la-own-ana', timezone: 'Pacific/Kiritimati' });
  await host.location('la-zeta', { organization: 'la-org', owner: 'la-own-zeta' });
  await host.location('la-rome', {
    organization: 'la-org',
    owner: 'la-own-ana',
    timezone: 'Europe/Rome',
    address: {
      country: 'IT',
      region: 'Toscana',
      city: 'Firenze',
      street: 'Via Roma',
      number: '1',
      postal_code: '50123',
    },
  });
  const property = async (
    ref: string,
    location: string,
    owner: string,
    legal: unknown,
    texts: Record<string, unknown> = {},
  ) => {
    await host.property(ref, { location, owner, legal, ...texts } as never);
    await host.distribute(ref, channels);
  };
  // Zeta's property names the pair (Zeta, channel) first; the rest are Ana's.
  await property('la-a-zeta', 'la-zeta', 'la-own-zeta', {
    classification: classification(addDays(BUCHAREST_TODAY, 2000)),
  });
  // Lapsing on the 30th day after the property's today: listed; a day later: not.
  await property('la-b-buc-in', 'la-buc', 'la-own-ana', {
    classification: classification(addDays(BUCHAREST_TODAY, 29)),
  });
  await property('la-c-buc-out', 'la-buc', 'la-own-ana', {
    classification: classification(addDays(BUCHAREST_TODAY, 30)),
  });
  await property('la-d-kir-in', 'la-kir', 'la-own-ana', {
    classification: classification(addDays(KIRITIMATI_TODAY, 29)),
  });
  await property('la-e-kir-out', 'la-kir', 'la-own-ana', {
    classification: classification(addDays(KIRITIMATI_TODAY, 30)),
  });
  const text = (it: string) => ({ it, en: it });
  const sample = sampleProperty('la-rome', 'la-own-ana') as {
    photos: Record<string, unknown>[];
    rate_plans: Record<string, unknown>[];
  };
  const italian = {
    name: text('Casa sul colle'),
    description: text('Una casa luminosa.'),
    photos: sample.photos.map((photo) => ({ ...photo, caption: text('Soggiorno') })),
    rate_plans: sample.rate_plans.map((plan) => ({ ...plan, name: text('Flessibile') })),
  };
  // An Italian property whose only CIN lapses in 5 days: found by its identifier's date.
  await property(
    'la-f-rome',
    'la-rome',
    'la-own-ana',
    {
      classification: null,
      identifiers: [
        { scheme: 'it.cin', value: 'IT048017C2R7M4Q9KX', valid_until: addDays(BUCHAREST_TODAY, 4), issued_by: null },
      ],
    },
    italian,
  );
  for (let i = 0; i < 25; i += 1)
    await property(`la-g-${String(i).padStart(2, '0')}`, 'la-buc', 'la-own-ana', {
      classification: classification(addDays(BUCHAREST_TODAY, 2000)),
    });
  // Found expired: withdrawn from both channels.
  await property('la-h-old', 'la-buc', 'la-own-ana', {
    classification: classification(addDays(BUCHAREST_TODAY, 2000)),
  });
  await host.property('la-h-old', {
    location: 'la-buc',
    owner: 'la-own-ana',
    legal: { classification: classification(addDays(BUCHAREST_TODAY, -1)) },
  });
  // Rejected by the first channel: two properties of the second page (listed whatever the page,
  // one with a reason of the channel's own), and one no longer distributed there (not listed:
  // nothing to fix for that channel). The second channel publishes one of them.
  const [first, second] = channels as [string, string];
  const report = async (channel: string, ref: string, body: unknown) => {
    const [seen] = await orm.em.fork().execute<{ external_id: string }[]>(
      `select cr.external_id from channel_resource cr join property p on p.id = cr.internal_id
         join channel c on c.id = cr.channel_id where cr.kind = 'property' and p.ref = ? and c.name = ?`,
      [ref, channel],
    );
    const res = await bed.api.call('PUT', `/api/v1/distribution/properties/${seen!.external_id}/listing`, {
      key: keys[channel]!,
      body,
    });
    expect(res.status, res.text).toBe(200);
  };
  const rejection = (reason: string) => ({ status: 'rejected', rejection: { reason, text: null } });
  for (const ref of ['la-g-24', 'la-g-23']) await report(first, ref, rejection('photos'));
  await report(first, 'la-g-22', rejection('blurry'));
  await report(second, 'la-g-24', { status: 'published', public_url: 'https://b.example/stay/24' });
  await host.distribute('la-g-23', [second]);
  const [row] = await orm.em.fork().execute<{ id: string }[]>("select id from organization where ref = 'la-org'");
  organizationId = row!.id;
}, 180_000);

describe('what to act on across the organization', () => {
  test("withdrawals, then lapses within 30 days of each property's own today by date, then rejections, then owners not connected in the order their properties first name them", async () => {
    const { attention } = await listingsOverview(ctx, organizationId, { page: 2 });
    const [first, second] = channels as [string, string];
    const shown = (ref: string) => ({ property: ref, channels });
    expect(attention).toEqual([
      expect.objectContaining({ kind: 'withdrawn', property: 'la-h-old', channel: first, reason: 'certificate' }),
      expect.objectContaining({ kind: 'withdrawn', property: 'la-h-old', channel: second, reason: 'certificate' }),
      expect.objectContaining({ kind: 'expiring', ...shown('la-f-rome'), on: addDays(BUCHAREST_TODAY, 5), days: 5 }),
      expect.objectContaining({
        kind: 'expiring',
        ...shown('la-b-buc-in'),
        on: addDays(BUCHAREST_TODAY, 30),
        days: 30,
      }),
      expect.objectContaining({
        kind: 'expiring',
        ...shown('la-d-kir-in'),
        on: addDays(KIRITIMATI_TODAY, 30),
        days: 30,
      }),
      {
        kind: 'rejected',
        property: 'la-g-22',
        propertyName: expect.any(Object),
        channel: first,
        reason: 'blurry',
        text: null,
      },
      {
        kind: 'rejected',
        property: 'la-g-24',
        propertyName: expect.any(Object),
        channel: first,
        reason: 'photos',
        text: null,
      },
      { kind: 'not_connected', owner: 'la-own-zeta', ownerName: 'Zeta SRL', channel: first, properties: 1 },
      { kind: 'not_connected', owner: 'la-own-zeta', ownerName: 'Zeta SRL', channel: second, properties: 1 },
      // Every property of Ana's the channels show: all but the withdrawn one (and, on the first, the one no longer distributed there).
      { kind: 'not_connected', owner: 'la-own-ana', ownerName: 'Ana Popescu', channel: first, properties: 29 },
      { kind: 'not_connected', owner: 'la-own-ana', ownerName: 'Ana Popescu', channel: second, properties: 30 },
    ]);
  });

  test('the list is the same on every page and under any filter', async () => {
    const first = await listingsOverview(ctx, organizationId);
    const filtered = await listingsOverview(ctx, organizationId, {
      page: 2,
      filter: { channel: channels[0]!, status: 'none' },
    });
    expect(first.pages).toBe(2);
    expect(filtered.attention).toEqual(first.attention);
    expect(first.attention).toHaveLength(11);
    // Counted in SQL by the same rules: nothing past the list (not the rejection by a channel the
    // property is no longer distributed to, nor any pair twice).
    expect(first.attentionMore).toEqual({ count: 0, withdrawn: false, rejectedBy: [], notConnected: false });
  });
});
