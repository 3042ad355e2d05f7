import { describe, expect, test } from 'vitest';
import {
  firstInvalidDate,
  nextLegalChange,
  nextWithdrawal,
  isIdentifierScheme,
  isValidOn,
  legalProjection,
  type Classification,
  type LegalIdentifier,
  type LegalSource,
} from '../../domain/catalogue/legal.ts';

const TODAY = '2025-06-15';

const roCertificate: Classification = {
  certificate_number: 'BV-12345',
  category: 'pensiune',
  rating_kind: 'flori',
  rating: 3,
  valid_until: '2027-03-31',
  country: 'RO',
};

const cin = (value: string, valid_until: string | null = null): LegalIdentifier => ({
  scheme: 'it.cin',
  value,
  valid_until,
  issued_by: 'Ministero del Turismo',
});

function source(overrides: Partial<LegalSource>): LegalSource {
  return { country: 'RO', classification: null, registration_number: null, identifiers: [], ...overrides };
}

describe('Romania', () => {
  test('published with a valid certificate; registration number null unless given', () => {
    expect(legalProjection(source({ classification: roCertificate }), TODAY)).toEqual({
      publishable: true,
      legal: { classification: roCertificate, registration_number: null, identifiers: [] },
    });
    const withNumber = legalProjection(
      source({ classification: roCertificate, registration_number: ' J08/1/2020 ' }),
      TODAY,
    );
    expect(withNumber.publishable && withNumber.legal.registration_number).toBe('J08/1/2020');
  });

  test.each([
    ['the day before expiry', '2027-03-30', true],
    ['the expiry day itself', '2027-03-31', true],
    ['the day after expiry', '2027-04-01', false],
  ])('on %s the certificate is valid: %s', (_label, today, valid) => {
    const result = legalProjection(source({ classification: roCertificate }), today);
    expect(result).toEqual(
      valid
        ? expect.objectContaining({ publishable: true })
        : { publishable: false, reason: 'ro_classification_expired' },
    );
  });

  test('without a certificate, or with one from another country, it is not published', () => {
    expect(legalProjection(source({}), TODAY)).toEqual({ publishable: false, reason: 'ro_classification_missing' });
    expect(legalProjection(source({ classification: { ...roCertificate, country: 'MD' } }), TODAY)).toEqual({
      publishable: false,
      reason: 'ro_classification_missing',
    });
  });

  test('the country code is read case-insensitively', () => {
    expect(legalProjection(source({ country: 'ro' }), TODAY)).toEqual({
      publishable: false,
      reason: 'ro_classification_missing',
    });
  });
});

describe('Italy', () => {
  test('the it.cin identifier becomes the registration number; classification is null', () => {
    const result = legalProjection(
      source({ country: 'IT', classification: roCertificate, identifiers: [cin('IT015146C2ABCDEFGH')] }),
      TODAY,
    );
    expect(result).toEqual({
      publishable: true,
      legal: {
        classification: null,
        registration_number: 'IT015146C2ABCDEFGH',
        identifiers: [cin('IT015146C2ABCDEFGH')],
      },
    });
  });

  test('a given registration number serves when there is no it.cin identifier', () => {
    const result = legalProjection(source({ country: 'IT', registration_number: 'IT058091B4XYZ12345' }), TODAY);
    expect(result.publishable && result.legal.registration_number).toBe('IT058091B4XYZ12345');
  });

  test('the it.cin identifier wins over a given registration number', () => {
    const result = legalProjection(
      source({ country: 'IT', registration_number: 'OLD', identifiers: [cin('IT015146C2ABCDEFGH')] }),
      TODAY,
    );
    expect(result.publishable && result.legal.registration_number).toBe('IT015146C2ABCDEFGH');
  });

  test.each([
    ['nothing', source({ country: 'IT' })],
    ['a blank CIN', source({ country: 'IT', identifiers: [cin('  ')], registration_number: ' ' })],
    ['an expired CIN', source({ country: 'IT', identifiers: [cin('IT015146C2ABCDEFGH', '2025-06-14')] })],
    [
      'another scheme only',
      source({
        country: 'IT',
        identifiers: [{ scheme: 'eu.str_registration', value: 'X', valid_until: null, issued_by: null }],
      }),
    ],
  ])('with %s it is not published', (_label, property) => {
    expect(legalProjection(property, TODAY)).toEqual({ publishable: false, reason: 'it_cin_missing' });
  });
});

describe('elsewhere', () => {
  test.each(['ES', 'FR', 'DE', 'GR'])('%s: both null, identifiers carried', (country) => {
    const identifiers: LegalIdentifier[] = [
      { scheme: 'es.ri', value: 'VUT/MA/12345', valid_until: null, issued_by: 'Junta de Andalucía' },
      { scheme: 'eu.str_registration', value: 'EU-123', valid_until: '2030-01-01', issued_by: null },
    ];
    expect(
      legalProjection(
        source({ country, classification: roCertificate, registration_number: 'R-1', identifiers }),
        TODAY,
      ),
    ).toEqual({
      publishable: true,
      legal: { classification: null, registration_number: null, identifiers },
    });
  });

  test('identifiers with a malformed scheme are dropped', () => {
    const good = { scheme: 'es.ri', value: 'A', valid_until: null, issued_by: null };
    const result = legalProjection(
      source({ country: 'ES', identifiers: [good, { ...good, scheme: 'ES.RI' }, { ...good, scheme: 'ri' }] }),
      TODAY,
    );
    expect(result.publishable && result.legal.identifiers).toEqual([good]);
  });

  test('the projection does not share objects with its input', () => {
    const identifiers = [{ scheme: 'es.ri', value: 'A', valid_until: null, issued_by: null }];
    const result = legalProjection(source({ country: 'ES', identifiers }), TODAY);
    expect(result.publishable && result.legal.identifiers[0]).not.toBe(identifiers[0]);
  });
});

