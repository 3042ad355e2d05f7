import { describe, expect, test } from 'vitest';
import { textViolations } from '../../domain/catalogue/text.ts';
import { CONTACT_TEXTS } from './fixtures/contact-texts.ts';
import { ORDINARY_TEXTS } from './fixtures/ordinary-texts.ts';

const ordinary = Object.entries(ORDINARY_TEXTS).flatMap(([language, texts]) =>
  texts.map((text) => [language, text] as const),
);

describe('ordinary texts', () => {
  test('the corpus holds at least 200 texts, at least 40 in each of ro, it, es, en and de', () => {
    expect(ordinary.length).toBeGreaterThanOrEqual(200);
    for (const language of ['ro', 'it', 'es', 'en', 'de'] as const)
      expect(ORDINARY_TEXTS[language].length).toBeGreaterThanOrEqual(40);
  });

  test.each(ordinary)('%s: every rule lets through %s', (_language, text) => {
    expect(textViolations(text)).toEqual([]);
  });
});

describe('contact details', () => {
  const rows = Object.entries(CONTACT_TEXTS).flatMap(([kind, texts]) =>
    texts.map(([text, rules]) => [kind, text, rules] as const),
  );
  test.each(rows)('%s: %j breaks %j', (_kind, text, rules) => {
    expect(textViolations(text)).toEqual(rules);
  });
});
