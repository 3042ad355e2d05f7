import { describe, expect, test } from 'vitest';
import { formatDate, formatInstant, formatNumber } from '../../api/host/formats.ts';
import { renderHandOffPage } from '../../api/owner-connect/hand-off-page.ts';
import { formatMessage, MESSAGE_KEYS, translator } from '../../api/host/i18n.ts';
import {
  KNOWN_REJECTION_REASONS,
  LISTINGS_TEXT_KEYS,
  listingsTexts,
  rejectionReason,
} from '../../api/host/listings-texts.ts';
import { HOST_LOCALES } from '../../domain/host-locale.ts';

// The host pages' texts: counts by the language's plural rules and number format, instants on
// the clock of the place they concern.

describe("counts follow the language's plural rules and number format", () => {
  test.each([
    [1, '1 reported day'],
    [2, '2 reported days'],
    [30, '30 reported days'],
  ])('English: %i → %s', (count, text) => expect(listingsTexts('en')('chart.count_days', { count })).toBe(text));

  test('English: one view, 5,947 views', () => {
    const tl = listingsTexts('en');
    expect(tl('chart.count_views', { count: 1 })).toBe('1 view');
    expect(tl('chart.count_views', { count: 5947 })).toBe('5,947 views');
  });

  // Romanian: "de" where the last two digits are 0 or 20-99 (CLDR category `other`).
  test.each([
    [1, '1 zi raportată'],
    [2, '2 zile raportate'],
    [19, '19 zile raportate'],
    [20, '20 de zile raportate'],
    [30, '30 de zile raportate'],
    [101, '101 zile raportate'],
    [120, '120 de zile raportate'],
  ])('Romanian: %i → %s', (count, text) => expect(listingsTexts('ro')('chart.count_days', { count })).toBe(text));

  test('Romanian: 5.947 de vizualizări, 367 de clicuri, 1 clic', () => {
    const tl = listingsTexts('ro');
    expect(tl('chart.count_views', { count: 5947 })).toBe('5.947 de vizualizări');
    expect(tl('chart.count_clicks', { count: 367 })).toBe('367 de clicuri spre rezervare');
    expect(tl('chart.count_clicks', { count: 1 })).toBe('1 clic spre rezervare');
  });

  test("a whole sentence: the counts inside the summary, the owner's count chosen by its own number", () => {
    const tl = listingsTexts('ro');
    const summary = tl('chart.summary', {
      views: tl('chart.count_views', { count: 5947 }),
      clicks: tl('chart.count_clicks', { count: 367 }),
      days: tl('chart.count_days', { count: 1 }),
      max: 1200,
    });
    expect(summary).toBe(
      '5.947 de vizualizări și 367 de clicuri spre rezervare în 1 zi raportată; cele mai multe vizualizări într-o zi: 1.200.',
    );
    expect(listingsTexts('en')('attention.not_connected', { count: 1 })).toContain(
      'which lists one of their properties',
    );
    expect(listingsTexts('en')('attention.not_connected', { count: 1200 })).toContain(
      'which lists 1,200 of their properties',
    );
  });

  test('a plural text without a numeric count is a programming error, not a wrong page', () => {
    expect(() => formatMessage('en', { one: '{count} day', other: '{count} days' }, {})).toThrow(TypeError);
  });

  test('a form the table leaves out falls back to `other`', () => {
    expect(formatMessage('ro', { one: '{count} zi', other: '{count} de zile' }, { count: 2 })).toBe('2 de zile');
  });

  test('numbers are grouped as each language groups them', () => {
    expect([formatNumber('en', 15947), formatNumber('ro', 15947)]).toEqual(['15,947', '15.947']);
  });
});

