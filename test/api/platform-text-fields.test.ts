import { beforeAll, describe, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import type { Platform } from '../support/catalogue.ts';
import { platformDescriptionTakesBody } from '../support/platform-description.ts';
import { expectProblem } from '../support/problems.ts';

let host: Platform;

beforeAll(async () => {
  ({ host } = await apiTestBed());
  await host.organization('text-org');
});

const errorsOf = (res: { json: { errors?: { pointer: string; code: string }[] } }) =>
  (res.json.errors ?? []).map((e) => `${e.pointer} ${e.code}`);
const guest = (fields: Record<string, string>) => ({
  organization: 'text-org',
  first_name: 'Ana',
  last_name: 'Popescu',
  email: 'ana@example.com',
  phone: '+40721000101',
  ...fields,
});

describe('trimmed text fields of the platform interface', () => {
  test('a name over its maxLength as sent is refused even when it would fit trimmed, as the description says, and nothing is written', async () => {
    const name = ` ${'x'.repeat(200)}`;
    expect(platformDescriptionTakesBody('PUT', '/organizations/{ref}', { name, country: 'RO' })).toBe(false);
    const res = await host.call('PUT', '/organizations/text-long', { name, country: 'RO' });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(errorsOf(res)).toEqual(['/name max']);
    expectProblem(await host.call('GET', '/organizations/text-long'), 404, 'not_found');
  });

  test('white space alone is refused (rule min), and the description refuses it too', async () => {
    for (const name of ['   ', '\u00a0\t\u3000', '\ufeff']) {
      expect(
        platformDescriptionTakesBody('PUT', '/organizations/{ref}', { name, country: 'RO' }),
        JSON.stringify(name),
      ).toBe(false);
      const res = await host.call('PUT', '/organizations/text-blank', { name, country: 'RO' });
      expect(errorsOf(res), JSON.stringify(name)).toEqual(['/name min']);
    }
  });

  test('a name within its rules is taken, as the description says, and stored trimmed', async () => {
    const name = `  ${'y'.repeat(196)}  `;
    expect(platformDescriptionTakesBody('PUT', '/organizations/{ref}', { name, country: 'RO' })).toBe(true);
    const res = await host.call('PUT', '/organizations/text-ok', { name, country: 'RO' });
    expect(res.status, res.text).toBe(201);
    expect(res.json.name).toBe('y'.repeat(196));
  });

  test("a guest's name with a control character is refused (rule control_character), and the description refuses it too", async () => {
    for (const first_name of ['A\u0015na', 'Ana\u0085', '\u001c']) {
      expect(
        platformDescriptionTakesBody('PUT', '/guests/{ref}', guest({ first_name })),
        JSON.stringify(first_name),
      ).toBe(false);
      const res = await host.call('PUT', '/guests/text-guest-1', guest({ first_name }));
      expectProblem(res, 400, 'invalid_parameters', ['errors']);
      expect(errorsOf(res), JSON.stringify(first_name)).toEqual(['/first_name control_character']);
    }
    expectProblem(await host.call('GET', '/guests/text-guest-1'), 404, 'not_found');
    expect(platformDescriptionTakesBody('PUT', '/guests/{ref}', guest({ first_name: ' Ana Maria ' }))).toBe(true);
    const res = await host.call('PUT', '/guests/text-guest-1', guest({ first_name: ' Ana Maria ' }));
    expect(res.status, res.text).toBe(201);
    expect(res.json.first_name).toBe('Ana Maria');
  });
});

describe("a property's distribution", () => {
  test('names each channel once: a repeated channel is refused, and the description says so (uniqueItems)', async () => {
    const body = { channels: ['demo-travel', 'demo-travel'] };
    expect(platformDescriptionTakesBody('PUT', '/properties/{ref}/distribution', body)).toBe(false);
    const res = await host.call('PUT', '/properties/text-prop/distribution', body);
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    // No channel of that name exists in this file's database: the refusal names that too.
    expect(errorsOf(res)).toEqual([
      '/channels/1 duplicate',
      '/channels/0 unknown_reference',
      '/channels/1 unknown_reference',
    ]);
  });
});
