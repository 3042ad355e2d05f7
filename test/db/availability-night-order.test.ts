import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { streamNightsOfSlices, type NightPiece } from '../../db/availability-nights.ts';
import { ormOptions } from '../../db/orm.ts';
import { addDays } from '../../domain/time.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { channelShown } from '../support/catalogue.ts';

// A page's nights come in night order whatever order the table holds them in, and whatever scan
// PostgreSQL picks: here its index scans are off, so it reads the rows in the table's order,
// which is made the reverse of the nights'.

let scanning: MikroORM;
let channelId: string;
let propertyId: string;
let first: string;
let nights: number;

beforeAll(async () => {
  const { ctx, host, orm, databaseUrl } = await apiTestBed();
  const { ref } = await channelShown(ctx, host, ['reversed'], { scopes: ['read:ari'] });
  const em = orm.em.fork();
  const [row] = await em.execute<{ channel_id: string; property_id: string; first: string; nights: number }[]>(
    `select cr.channel_id, p.id as property_id, to_char(min(n.night), 'YYYY-MM-DD') as first, count(*)::int as nights
       from property p join channel_resource cr on cr.internal_id = p.id and cr.kind = 'property'
       join ari_night n on n.property_id = p.id where p.ref = ? group by cr.channel_id, p.id`,
    [ref('reversed')],
  );
  ({ channel_id: channelId, property_id: propertyId, first, nights } = row!);
  await em.execute(
    `with gone as (delete from ari_night where property_id = ? returning *)
     insert into ari_night select * from gone order by night desc`,
    [propertyId],
  );
  // For connections opened from now on: this file's database is its own.
  await em.execute('alter database ' + new URL(databaseUrl).pathname.slice(1) + ' set enable_indexscan = off');
  await em.execute('alter database ' + new URL(databaseUrl).pathname.slice(1) + ' set enable_indexonlyscan = off');
  scanning = await MikroORM.init(ormOptions(databaseUrl));
});

afterAll(async () => {
  await scanning?.close(true);
});

test('every piece holds its nights in night order, pieces in the slices order, with the table read backwards', async () => {
  const plan = await scanning.em
    .fork()
    .execute<Record<string, string>[]>(
      `explain select night from ari_night where property_id = ? and night >= ?::date and night < ?::date`,
      [propertyId, first, addDays(first, 96)],
    )
    .then((rows) => rows.map((row) => Object.values(row).join(' ')).join('\n'));
  expect(plan).toMatch(/^(Bitmap Heap Scan|Seq Scan)/);

  const pieces: NightPiece[] = [];
  await streamNightsOfSlices(
    scanning.em.fork(),
    channelId,
    [{ propertyId, start: first, to: addDays(first, nights), take: nights }],
    (piece) => pieces.push(piece),
  );
  expect(pieces.length).toBeGreaterThan(1);
  const dates = pieces.flatMap((piece) =>
    (JSON.parse(`[${piece.data ?? ''}]`) as { date: string }[]).map((night) => night.date),
  );
  expect(dates).toEqual(Array.from({ length: nights }, (_, i) => addDays(first, i)));
  expect(pieces.reduce((sum, piece) => sum + piece.count, 0)).toBe(nights);
  expect(pieces.at(-1)!.last).toBe(addDays(first, nights - 1));
});