describe('instants on the clock of the place, with its zone named', () => {
  test('a report at 08:01 UTC reads 10:01 in Bucharest in November and 11:01 in July', () => {
    expect(formatInstant('en', '2026-11-22T08:01:00Z', 'Europe/Bucharest')).toBe(
      '22 Nov 2026, 10:01 (Europe/Bucharest)',
    );
    expect(formatInstant('ro', '2026-07-22T08:01:00Z', 'Europe/Bucharest')).toBe(
      '22 iul. 2026, 11:01 (Europe/Bucharest)',
    );
  });

  test('an instant past midnight UTC falls on the next local day', () => {
    expect(formatInstant('en', '2026-11-22T23:30:00Z', 'Europe/Bucharest')).toBe(
      '23 Nov 2026, 01:30 (Europe/Bucharest)',
    );
  });

  test('a zone the runtime does not know is written in UTC, saying so', () => {
    expect(formatInstant('en', '2026-11-22T08:01:00Z', 'Mars/Olympus_Mons')).toBe('22 Nov 2026, 08:01 (UTC)');
  });

  test('a local date is that date wherever the server runs', () => {
    expect(formatDate('ro', '2026-12-02')).toBe('2 dec. 2026');
  });
});

describe('every language fills the same places as English', () => {
  const values = (count: number) => ({
    count,
    name: '‹name›',
    when: '‹when›',
    channel: '‹channel›',
    reference: '‹reference›',
    property: '‹property›',
    owner: '‹owner›',
    date: '‹date›',
    channels: '‹channels›',
    status: '‹status›',
    reason: '‹reason›',
    since: '‹since›',
    received: '‹received›',
    from: '‹from›',
    to: '‹to›',
    views: '‹views›',
    clicks: '‹clicks›',
    days: '‹days›',
    max: '‹max›',
    code: '‹code›',
  });
  const placesOf = (text: string) => [...new Set(text.match(/‹\w+›|\{\w+\}/g) ?? [])].sort();
  test.each(['ro', 'it', 'es'] as const)('%s', (locale) => {
    const [en, other] = [translator('en'), translator(locale)];
    const [enListings, otherListings] = [listingsTexts('en'), listingsTexts(locale)];
    for (const count of [1, 2, 5, 20, 1_000_000]) {
      for (const key of MESSAGE_KEYS)
        expect(placesOf(other(key, values(count))), `${locale} ${key}`).toEqual(placesOf(en(key, values(count))));
      for (const key of LISTINGS_TEXT_KEYS)
        expect(placesOf(otherListings(key, values(count))), `${locale} ${key}`).toEqual(
          placesOf(enListings(key, values(count))),
        );
    }
  });
});

describe("the owner-connect hand-off page speaks the host pages' languages and names the channel", () => {
  test.each([
    ['ro-RO', 'ro', 'Conectarea anunțurilor la demo-travel', 'Continuați către demo-travel'],
    ['it-IT', 'it', 'Collegamento dei Suoi annunci a demo-travel', 'Continua verso demo-travel'],
    ['es', 'es', 'Conexión de sus anuncios con demo-travel', 'Continuar a demo-travel'],
    ['de-DE', 'en', 'Connecting your listings to demo-travel', 'Continue to demo-travel'],
  ])('%s → %s', (locale, lang, title, button) => {
    const page = renderHandOffPage({
      redirectUrl: 'https://partner.example/connect',
      token: 't',
      channel: 'demo-travel',
      nonce: 'n',
      locale,
    });
    const text = (markup: string) => markup.replaceAll('<wbr>', '');
    expect(page).toContain(`<html lang="${lang}">`);
    expect(page).toContain(`<title>${title}</title>`);
    expect(text(page)).toContain(`<h1>${title}</h1>`);
    expect(text(page)).toMatch(/<p>[^<]*demo-travel[^<]*<\/p>/);
    expect(text(page)).toContain(`<button type="submit">${button}</button>`);
  });

  test("the channel's name is escaped, and a long one can break to fit a phone", () => {
    const render = (channel: string) =>
      renderHandOffPage({ redirectUrl: 'https://partner.example/connect', token: 't', channel, nonce: 'n' });
    const hostile = render('x"><script>alert(1)</script>');
    expect(hostile).not.toContain('<script>alert');
    expect(hostile.replaceAll('<wbr>', '')).toContain('x&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;');
    const long = render('a'.repeat(40));
    expect(long).toContain(`<h1>Connecting your listings to ${'a'.repeat(12)}<wbr>${'a'.repeat(12)}<wbr>`);
    expect(long).toContain(`<title>Connecting your listings to ${'a'.repeat(40)}</title>`);
  });
});

