import { expect } from 'vitest';
import { addDays, localDate } from '../../domain/time.ts';
import type { TestApi } from './api.ts';
import { platform } from './catalogue.ts';
import type { TestClock } from './clock.ts';
import { channelWithKey, type adminContext } from './fixtures.ts';

const BASE = '/api/v1/distribution';

/** A Romanian classification certificate valid through `validUntil`: past it, the property is withdrawn. */
export const classification = (validUntil: string) => ({
  certificate_number: 'RO-123/2025',
  category: 'apartament',
  rating_kind: 'stars',
  rating: 3,
  valid_until: validUntil,
  country: 'RO',
});

/**
 * An organization whose dashboard has a bit of everything, written through the real interfaces on
 * the test clock's today (Bucharest): `upper` published and promoted on channel A, rejected on B,
 * with figures from both; `lower` in review on A, no report from B, its certificate lapsing in 10
 * days; `old` published on A, then withdrawn from both when its certificate expired.
 */
export async function dashboardScene(
  api: TestApi,
  ctx: ReturnType<typeof adminContext>,
  clock: TestClock,
  prefix: string,
) {
  const host = platform(api);
  // The minute the scene takes stays within this local day unless it starts in the last minute of one.
  const today = localDate(clock.now(), 'Europe/Bucharest');
  const a = await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] });
  const b = await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] });
  const org = `${prefix}-org`;
  await host.organization(org);
  await host.owner(`${prefix}-own`, { organization: org, display_name: 'Ana Popescu' });
  await host.location(`${prefix}-loc`, { organization: org, owner: `${prefix}-own` });
  const write = async (ref: string, ro: string, en: string, validUntil: string) =>
    host.property(ref, {
      location: `${prefix}-loc`,
      owner: `${prefix}-own`,
      name: { ro, en },
      legal: { classification: classification(validUntil) },
    });
  const refs = { upper: `${prefix}-upper`, lower: `${prefix}-lower`, old: `${prefix}-old` };
  await write(refs.upper, 'Casa de Sus', 'Upper House', addDays(today, 2000));
  await write(refs.lower, 'Casa de Jos', 'Lower House', addDays(today, 9));
  await write(refs.old, 'Casa Veche', 'Old House', addDays(today, 2000));
  for (const ref of Object.values(refs)) await host.distribute(ref, [a.channel.name, b.channel.name]);

  const idsOf = async (key: string) => {
    const res = await api.call('GET', `${BASE}/properties?limit=10`, { key });
    expect(res.status, res.text).toBe(200);
    return Object.fromEntries((res.json.data as { id: string; name: { en: string } }[]).map((p) => [p.name.en, p.id]));
  };
  const idsA = await idsOf(a.key.key);
  const idsB = await idsOf(b.key.key);
  const report = async (key: string, id: string | undefined, body: unknown) => {
    const res = await api.call('PUT', `${BASE}/properties/${id}/listing`, { key, body });
    expect(res.status, res.text).toBe(200);
  };
  await report(a.key.key, idsA['Upper House'], { status: 'pending_review' });
  clock.advance(60_000);
  await report(a.key.key, idsA['Upper House'], {
    status: 'published',
    public_url: 'https://a.example/stay/upper',
    promoted: true,
    promoted_until: `${addDays(today, 14)}T22:00:00Z`,
  });
  await report(b.key.key, idsB['Upper House'], {
    status: 'rejected',
    rejection: { reason: 'photos', text: 'The photos show another house.' },
  });
  await report(a.key.key, idsA['Lower House'], { status: 'pending_review' });
  await report(a.key.key, idsA['Old House'], { status: 'published', public_url: 'https://a.example/stay/old' });
  const days = (id: string | undefined, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      property_id: id,
      date: addDays(today, -i),
      views: 100 + i,
      clicks_to_booking: i % 7,
    }));
  for (const [key, data] of [
    [a.key.key, days(idsA['Upper House'], 30)],
    [b.key.key, days(idsB['Upper House'], 12)],
  ] as const) {
    const res = await api.call('POST', `${BASE}/listing-stats`, { key, body: { data } });
    expect(res.status, res.text).toBe(200);
  }
  // The old house's certificate is found expired: it is withdrawn from both channels.
  await write(refs.old, 'Casa Veche', 'Old House', addDays(today, -1));
  return { org, refs, channels: { a: a.channel.name, b: b.channel.name }, keys: { a: a.key.key, b: b.key.key }, today };
}
