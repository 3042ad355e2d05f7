import { describe, expect, test } from 'vitest';
import {
  isLanguageTag,
  isValidTextMap,
  sourceLanguage,
  textMapViolations,
  textViolations,
} from '../../domain/catalogue/text.ts';

describe('sourceLanguage', () => {
  test.each([
    ['RO', 'ro'],
    ['ro', 'ro'],
    ['MD', 'ro'],
    ['IT', 'it'],
    ['ES', 'es'],
    ['FR', 'fr'],
    ['DE', 'de'],
    ['AT', 'de'],
    ['PT', 'pt'],
    ['GR', 'el'],
    ['CZ', 'cs'],
    ['CH', 'en'],
    ['BE', 'en'],
    ['GB', 'en'],
    ['US', 'en'],
    ['ZZ', 'en'],
  ])('%s -> %s', (country, language) => {
    expect(sourceLanguage(country)).toBe(language);
  });
});

describe('isLanguageTag', () => {
  test.each([
    ['ro', true],
    ['en-GB', true],
    ['es-419', true],
    ['sr-Latn-RS', true],
    ['zh-Hant', true],
    ['fil', true],
    ['EN', false],
    ['en-gb', false],
    ['en_GB', false],
    ['english', false],
    ['', false],
    ['e', false],
  ])('%s -> %s', (tag, expected) => {
    expect(isLanguageTag(tag)).toBe(expected);
  });
});

describe('textViolations', () => {
  test.each([
    'Apartament cu două camere, 65 m², etajul 3 din 4, lângă Piața Unirii.',
    'Check-in 14:00-22:00, check-out until 11:00.',
    'Orario: 08.00 - 12.00 e 14.00-20.00.',
    'Renovated 1998-2004, open 01.05.2025-30.09.2025 and from 2025-10-01.',
    'Price from 1 200 lei per night; deposit 500 RON.',
    'Sleeps 4, 2 bedrooms, 1 bathroom, 3 beds.',
    'Ideal for families & friends; 5 < 10 minutes to the beach.',
    'Bine ați venit! Ca. 5 minute până la centru, e.g. pe jos.',
    'Distanza dal mare: 300 m. Parcheggio n. 12.',
  ])('lets through: %s', (text) => {
    expect(textViolations(text)).toEqual([]);
  });

  test.each([
    ['<b>Great</b> view', ['html']],
    ['Line one<br/>line two', ['html']],
    ['Tom &amp; Jerry', ['html']],
    ['<!-- hidden -->', ['html']],
    ['See https://example.com/flat', ['url']],
    ['Book at www.casa-mare.ro', ['url']],
    ['Book at casa-mare.ro directly', ['url']],
    ['Photos on book.example.com/x', ['url']],
    ['Write to host@example.com', ['email']],
    ['Write to host [at] example [dot] com', ['email']],
    ['Call +40 722 123 456', ['phone']],
    ['Call 0722 123 456', ['phone']],
    ['Call 0722-123-456', ['phone']],
    ['Appelez le 01.23.45.67.89', ['phone']],
    ['Chiamare il 333 1234567', ['phone']],
    ['Ring (030) 1234 5678', ['phone']],
    ['<a href="https://x.com">host@x.com</a> +40722123456', ['html', 'url', 'email', 'phone']],
  ])('flags %s', (text, rules) => {
    expect(textViolations(text)).toEqual(rules);
  });
});

describe('bidi', () => {
  test('the left-to-right mark (U+200E), which cannot reverse Latin text, is let through', () => {
    expect(textViolations('Casa \u200eBran\u200e, lângă piață.')).toEqual([]);
  });
});

describe('text maps', () => {
  test('a map with the source language and clean text is valid', () => {
    expect(isValidTextMap({ ro: 'Casă liniștită', en: 'Quiet house' }, 'ro')).toBe(true);
  });

  test('the source language is required; other languages are optional', () => {
    expect(textMapViolations({ en: 'Quiet house' }, 'ro')).toEqual([{ rule: 'source_language_missing' }]);
    expect(isValidTextMap({ it: 'Casa tranquilla' }, 'it')).toBe(true);
  });

  test.each([
    [null, [{ rule: 'not_an_object' }]],
    ['text', [{ rule: 'not_an_object' }]],
    [['ro'], [{ rule: 'not_an_object' }]],
    [{ ro: '   ' }, [{ language: 'ro', rule: 'empty' }]],
    [{ ro: 5 }, [{ language: 'ro', rule: 'empty' }]],
    [{ ro: 'Ok', EN: 'Ok' }, [{ language: 'EN', rule: 'language_tag' }]],
    [{ ro: 'Casă \u202e liniștită' }, [{ language: 'ro', rule: 'bidi' }]],
    [
      { ro: 'Sunați 0722 123 456', en: '<i>Hi</i>' },
      [
        { language: 'ro', rule: 'phone' },
        { language: 'en', rule: 'html' },
      ],
    ],
  ])('%o breaks %o', (map, violations) => {
    expect(textMapViolations(map, 'ro')).toEqual(violations);
    expect(isValidTextMap(map, 'ro')).toBe(false);
  });
});
