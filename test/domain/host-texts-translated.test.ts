import { describe, expect, test } from 'vitest';
import { MESSAGE_KEYS, translator } from '../../api/host/i18n.ts';
import { LISTINGS_TEXT_KEYS, listingsTexts } from '../../api/host/listings-texts.ts';

// A key missing in one language does not compile (each table is typed by the English one), and
// test/api/host-texts.test.ts holds each translation to the English text's places. What neither
// sees is a text added in English to every table, to be translated later: no Romanian, Italian or
// Spanish text of the host pages is its English text, word for word.
describe('every host text is translated', () => {
  const values = { count: 2 };
  test.each(['ro', 'it', 'es'] as const)('%s: no text is the English one', (locale) => {
    const en = translator('en');
    const other = translator(locale);
    const enListings = listingsTexts('en');
    const otherListings = listingsTexts(locale);
    expect(MESSAGE_KEYS.filter((key) => other(key, values) === en(key, values))).toEqual([]);
    expect(LISTINGS_TEXT_KEYS.filter((key) => otherListings(key, values) === enListings(key, values))).toEqual([]);
  });
});
