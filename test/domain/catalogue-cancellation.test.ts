import { describe, expect, test } from 'vitest';
import {
  CANCELLATION_LANGUAGES,
  cancellationText,
  cancellationViolations,
  type CancellationTerms,
} from '../../domain/catalogue/cancellation.ts';
import { textViolations } from '../../domain/catalogue/text.ts';

const NBSP = '\u00a0';

const refundable = (
  free_until_days_before: number | null,
  penalty: string,
  penalty_percent: number | null = null,
): CancellationTerms => ({
  refundable: true,
  free_until_days_before,
  penalty,
  penalty_percent,
});
const NON_REFUNDABLE: CancellationTerms = {
  refundable: false,
  free_until_days_before: null,
  penalty: 'full_stay',
  penalty_percent: null,
};

describe('cancellationText', () => {
  const cases: Array<[string, CancellationTerms, Record<string, string>]> = [
    [
      'none',
      refundable(0, 'none'),
      {
        en: 'Free cancellation at any time.',
        ro: 'Anulare gratuită oricând.',
        it: 'Cancellazione gratuita in qualsiasi momento.',
        es: 'Cancelación gratuita en cualquier momento.',
        de: 'Kostenlose Stornierung jederzeit möglich.',
        fr: 'Annulation gratuite à tout moment.',
      },
    ],
    [
      'first_night, 14 days',
      refundable(14, 'first_night'),
      {
        en: 'Free cancellation until 14 days before arrival. After that, the first night is charged.',
        ro: 'Anulare gratuită până cu 14 zile înainte de sosire. După acest termen se percepe contravaloarea primei nopți.',
        it: "Cancellazione gratuita fino a 14 giorni prima dell'arrivo. Dopo tale termine viene addebitata la prima notte.",
        es: 'Cancelación gratuita hasta 14 días antes de la llegada. Después de ese plazo se cobra la primera noche.',
        de: 'Kostenlose Stornierung bis 14 Tage vor der Anreise. Danach wird die erste Nacht berechnet.',
        fr: "Annulation gratuite jusqu'à 14 jours avant l'arrivée. Passé ce délai, la première nuit est facturée.",
      },
    ],
    [
      'percent 30, 1 day',
      refundable(1, 'percent', 30),
      {
        en: 'Free cancellation until 1 day before arrival. After that, a fee of 30% of the stay price is charged.',
        ro: 'Anulare gratuită până cu 1 zi înainte de sosire. După acest termen se percepe o taxă de 30% din prețul sejurului.',
        it: "Cancellazione gratuita fino a 1 giorno prima dell'arrivo. Dopo tale termine viene addebitata una penale del 30% del prezzo del soggiorno.",
        es: `Cancelación gratuita hasta 1 día antes de la llegada. Después de ese plazo se cobra una penalización del 30${NBSP}% del precio de la estancia.`,
        de: `Kostenlose Stornierung bis 1 Tag vor der Anreise. Danach wird eine Stornogebühr von 30${NBSP}% des Aufenthaltspreises berechnet.`,
        fr: `Annulation gratuite jusqu'à 1 jour avant l'arrivée. Passé ce délai, des frais d'annulation de 30${NBSP}% du prix du séjour sont facturés.`,
      },
    ],
    [
      'full_stay, 0 days',
      refundable(0, 'full_stay'),
      {
        en: 'Free cancellation until the day of arrival. After that, the full price of the stay is charged.',
        ro: 'Anulare gratuită până în ziua sosirii. După acest termen se percepe prețul integral al sejurului.',
        it: "Cancellazione gratuita fino al giorno dell'arrivo. Dopo tale termine viene addebitato il prezzo totale del soggiorno.",
        es: 'Cancelación gratuita hasta el día de la llegada. Después de ese plazo se cobra el precio total de la estancia.',
        de: 'Kostenlose Stornierung bis zum Anreisetag. Danach wird der volle Preis des Aufenthalts berechnet.',
        fr: "Annulation gratuite jusqu'au jour de l'arrivée. Passé ce délai, le prix total du séjour est facturé.",
      },
    ],
    [
      'unknown penalty, 7 days',
      refundable(7, 'second_night'),
      {
        en: 'Free cancellation until 7 days before arrival. After that, a cancellation fee applies.',
        ro: 'Anulare gratuită până cu 7 zile înainte de sosire. După acest termen se aplică o taxă de anulare.',
        it: "Cancellazione gratuita fino a 7 giorni prima dell'arrivo. Dopo tale termine si applica una penale di cancellazione.",
        es: 'Cancelación gratuita hasta 7 días antes de la llegada. Después de ese plazo se aplica una penalización por cancelación.',
        de: 'Kostenlose Stornierung bis 7 Tage vor der Anreise. Danach fällt eine Stornogebühr an.',
        fr: "Annulation gratuite jusqu'à 7 jours avant l'arrivée. Passé ce délai, des frais d'annulation s'appliquent.",
      },
    ],
    [
      'non-refundable',
      NON_REFUNDABLE,
      {
        en: 'Non-refundable: the full price of the stay is charged on cancellation.',
        ro: 'Nerambursabil: la anulare se percepe prețul integral al sejurului.',
        it: 'Non rimborsabile: in caso di cancellazione viene addebitato il prezzo totale del soggiorno.',
        es: 'No reembolsable: en caso de cancelación se cobra el precio total de la estancia.',
        de: 'Nicht erstattungsfähig: Bei Stornierung wird der volle Preis des Aufenthalts berechnet.',
        fr: `Non remboursable${NBSP}: le prix total du séjour est facturé en cas d'annulation.`,
      },
    ],
  ];

  test.each(cases)('%s, in every shipped language', (_label, terms, expected) => {
    const text = cancellationText(terms);
    expect(text).toEqual(expected);
    expect(Object.keys(text)).toEqual([...CANCELLATION_LANGUAGES]);
  });

  test.each([
    [2, '2 days', '2 zile', '2 giorni', '2 días', '2 Tage', '2 jours'],
    [19, '19 days', '19 zile', '19 giorni', '19 días', '19 Tage', '19 jours'],
    [20, '20 days', '20 de zile', '20 giorni', '20 días', '20 Tage', '20 jours'],
    [101, '101 days', '101 zile', '101 giorni', '101 días', '101 Tage', '101 jours'],
    [120, '120 days', '120 de zile', '120 giorni', '120 días', '120 Tage', '120 jours'],
    [365, '365 days', '365 de zile', '365 giorni', '365 días', '365 Tage', '365 jours'],
  ])('%i days is plural (Romanian adds "de" from 20 on)', (days, ...phrases) => {
    const text = cancellationText(refundable(days, 'full_stay'));
    CANCELLATION_LANGUAGES.forEach((language, i) => expect(text[language]).toContain(` ${phrases[i]} `));
  });

  test('plain text of one or two sentences, Romanian with comma-below diacritics, deterministic', () => {
    const all = [
      ...cases.map(([, terms]) => terms),
      refundable(365, 'percent', 100),
      refundable(100, 'percent', 1),
      refundable(3, 'x'),
    ];
    for (const terms of all) {
      const text = cancellationText(terms);
      expect(cancellationText(terms)).toEqual(text);
      for (const value of Object.values(text)) {
        expect(textViolations(value)).toEqual([]);
        expect(value).not.toMatch(/\d{9}/);
        expect(value.match(/[.!?](?=\s|$)/g)?.length).toBeGreaterThanOrEqual(1);
        expect(value.match(/[.!?](?=\s|$)/g)?.length).toBeLessThanOrEqual(2);
      }
      expect(text.ro).not.toMatch(/[şţŞŢ]/);
    }
  });

  test('inconsistent terms are refused', () => {
    expect(() => cancellationText(refundable(null, 'first_night'))).toThrow(
      /free_until_days_before: free_until_days_before/,
    );
  });
});

