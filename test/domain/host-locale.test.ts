import { describe, expect, test } from 'vitest';
import { isHostLocale, LANGUAGE_TAG, resolveHostLocale } from '../../domain/host-locale.ts';

describe('the host pages\' language for the platform\'s locale', () => {
  test.each([
    ['ro', 'ro'],
    ['ro-RO', 'ro'],
    ['RO-md', 'ro'],
    ['en', 'en'],
    ['en-GB', 'en'],
    ['it-IT', 'en'],
    ['rom', 'en'],
    ['', 'en'],
    [undefined, 'en'],
    [null, 'en'],
  ])('%s → %s', (tag, locale) => {
    expect(resolveHostLocale(tag)).toBe(locale);
  });
});

describe('a language tag as the platform may send it', () => {
  test.each(['ro', 'ro-RO', 'en-GB', 'sr-Latn-RS', 'zh-Hant-TW'])('%s is one', (tag) => expect(LANGUAGE_TAG.test(tag)).toBe(true));
  test.each(['', 'r', 'english please', 'ro_RO', 'ro-', '-ro', 'ro-RO-x-toolongsubtag', '<script>'])('%j is not', (tag) => expect(LANGUAGE_TAG.test(tag)).toBe(false));
});

test('only the pages\' own languages are locales a host can switch to', () => {
  expect(['en', 'ro', 'it', '', undefined, 1].map(isHostLocale)).toEqual([true, true, false, false, false, false]);
});
