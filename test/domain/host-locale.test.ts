import { describe, expect, test } from 'vitest';
import { isHostLocale, LANGUAGE_TAG, negotiateHostLocale, resolveHostLocale } from '../../domain/host-locale.ts';

describe("the host pages' language for the platform's locale", () => {
  test.each([
    ['ro', 'ro'],
    ['ro-RO', 'ro'],
    ['RO-md', 'ro'],
    ['en', 'en'],
    ['en-GB', 'en'],
    ['it-IT', 'it'],
    ['es', 'es'],
    ['es-419', 'es'],
    ['de-DE', 'en'],
    ['rom', 'en'],
    ['', 'en'],
    [undefined, 'en'],
    [null, 'en'],
  ])('%s → %s', (tag, locale) => {
    expect(resolveHostLocale(tag)).toBe(locale);
  });
});

describe('a language tag as the platform may send it', () => {
  test.each(['ro', 'ro-RO', 'en-GB', 'sr-Latn-RS', 'zh-Hant-TW'])('%s is one', (tag) =>
    expect(LANGUAGE_TAG.test(tag)).toBe(true),
  );
  test.each(['', 'r', 'english please', 'ro_RO', 'ro-', '-ro', 'ro-RO-x-toolongsubtag', '<script>'])(
    '%j is not',
    (tag) => expect(LANGUAGE_TAG.test(tag)).toBe(false),
  );
});

describe("a browser without a session gets the best of the pages' languages it asks for", () => {
  test.each([
    ['it-IT,it;q=0.9,en;q=0.5', 'it'],
    ['de-DE,es;q=0.8,ro;q=0.7', 'es'],
    ['fr-FR,de;q=0.9', 'en'],
    ['ro;q=0.2,it;q=0.3', 'it'],
    [undefined, 'en'],
  ])('%s → %s', (header, locale) => expect(negotiateHostLocale(header)).toBe(locale));
});

test("only the pages' own languages are locales a host can switch to", () => {
  expect(['en', 'ro', 'it', 'es', 'de', '', undefined, 1].map(isHostLocale)).toEqual([
    true,
    true,
    true,
    true,
    false,
    false,
    false,
    false,
  ]);
});
