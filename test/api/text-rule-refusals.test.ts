import { beforeAll, describe, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import { sampleProperty, type Platform } from '../support/catalogue.ts';
import { expectProblem } from '../support/problems.ts';

// The platform's write interface is where host text enters (the host pages have no form that
// writes a listing text): each text rule's refusal is an `errors` entry `text_<rule>` at the text.

let host: Platform;

beforeAll(async () => {
  ({ host } = await apiTestBed());
  await host.organization('tr-org');
  await host.owner('tr-own', { organization: 'tr-org' });
  await host.location('tr-loc', { organization: 'tr-org', owner: 'tr-own' });
});

describe('a property whose texts break the contact rules', () => {
  test('is refused with one entry per text and rule (text_bidi, text_phone, text_email) and is not written', async () => {
    const res = await host.call('PUT', '/properties/tr-1', {
      ...sampleProperty('tr-loc', 'tr-own'),
      name: { ro: 'Scrieți la \u202emoc.liamg@narbasac\u202c', en: 'Quiet flat' },
      description: { ro: 'Sunați la 0721,234,567.', en: 'Write to casabran @ gmail . com' },
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual([
      { pointer: '/name/ro', code: 'text_bidi', detail: 'text breaks the rule `bidi`' },
      { pointer: '/description/ro', code: 'text_phone', detail: 'text breaks the rule `phone`' },
      { pointer: '/description/en', code: 'text_email', detail: 'text breaks the rule `email`' },
    ]);
    expectProblem(await host.call('GET', '/properties/tr-1'), 404, 'not_found');
  });

  test('is taken once the texts hold none, with ordinary times, dates and prices', async () => {
    const res = await host.call('PUT', '/properties/tr-2', {
      ...sampleProperty('tr-loc', 'tr-own'),
      description: {
        ro: 'Check-in 14:00-22:00, plaja la 2,5 km; închis 10-20.08.2025; 1.200,50 lei pe săptămână.',
        en: 'Feel at home. The red dot on the map marks the house.',
      },
    });
    expect(res.status, res.text).toBe(201);
  });
});
