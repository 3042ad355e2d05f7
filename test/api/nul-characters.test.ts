import { beforeAll, describe, expect, test } from 'vitest';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import { csrfOf, hostRequest, openSession } from '../support/host-pages.ts';
import { expectProblem } from '../support/problems.ts';

// A NUL (U+0000) cannot be stored by PostgreSQL; sent on, it came back as a protocol violation
// that was answered 503 with Retry-After. Each interface refuses it at its edge instead.

const NUL = '\u0000';
const DISTRIBUTION = '/api/v1/distribution';
let api: TestApi;
let host: Platform;
let key: string;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: systemClock });
  ({ api, host } = bed);
  await host.organization('nul-org');
  ({
    key: { key },
  } = await bed.channel({ scopes: ['manage:webhooks', 'read:catalog'] }));
});

const rule = (where: Record<string, string>) => ({
  ...where,
  code: 'control_character',
  detail: expect.stringContaining('U+0000') as unknown,
});

describe('the distribution interface', () => {
  test('a NUL in a body string, and in a body key, is 400 invalid_parameters naming each pointer; nothing is written', async () => {
    const res = await api.call('POST', `${DISTRIBUTION}/webhooks`, {
      key,
      body: { url: 'https://hooks.example.com/in', events: ['property.*', `x${NUL}`], description: `main${NUL}` },
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual([rule({ pointer: '/events/1' }), rule({ pointer: '/description' })]);
    expect((await api.call('GET', `${DISTRIBUTION}/webhooks`, { key })).json.data).toEqual([]);

    const keyed = await api.call('POST', `${DISTRIBUTION}/webhooks`, {
      key,
      body: { url: 'https://hooks.example.com/in', events: ['*'], [`note${NUL}`]: 'x' },
    });
    expectProblem(keyed, 400, 'invalid_parameters', ['errors']);
    expect(keyed.json.errors).toEqual([rule({ pointer: `/note${NUL}` })]);
  });

  test('a NUL in a query or path parameter is 400 invalid_parameters naming the parameter', async () => {
    const listed = await api.call('GET', `${DISTRIBUTION}/locations?cursor=abc%00def`, { key });
    expectProblem(listed, 400, 'invalid_parameters', ['errors']);
    expect(listed.json.errors).toEqual([rule({ parameter: 'cursor' })]);
    const path = await api.call('GET', `${DISTRIBUTION}/webhooks/whk_%00`, { key });
    expectProblem(path, 400, 'invalid_parameters', ['errors']);
    expect(path.json.errors).toEqual([rule({ parameter: 'webhook_id' })]);
  });
});

describe('the platform interface', () => {
  test('a NUL in a body string or a path parameter is 400 invalid_parameters; nothing is written', async () => {
    const named = await host.call('PUT', '/organizations/nul-org', { name: `Org${NUL}`, country: 'RO' });
    expectProblem(named, 400, 'invalid_parameters', ['errors']);
    expect(named.json.errors).toEqual([rule({ pointer: '/name' })]);
    expect((await host.call('GET', '/organizations/nul-org')).json).toMatchObject({ name: 'Org nul-org' });

    const referenced = await host.call('PUT', '/organizations/nul%00org', { name: 'Org', country: 'RO' });
    expectProblem(referenced, 400, 'invalid_parameters', ['errors']);
    expect(referenced.json.errors).toEqual([rule({ parameter: 'ref' })]);
  });
});

describe('the integration interface', () => {
  test('a NUL in a query parameter is 400 in the interface own shape, naming the parameter', async () => {
    const installed = await host.call('POST', '/organizations/nul-org/installations', {
      app: 'nul-app',
      scopes: ['guests.read'],
    });
    expect(installed.status, installed.text).toBe(201);
    const token = (await host.call('POST', `/installations/${installed.json.id as string}/token`, {})).json
      .token as string;
    const res = await api.call('GET', '/api/v1/integration/guests?page=%00', { key: token });
    expect(res.status, res.text).toBe(400);
    expect(res.json).toEqual({
      message: expect.any(String) as unknown,
      code: 'invalid_parameters',
      errors: { page: [expect.stringContaining('U+0000') as unknown] },
    });
  });
});

describe('the host pages', () => {
  test('a NUL in a form field or a path parameter is a 400 page naming the field; the page does not run', async () => {
    const cookie = await openSession(api, 'nul-org');
    const csrf = csrfOf(await hostRequest(api, 'GET', '/host/', { cookie }));
    const form = await hostRequest(api, 'POST', '/host/locale', {
      cookie,
      form: { csrf, locale: 'ro', return_to: `/host/${NUL}` },
    });
    expect(form.status, form.text).toBe(400);
    expect(form.headers['content-type']).toMatch(/^text\/html/);
    expect(form.text).toContain('return_to');
    expect(form.text).not.toContain(NUL);
    // The locale was not changed: the next page is still in English.
    expect((await hostRequest(api, 'GET', '/host/', { cookie })).text).toContain('<html lang="en">');

    const page = await hostRequest(api, 'GET', '/host/listings/prp%00x', { cookie });
    expect(page.status, page.text).toBe(400);
    expect(page.text).toContain('property');
  });
});
