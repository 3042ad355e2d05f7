import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { pointers } from '../support/listings.ts';
import { expectProblem } from '../support/problems.ts';

let clock: TestClock;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ clock, ctx, host } = await apiTestBed());
});

let counter = 0;
/** A whole catalogue chain under fresh refs, a company owner so every optional block is filled, distributed to a channel. */
async function chain() {
  counter += 1;
  const p = `rb${counter}`;
  const { channel } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
  await host.organization(`${p}-org`);
  await host.owner(`${p}-own`, {
    organization: `${p}-org`,
    type: 'company',
    display_name: 'Carpați Stays',
    legal_form: 'SRL',
    company: {
      legal_name: 'Carpați Stays SRL',
      tax_id: 'RO123456',
      trade_register_no: 'J08/1/2020',
      registered_office: { street: 'Str. Lungă', number: '3', city: 'Brașov', country: 'RO' },
    },
    logo: {
      url: 'https://cdn.example.com/logo.png',
      content_type: 'image/png',
      checksum: `sha256:${'b'.repeat(64)}`,
      width: 200,
      height: 100,
    },
  });
  await host.location(`${p}-loc`, {
    organization: `${p}-org`,
    owner: `${p}-own`,
    address_visibility: 'approximate',
    precision_m: 200,
  });
  await host.property(`${p}-prp`, { location: `${p}-loc`, owner: `${p}-own` });
  await host.distribute(`${p}-prp`, [channel.name]);
  const guest = {
    organization: `${p}-org`,
    first_name: 'Ana',
    last_name: 'Popescu',
    email: `ana-${p}@example.com`,
    phone: '+40721000001',
  };
  expect((await host.call('PUT', `/guests/${p}-gst`, guest)).status).toBe(201);
  return {
    org: `/organizations/${p}-org`,
    owner: `/owners/${p}-own`,
    location: `/locations/${p}-loc`,
    property: `/properties/${p}-prp`,
    distribution: `/properties/${p}-prp/distribution`,
    guest: `/guests/${p}-gst`,
  };
}

/** The record's path, and the field of its read that names it. */
const RECORDS = [
  ['organization', 'org', 'ref'],
  ['owner', 'owner', 'ref'],
  ['location', 'location', 'ref'],
  ['property (with its legal status)', 'property', 'ref'],
  ['distribution', 'distribution', 'property'],
  ['guest (with its id)', 'guest', 'ref'],
] as const;

describe('a platform record read back is taken back by its whole-record PUT', () => {
  test.each(RECORDS)(
    '%s: the GET answer sent back unchanged is an identical write that changes nothing',
    async (_name, which) => {
      const path = (await chain())[which];
      const read = await host.call('GET', path);
      expect(read.status, read.text).toBe(200);
      clock.advance(60_000);
      const back = await host.call('PUT', path, read.json);
      expect(back.status, back.text).toBe(200);
      // Nothing changed, so nothing moved: not even updated_at.
      expect((await host.call('GET', path)).json).toEqual(read.json);
    },
  );

  test.each(RECORDS)(
    '%s: a GET answer with its read-only fields altered is still taken, those fields ignored',
    async (_name, which) => {
      const path = (await chain())[which];
      const read = await host.call('GET', path);
      const altered: Record<string, unknown> = { ...read.json };
      for (const field of ['created_at', 'updated_at'])
        if (field in altered) altered[field] = '2001-01-01T00:00:00+02:00';
      if ('legal_status' in altered) altered.legal_status = { next_expiry: null };
      if ('id' in altered) altered.id = '00000000-0000-4000-8000-000000000000';
      const back = await host.call('PUT', path, altered);
      expect(back.status, back.text).toBe(200);
      expect((await host.call('GET', path)).json).toEqual(read.json);
    },
  );

  test.each(RECORDS)(
    '%s: a GET answer naming another record is refused (path_mismatch), as is an unknown field, writing nothing',
    async (_name, which, field) => {
      const path = (await chain())[which];
      const read = await host.call('GET', path);
      const res = await host.call('PUT', path, { ...read.json, [field]: 'another-record', colour: 'red' });
      expectProblem(res, 400, 'invalid_parameters', ['errors']);
      expect(pointers(res).sort()).toEqual([
        ['/colour', 'unknown_field'],
        [`/${field}`, 'path_mismatch'],
      ]);
      expect((await host.call('GET', path)).json).toEqual(read.json);
    },
  );

  test('a changed field of a record read back is written, and its updated_at moves', async () => {
    const { location } = await chain();
    const read = await host.call('GET', location);
    clock.advance(60_000);
    const res = await host.call('PUT', location, { ...read.json, name: 'Casa din Vale' });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      ...read.json,
      name: 'Casa din Vale',
      updated_at: new Date(Date.parse(read.json.updated_at as string) + 60_000).toISOString().replace('.000', ''),
    });
  });

  test('a VAT schedule read back is taken back as it is', async () => {
    const put = await host.call('PUT', '/vat-rates/RO', { rates: [{ from: '2025-08-01', rate_bp: 1100 }] });
    expect(put.status, put.text).toBe(200);
    const read = await host.call('GET', '/vat-rates/RO');
    const back = await host.call('PUT', '/vat-rates/RO', read.json);
    expect(back.status, back.text).toBe(200);
    expect(back.json).toEqual(read.json);
  });
});