describe('texts that name an owner or a property agree whatever the name', () => {
  // Romanian, Italian and Spanish make a participle agree with its subject's gender: a name as the
  // subject ("Giulia Rossi non è collegato") is wrong for half the names. Each such text puts the
  // name after a noun phrase of its own ("La struttura {property} è stata ritirata") or says it
  // without a subject that agrees ("Nu există o conexiune între {owner} și …").
  test.each(['ro', 'it', 'es'] as const)('%s: no text starts with a name it makes agree', (locale) => {
    const other = listingsTexts(locale);
    for (const key of LISTINGS_TEXT_KEYS)
      for (const count of [1, 2, 20]) {
        const text = other(key, { count });
        expect(text, `${locale} ${key}`).not.toMatch(/^\{(owner|property)\}/);
      }
  });

  test.each([
    [
      'ro',
      'Pensiunea Casa Bran',
      'Nu există încă o conexiune între Pensiunea Casa Bran și demo-travel, care listează una dintre proprietățile acestui proprietar. Creați-o din pagina proprietarilor.',
    ],
    [
      'it',
      'Giulia Rossi',
      'Non c’è ancora un collegamento tra Giulia Rossi e demo-travel, che pubblica una delle strutture del proprietario. Lo crei dalla pagina dei proprietari.',
    ],
    [
      'es',
      'Carmen Ortega',
      'Todavía no hay ninguna conexión entre Carmen Ortega y demo-travel, que publica uno de los alojamientos del propietario. Créela en la página de propietarios.',
    ],
  ] as const)('%s: an owner not connected, %s', (locale, owner, text) => {
    expect(listingsTexts(locale)('attention.not_connected', { count: 1, owner, channel: 'demo-travel' })).toBe(text);
  });

  test.each([
    ['ro', 'Fără conexiune', 'Conexiune activă din 23 nov. 2026'],
    ['it', 'Nessun collegamento', 'Collegamento attivo dal 23 nov 2026'],
    ['es', 'Sin conexión', 'Conexión activa desde el 23 nov 2026'],
  ] as const)("%s: the owners page's states are said of the connection, not of the owner", (locale, off, on) => {
    const t = translator(locale);
    expect(t('owners.not_connected')).toBe(off);
    expect(t('owners.connected', { when: formatDate(locale, '2026-11-23') })).toBe(on);
  });
});

describe("a rejection's reason is said in words", () => {
  test.each([
    ['en', 'Reason: Photos', 'Reason: the channel’s code “blurry”'],
    ['ro', 'Motiv: Fotografii', 'Motiv: codul canalului „blurry”'],
    ['it', 'Motivo: Foto', 'Motivo: codice del canale «blurry»'],
    ['es', 'Motivo: Fotos', 'Motivo: código del canal «blurry»'],
  ] as const)('%s: a known reason translated, an unknown one shown as the code it is', (locale, photos, unknown) => {
    const tl = listingsTexts(locale);
    expect(tl('rejection.reason', { reason: rejectionReason('photos', tl) })).toBe(photos);
    expect(tl('rejection.reason', { reason: rejectionReason('blurry', tl) })).toBe(unknown);
  });

  test('every language has its own words for every reason the served description names', () => {
    for (const locale of HOST_LOCALES) {
      const tl = listingsTexts(locale);
      const words = KNOWN_REJECTION_REASONS.map((code) => rejectionReason(code, tl));
      expect(new Set(words).size, locale).toBe(KNOWN_REJECTION_REASONS.length);
      for (const [i, code] of KNOWN_REJECTION_REASONS.entries()) {
        expect(words[i], `${locale} ${code}`).not.toBe(code);
        expect(words[i], `${locale} ${code}`).not.toBe(tl('reason.other', { code }));
      }
    }
  });
});