describe('identifier schemes', () => {
  test.each([
    ['ro.classification', true],
    ['it.cin', true],
    ['eu.str_registration', true],
    ['es.ri', true],
    ['es-ct.hut', true],
    ['IT.cin', false],
    ['it.CIN', false],
    ['cin', false],
    ['it.', false],
    ['italy.cin', false],
    ['it.cin.extra', false],
    ['it.1cin', false],
    ['it.c-in', false],
  ])('%s -> %s', (scheme, expected) => {
    expect(isIdentifierScheme(scheme)).toBe(expected);
  });
});

describe('validity dates', () => {
  test.each([
    [null, TODAY, true],
    ['2025-06-15', TODAY, true],
    ['2025-06-14', TODAY, false],
  ])('valid_until %s on %s -> %s', (validUntil, today, expected) => {
    expect(isValidOn(validUntil, today)).toBe(expected);
  });

  test.each([
    ['2027-03-31', '2027-04-01'],
    ['2024-02-28', '2024-02-29'],
    ['2025-12-31', '2026-01-01'],
  ])('a certificate valid through %s is invalid from %s', (validUntil, expected) => {
    expect(firstInvalidDate(validUntil)).toBe(expected);
  });

  test.each(['31.03.2027', '2025-02-30', '2025-2-3'])('refuses the malformed date %s', (date) => {
    expect(() => firstInvalidDate(date)).toThrow(RangeError);
  });
});

describe('the next legal change and withdrawal', () => {
  const certificate = (valid_until: string): Classification => ({ ...roCertificate, valid_until });
  const str = (valid_until: string): LegalIdentifier => ({
    scheme: 'eu.str_registration',
    value: 'EU-1',
    valid_until,
    issued_by: null,
  });
  const lapse = (on: string, scheme: string, value: string, valid_until: string, publishable: boolean) => ({
    on,
    identifier: { scheme, value, valid_until },
    publishable,
  });

  test.each([
    [
      'RO: the certificate lapses the day after it ends',
      source({ classification: certificate('2025-06-20') }),
      lapse('2025-06-21', 'ro.classification', 'BV-12345', '2025-06-20', false),
    ],
    [
      'RO: valid through today, withdrawn tomorrow',
      source({ classification: certificate(TODAY) }),
      lapse('2025-06-16', 'ro.classification', 'BV-12345', TODAY, false),
    ],
    ['RO: already expired, nothing ahead', source({ classification: certificate('2025-06-14') }), null],
    ['RO: no certificate, nothing ahead', source({}), null],
    [
      'RO: an identifier the rules do not read changes nothing',
      source({ classification: certificate('2030-01-01'), identifiers: [str('2025-07-01')] }),
      lapse('2030-01-02', 'ro.classification', 'BV-12345', '2030-01-01', false),
    ],
    [
      'IT: the CIN lapses',
      source({ country: 'IT', identifiers: [cin('IT-A', '2025-09-30')] }),
      lapse('2025-10-01', 'it.cin', 'IT-A', '2025-09-30', false),
    ],
    ['IT: a CIN without end date never lapses', source({ country: 'IT', identifiers: [cin('IT-A')] }), null],
    [
      'IT: named by the CIN when another identifier lapses the same day',
      source({ country: 'IT', identifiers: [str('2025-09-30'), cin('IT-A', '2025-09-30')] }),
      lapse('2025-10-01', 'it.cin', 'IT-A', '2025-09-30', false),
    ],
    [
      'ES: dated identifiers travel but change nothing',
      source({ country: 'ES', identifiers: [str('2025-07-01')] }),
      null,
    ],
  ])('%s', (_label, property, expected) => {
    expect(nextLegalChange(property, TODAY)).toEqual(expected);
    expect(nextWithdrawal(property, TODAY)).toEqual(expected);
  });

  test('IT: the first CIN lapsing with a later one behind it changes the registration number, then the later withdraws', () => {
    const property = source({
      country: 'IT',
      identifiers: [cin('IT-SOON', '2025-09-30'), cin('IT-LATER', '2026-03-31')],
    });
    expect(nextLegalChange(property, TODAY)).toEqual(lapse('2025-10-01', 'it.cin', 'IT-SOON', '2025-09-30', true));
    expect(nextWithdrawal(property, TODAY)).toEqual(lapse('2026-04-01', 'it.cin', 'IT-LATER', '2026-03-31', false));
    expect(nextLegalChange(property, '2025-10-01')).toEqual(
      lapse('2026-04-01', 'it.cin', 'IT-LATER', '2026-03-31', false),
    );
  });

  test('IT: a lapsing CIN with a registration number behind it never withdraws', () => {
    const property = source({
      country: 'IT',
      registration_number: 'IT-GIVEN',
      identifiers: [cin('IT-A', '2025-09-30')],
    });
    expect(nextLegalChange(property, TODAY)).toEqual(lapse('2025-10-01', 'it.cin', 'IT-A', '2025-09-30', true));
    expect(nextWithdrawal(property, TODAY)).toBeNull();
  });

  test('IT: two CINs lapsing the same day are one change', () => {
    const property = source({ country: 'IT', identifiers: [cin('IT-A', '2025-09-30'), cin('IT-B', '2025-09-30')] });
    expect(nextLegalChange(property, TODAY)).toEqual(lapse('2025-10-01', 'it.cin', 'IT-A', '2025-09-30', false));
  });
});
