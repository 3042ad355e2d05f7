import { expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import { channelShown } from '../support/catalogue.ts';

// Nights stored before placeholders were padded (`storedNightText`) read as before and are not
// changed by an update that sets what they already hold.

const BASE = '/api/v1/distribution';
const WINDOW = 'from=2026-12-01&to=2026-12-04';

interface Page {
  data: { data: { date: string; units_available: number; rates: { rate_plan_id: string }[] }[] }[];
}

test('a night stored unpadded reads the same, and setting what it holds changes nothing', async () => {
  const { api, ctx, host, orm } = await apiTestBed();
  const { key, ref } = await channelShown(ctx, host, ['unpadded'], { scopes: ['read:catalog', 'read:ari'] });
  const page = async () => (await api.call('GET', `${BASE}/availability?${WINDOW}`, { key })).json as Page;
  const padded = await page();
  const [stored] = await orm.em
    .fork()
    .execute<{ padded: number }[]>(
      `select count(*)::int as padded from ari_night n join property p on p.id = n.property_id where p.ref = ? and n.body like '%"  %'`,
      [ref('unpadded')],
    );
  expect(stored!.padded).toBeGreaterThan(0);

  await orm.em.fork().execute(
    `update ari_night n set body = regexp_replace(body, '("\\\\u0001[A-Za-z0-9._:-]+") +', '\\1', 'g')
         from property p where p.id = n.property_id and p.ref = ?`,
    [ref('unpadded')],
  );
  const unpadded = await page();
  expect(unpadded).toEqual(padded);
  expect(unpadded.data[0]!.data[0]!.rates[0]!.rate_plan_id).toMatch(/^rpl_/);

  const night = unpadded.data[0]!.data[1]!;
  const res = await host.call('POST', '/availability', {
    updates: [
      {
        property: ref('unpadded'),
        from: night.date,
        to: '2026-12-03',
        units_available: night.units_available,
      },
    ],
  });
  expect(res.status).toBe(200);
  expect((res.json as { results: { changed_nights: number }[] }).results[0]!.changed_nights).toBe(0);
});
