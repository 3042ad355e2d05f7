import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { renderFor, writeDefaultNights, writeNights } from '../../db/availability-night-writes.ts';
import { datesIn, defaultNight, type PlanShape } from '../../domain/availability/nights.ts';
import type { PropertyInput } from '../../domain/catalogue/source.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { channelShown, type Platform } from '../support/catalogue.ts';

// Nights are written one statement per property: the default nights from one rendered night
// (PostgreSQL writes each date into its text), changed nights as one newline-joined value. The
// stored texts are exactly those of rendering and writing each night on its own.

let orm: MikroORM;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ orm, ctx, host } = await apiTestBed());
});

async function propertyOf(ref: string): Promise<{ id: string; content: PropertyInput }> {
  const [row] = await orm.em
    .fork()
    .execute<{ id: string; content: PropertyInput }[]>('select id, content from property where ref = ?', [ref]);
  return row!;
}

const plansOf = (content: PropertyInput): PlanShape[] =>
  content.rate_plans.map((plan) => ({
    key: plan.key,
    currency: plan.currency,
    default_rates: plan.default_rates ?? null,
    child_age_bands: plan.child_age_bands,
  }));

async function stored(propertyId: string, from: string, to: string): Promise<Map<string, string>> {
  const rows = await orm.em
    .fork()
    .execute<{ night: string; body: string }[]>(
      `select to_char(night, 'YYYY-MM-DD') as night, body from ari_night where property_id = ? and night >= ?::date and night < ?::date order by night`,
      [propertyId, from, to],
    );
  return new Map(rows.map((row) => [row.night, row.body]));
}

test('default nights written from one rendered night are each night rendered on its own', async () => {
  const { ref } = await channelShown(ctx, host, ['defaults']);
  const property = await propertyOf(ref('defaults'));
  const plans = plansOf(property.content);
  const [from, to] = ['2027-02-25', '2027-03-03'];
  await orm.em.fork().execute('delete from ari_night where property_id = ? and night >= ?::date', [property.id, from]);

  await orm.em.fork().transactional((tx) => writeDefaultNights(tx, property.id, property.content, plans, from, to));

  const expected = new Map(
    [...datesIn(from, to)].map((date) => [
      date,
      renderFor(defaultNight(date, property.content.units, plans), property.content, plans),
    ]),
  );
  expect(expected.size).toBe(6);
  expect(await stored(property.id, from, '2027-12-31')).toEqual(expected);
});

test('changed nights written together are stored text for text, placeholders, quotes and all', async () => {
  const { ref } = await channelShown(ctx, host, ['changed']);
  const property = await propertyOf(ref('changed'));
  const texts = new Map([
    [
      '2027-01-10',
      '{"date":"2027-01-10","rates":[{"rate_plan_id":"\\u0001std"  }],"note":"a \\"quoted\\" ü, \' and ,"}',
    ],
    ['2027-01-11', '{"date":"2027-01-11","rates":[],"note":"{\\"braces\\"} \\\\ \\n"}'],
    ['2027-01-13', '{"date":"2027-01-13"}'],
  ]);

  await orm.em.fork().transactional((tx) => writeNights(tx, property.id, texts));

  const after = await stored(property.id, '2027-01-10', '2027-01-14');
  expect(new Map([...after].filter(([night]) => texts.has(night)))).toEqual(texts);
});

test('a text holding a newline is refused before anything is written', async () => {
  const { ref } = await channelShown(ctx, host, ['newline']);
  const property = await propertyOf(ref('newline'));
  const before = await stored(property.id, '2027-01-10', '2027-01-12');
  await expect(
    orm.em.fork().transactional((tx) =>
      writeNights(
        tx,
        property.id,
        new Map([
          ['2027-01-10', '{"a":1}'],
          ['2027-01-11', '{"b":\n2}'],
        ]),
      ),
    ),
  ).rejects.toThrow(/newline/);
  expect(await stored(property.id, '2027-01-10', '2027-01-12')).toEqual(before);
});
