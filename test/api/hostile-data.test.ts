import pg from 'pg';
import { beforeAll, describe, expect, test } from 'vitest';
import { createChannel } from '../../admin/channels.ts';
import type { AdminContext } from '../../admin/context.ts';
import { issueKey } from '../../admin/keys.ts';
import { MAX_TEXT_LANGUAGES } from '../../domain/catalogue/source.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { sampleProperty, type Platform } from '../support/catalogue.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let ctx: AdminContext;
let host: Platform;
let databaseUrl: string;

beforeAll(async () => {
  ({ api, ctx, databaseUrl, host } = await apiTestBed());
  await host.organization('org');
  await host.owner('own', { organization: 'org' });
  await host.location('loc', { organization: 'org', owner: 'own' });
});

const get = async (key: string, path: string) => {
  const res = await api.call('GET', `${BASE}${path}`, { key });
  expectMatchesDescription('GET', `${BASE}${path}`, res);
  return res;
};

describe('names that every object inherits', () => {
  test('a channel named `constructor` is distributed a property with 200 and sees only its own extension; a plan keyed `constructor` reads as unpriced', async () => {
    await createChannel(ctx, { name: 'constructor' });
    const { key } = await issueKey(ctx, { channel: 'constructor', scopes: 'read:catalog,read:ari' });
    type Plan = {
      key: string;
      name: Record<string, string>;
      currency: string;
      cancellation: { refundable: boolean; free_until_days_before: number | null; penalty: string };
    };
    const [flex] = sampleProperty('loc', 'own').rate_plans as Plan[];
    const plans = [flex!, { ...flex!, key: 'constructor' }];
    await host.property('inherited-1', {
      location: 'loc',
      owner: 'own',
      extensions: { constructor: { tier: 'gold' }, other: { x: 1 } },
      rate_plans: plans,
    });
    await host.property('inherited-2', { location: 'loc', owner: 'own' });
    expect((await host.call('PUT', '/properties/inherited-1/distribution', { channels: ['constructor'] })).status).toBe(
      200,
    );
    expect((await host.call('PUT', '/properties/inherited-2/distribution', { channels: ['constructor'] })).status).toBe(
      200,
    );

    const list = await get(key, '/properties');
    expect(list.status).toBe(200);
    const extensions = (list.json.data as { extensions: unknown }[]).map((p) => p.extensions);
    expect(extensions).toHaveLength(2);
    expect(extensions).toEqual(expect.arrayContaining<unknown>([{ constructor: { tier: 'gold' } }, {}]));

    const nights = await get(key, '/availability');
    expect(nights.status).toBe(200);
    const rates = (nights.json.data as { data: { rates: { price: unknown }[] }[] }[]).flatMap((p) => p.data[0]!.rates);
    expect(rates).toHaveLength(3);
    // An unpriced (closed) plan carries no price at all rather than null.
    expect(rates.every((rate) => !('price' in rate))).toBe(true);
  });
});

describe('text rules run before any transaction', () => {
  test('a refused text is answered while another transaction holds the property row, and writes nothing', async () => {
    await host.property('locked-1', { location: 'loc', owner: 'own' });
    const before = await host.call('GET', '/properties/locked-1');
    const holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`select id from property where ref = 'locked-1' for update`);
      // A write that reached the row lock would wait for the holder, which waits for this answer.
      const refused = await host.call('PUT', '/properties/locked-1', {
        ...sampleProperty('loc', 'own'),
        name: { ro: 'Apartament <b>mare</b>' },
      });
      expectProblem(refused, 400, 'invalid_parameters', ['errors']);
      expect(refused.json.errors).toEqual([expect.objectContaining({ pointer: '/name/ro', code: 'text_html' })]);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    expect((await host.call('GET', '/properties/locked-1')).json).toEqual(before.json);
  });

  test('a refused text still names the rules only the location can tell (the source language, unknown references)', async () => {
    const res = await host.call('PUT', '/properties/refused-2', {
      ...sampleProperty('no-such-location', 'own'),
      name: { en: 'Only <b>English</b>' },
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pointer: '/name/en', code: 'text_html' }),
        expect.objectContaining({ pointer: '/location', code: 'unknown_reference' }),
      ]),
    );
    const texts = await host.call('PUT', '/properties/refused-3', {
      ...sampleProperty('loc', 'own'),
      name: { en: 'Only <b>English</b>' },
    });
    expect(texts.json.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pointer: '/name', code: 'source_language_missing' }),
        expect.objectContaining({ pointer: '/name/en', code: 'text_html' }),
      ]),
    );
  });
});

describe('bounded text maps', () => {
  test(`a text map of more than ${MAX_TEXT_LANGUAGES} languages is refused; ${MAX_TEXT_LANGUAGES} are taken`, async () => {
    const tags = Array.from(
      { length: MAX_TEXT_LANGUAGES + 1 },
      (_, i) => `${String.fromCharCode(97 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}`,
    ).filter((tag) => tag !== 'ro');
    const many = Object.fromEntries(
      [['ro', 'Casă'], ...tags.map((tag) => [tag, 'Casă'])].slice(0, MAX_TEXT_LANGUAGES + 1),
    );
    const refused = await host.call('PUT', '/properties/babel-1', {
      ...sampleProperty('loc', 'own'),
      description: many,
    });
    expectProblem(refused, 400, 'invalid_parameters', ['errors']);
    expect(refused.json.errors).toEqual([
      expect.objectContaining({ pointer: '/description', code: 'too_many_languages' }),
    ]);
    expectProblem(await host.call('GET', '/properties/babel-1'), 404, 'not_found');

    const enough = Object.fromEntries(Object.entries(many).slice(0, MAX_TEXT_LANGUAGES));
    expect(
      (await host.call('PUT', '/properties/babel-2', { ...sampleProperty('loc', 'own'), description: enough })).status,
    ).toBeLessThan(300);
  });
});