describe('cancellationViolations', () => {
  test.each([
    ['non-refundable', NON_REFUNDABLE],
    ['refundable, none', refundable(0, 'none')],
    ['refundable, 365 days, percent 100', refundable(365, 'percent', 100)],
    ['refundable, unknown penalty', refundable(3, 'second_night')],
  ])('%s is consistent', (_label, terms) => {
    expect(cancellationViolations(terms)).toEqual([]);
  });

  test.each<[string, CancellationTerms, Array<[keyof CancellationTerms, string]>]>([
    [
      'non-refundable with a free period',
      { ...NON_REFUNDABLE, free_until_days_before: 3 },
      [['free_until_days_before', 'non_refundable_terms']],
    ],
    [
      'non-refundable, first night',
      { ...NON_REFUNDABLE, penalty: 'first_night' },
      [['penalty', 'non_refundable_terms']],
    ],
    [
      'non-refundable, unknown penalty',
      { ...NON_REFUNDABLE, penalty: 'second_night' },
      [['penalty', 'non_refundable_terms']],
    ],
    ['non-refundable, none', { ...NON_REFUNDABLE, penalty: 'none' }, [['penalty', 'penalty']]],
    ['refundable without days', refundable(null, 'full_stay'), [['free_until_days_before', 'free_until_days_before']]],
    ['refundable, negative days', refundable(-1, 'full_stay'), [['free_until_days_before', 'free_until_days_before']]],
    ['refundable, 366 days', refundable(366, 'full_stay'), [['free_until_days_before', 'free_until_days_before']]],
    [
      'refundable, fractional days',
      refundable(1.5, 'full_stay'),
      [['free_until_days_before', 'free_until_days_before']],
    ],
    ['percent without a percent', refundable(1, 'percent'), [['penalty_percent', 'penalty_percent']]],
    ['percent 0', refundable(1, 'percent', 0), [['penalty_percent', 'penalty_percent']]],
    ['percent 101', refundable(1, 'percent', 101), [['penalty_percent', 'penalty_percent']]],
    ['percent 12.5', refundable(1, 'percent', 12.5), [['penalty_percent', 'penalty_percent']]],
    ['a percent with another penalty', refundable(1, 'first_night', 30), [['penalty_percent', 'penalty_percent']]],
    [
      'everything wrong',
      { refundable: false, free_until_days_before: 1, penalty: 'percent', penalty_percent: null },
      [
        ['free_until_days_before', 'non_refundable_terms'],
        ['penalty', 'non_refundable_terms'],
        ['penalty_percent', 'penalty_percent'],
      ],
    ],
  ])('%s', (_label, terms, expected) => {
    const violations = cancellationViolations(terms);
    expect(violations.map((v) => [v.path, v.code])).toEqual(expected);
    for (const v of violations) expect(v.detail).not.toBe('');
  });
});
