export interface Classification {
  certificate_number: string;
  category: string;
  rating_kind: string;
  rating: number | null;
  /** Last local date (YYYY-MM-DD, property's zone) on which the certificate is valid. */
  valid_until: string;
  country: string;
}

export interface LegalIdentifier {
  scheme: string;
  value: string;
  valid_until: string | null;
  issued_by: string | null;
}

export interface Legal {
  classification: Classification | null;
  registration_number: string | null;
  identifiers: LegalIdentifier[];
}

export interface LegalSource {
  /** ISO 3166-1 alpha-2 country of the property. */
  country: string;
  classification: Classification | null;
  registration_number?: string | null;
  identifiers: readonly LegalIdentifier[];
}

export const LEGAL_REFUSALS = ['ro_classification_missing', 'ro_classification_expired', 'it_cin_missing'] as const;
export type LegalRefusal = (typeof LEGAL_REFUSALS)[number];

export type LegalProjection = { publishable: true; legal: Legal } | { publishable: false; reason: LegalRefusal };

/**
 * `<jurisdiction>.<name>`: the jurisdiction is an ISO 3166-1 alpha-2 code, `eu`, or an ISO
 * 3166-2 subdivision (`es-ct`), all lowercase; the name is a lowercase word with underscores.
 */
const SCHEME_PATTERN = /^[a-z]{2}(?:-[a-z0-9]{1,3})?\.[a-z][a-z0-9_]*$/;

export const IT_CIN_SCHEME = 'it.cin';

export function isIdentifierScheme(value: string): boolean {
  return SCHEME_PATTERN.test(value);
}

/** Dates are `YYYY-MM-DD`, so string order is date order. A certificate is valid through `valid_until`. */
export function isValidOn(validUntil: string | null, today: string): boolean {
  return validUntil === null || validUntil >= today;
}

/** First local date on which a certificate valid through `validUntil` no longer is. */
export function firstInvalidDate(validUntil: string): string {
  const date = new Date(`${validUntil}T00:00:00Z`);
  // Date rolls 2025-02-30 over into March; a round trip catches it.
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== validUntil) {
    throw new RangeError(`firstInvalidDate: bad date ${validUntil}`);
  }
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

/**
 * The `legal` object a channel sees, or why the property cannot be published. `today` is the
 * property's local date. Identifiers with a malformed scheme are dropped, never sent.
 */
export function legalProjection(property: LegalSource, today: string): LegalProjection {
  const country = property.country.toUpperCase();
  const identifiers = property.identifiers.filter((id) => isIdentifierScheme(id.scheme)).map((id) => ({ ...id }));
  const given = nonEmpty(property.registration_number);

  if (country === 'RO') {
    const classification = property.classification;
    if (classification === null || classification.country.toUpperCase() !== 'RO') {
      return { publishable: false, reason: 'ro_classification_missing' };
    }
    if (!isValidOn(classification.valid_until, today)) {
      return { publishable: false, reason: 'ro_classification_expired' };
    }
    return {
      publishable: true,
      legal: { classification: { ...classification }, registration_number: given, identifiers },
    };
  }

  if (country === 'IT') {
    // The `it.cin` identifier is preferred over a bare registration number: it carries its own
    // validity. An expired CIN does not count.
    const cin = identifiers.find(
      (id) => id.scheme === IT_CIN_SCHEME && nonEmpty(id.value) && isValidOn(id.valid_until, today),
    );
    const registration = nonEmpty(cin?.value) ?? given;
    if (registration === null) return { publishable: false, reason: 'it_cin_missing' };
    return { publishable: true, legal: { classification: null, registration_number: registration, identifiers } };
  }

  // No other jurisdiction has a rule yet; identifiers (es.ri, eu.str_registration, ...) still travel.
  return { publishable: true, legal: { classification: null, registration_number: null, identifiers } };
}

function nonEmpty(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** Whether any identifier of the legal data has an end date: only such a property has a certificate-expiry workflow. */
export function hasEndDates(legal: Pick<Legal, 'classification' | 'identifiers'>): boolean {
  return legal.classification !== null || legal.identifiers.some((id) => id.valid_until !== null);
}

/** The scheme under which a Romanian classification certificate is named when it lapses. */
export const RO_CLASSIFICATION_SCHEME = 'ro.classification';

/** A dated identifier lapsing: on `on` (a local date) the property's legal projection changes. */
export interface LegalChange {
  /** First local date on which the identifier is no longer valid. */
  on: string;
  identifier: { scheme: string; value: string; valid_until: string };
  /** Whether the property can still be published from `on`. */
  publishable: boolean;
}

/**
 * Every dated identifier still valid on `today`, classification first, in the order they lapse.
 * Only those the legal rules read (the Romanian classification, the Italian CIN) change anything.
 */
function lapses(property: LegalSource, today: string): LegalChange['identifier'][] {
  const dated: LegalChange['identifier'][] = [];
  const c = property.classification;
  if (c) dated.push({ scheme: RO_CLASSIFICATION_SCHEME, value: c.certificate_number, valid_until: c.valid_until });
  for (const id of property.identifiers) {
    if (id.valid_until !== null && isIdentifierScheme(id.scheme))
      dated.push({ scheme: id.scheme, value: id.value, valid_until: id.valid_until });
  }
  // On one date, the identifiers the rules read come first: they are the ones a change is named by.
  const rank = (id: LegalChange['identifier']) =>
    id.scheme === RO_CLASSIFICATION_SCHEME || id.scheme === IT_CIN_SCHEME ? 0 : 1;
  return dated
    .filter((id) => isValidOn(id.valid_until, today))
    .sort((a, b) => (a.valid_until < b.valid_until ? -1 : a.valid_until > b.valid_until ? 1 : rank(a) - rank(b)));
}

/**
 * The next local date after `today` on which what the channels are shown changes because a dated
 * identifier lapses (the property withdrawn, or an Italian property falling back to another CIN),
 * or null when none lies ahead. Validity only ends, so changes only happen on such dates.
 */
export function nextLegalChange(property: LegalSource, today: string): LegalChange | null {
  return legalChanges(property, today).next().value ?? null;
}

/** The next lapse that withdraws a property publishable on `today`, or null. */
export function nextWithdrawal(property: LegalSource, today: string): LegalChange | null {
  for (const change of legalChanges(property, today)) if (!change.publishable) return change;
  return null;
}

function* legalChanges(property: LegalSource, today: string): Generator<LegalChange, undefined> {
  let before = JSON.stringify(legalProjection(property, today));
  const dated = lapses(property, today);
  for (const [i, identifier] of dated.entries()) {
    if (dated[i - 1]?.valid_until === identifier.valid_until) continue; // one date, one change
    const on = firstInvalidDate(identifier.valid_until);
    const projection = legalProjection(property, on);
    const after = JSON.stringify(projection);
    if (after === before) continue;
    before = after;
    yield { on, identifier, publishable: projection.publishable };
    if (!projection.publishable) return; // nothing comes back by itself
  }
  return undefined;
}
