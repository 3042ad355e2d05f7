/** Languages the service writes `cancellation.text` in; `en` first, as the fallback. */
export const CANCELLATION_LANGUAGES = ['en', 'ro', 'it', 'es', 'de', 'fr'] as const;
export type CancellationLanguage = (typeof CANCELLATION_LANGUAGES)[number];

/** Known values of the open `penalty` enum; other values are allowed and described generically. */
export const CANCELLATION_PENALTIES = ['none', 'first_night', 'percent', 'full_stay'] as const;

export interface CancellationTerms {
  refundable: boolean;
  free_until_days_before: number | null;
  penalty: string;
  penalty_percent: number | null;
}

export interface CancellationViolation {
  path: keyof CancellationTerms;
  code: string;
  detail: string;
}

const MAX_FREE_DAYS = 365;

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * Rule violations of the terms, at most one per field, in field order; empty when consistent.
 * A non-refundable plan takes no free period and the `full_stay` penalty (`none` there is reported
 * as `penalty`: free cancellation is what a non-refundable plan cannot offer).
 */
export function cancellationViolations(terms: CancellationTerms): CancellationViolation[] {
  const violations: CancellationViolation[] = [];
  const { refundable, free_until_days_before: days, penalty, penalty_percent: percent } = terms;

  if (!refundable && days !== null) {
    violations.push({
      path: 'free_until_days_before',
      code: 'non_refundable_terms',
      detail: 'A non-refundable rate plan has no free cancellation period: free_until_days_before must be null.',
    });
  } else if (refundable && !isIntegerIn(days, 0, MAX_FREE_DAYS)) {
    violations.push({
      path: 'free_until_days_before',
      code: 'free_until_days_before',
      detail: `A refundable rate plan needs free_until_days_before, an integer from 0 to ${MAX_FREE_DAYS}.`,
    });
  }

  if (!refundable && penalty === 'none') {
    violations.push({
      path: 'penalty',
      code: 'penalty',
      detail: 'The penalty none (free cancellation at any time) is only for refundable rate plans.',
    });
  } else if (!refundable && penalty !== 'full_stay') {
    violations.push({
      path: 'penalty',
      code: 'non_refundable_terms',
      detail: 'A non-refundable rate plan charges the full stay: penalty must be full_stay.',
    });
  }

  if (penalty === 'percent' && !isIntegerIn(percent, 1, 100)) {
    violations.push({
      path: 'penalty_percent',
      code: 'penalty_percent',
      detail: 'The penalty percent needs penalty_percent, an integer from 1 to 100.',
    });
  } else if (penalty !== 'percent' && percent !== null) {
    violations.push({
      path: 'penalty_percent',
      code: 'penalty_percent',
      detail: 'penalty_percent must be null unless the penalty is percent.',
    });
  }

  return violations;
}

type Penalty = { kind: 'first_night' | 'full_stay' | 'other' } | { kind: 'percent'; percent: number };

interface Phrases {
  anyTime: string;
  nonRefundable: string;
  /** The free period, as a sentence, for `days` >= 0. */
  freeUntil: (days: number) => string;
  /** What is charged once the free period is over, as a sentence. */
  after: (penalty: Penalty) => string;
}

const NBSP = '\u00a0';

/** Romanian puts `de` between a numeral and its noun from 20 on, except after 101–119, 201–219, ... */
function roDays(days: number): string {
  if (days === 1) return '1 zi';
  const lastTwo = days % 100;
  return lastTwo === 0 || lastTwo >= 20 ? `${days} de zile` : `${days} zile`;
}

const PHRASES: Readonly<Record<CancellationLanguage, Phrases>> = {
  en: {
    anyTime: 'Free cancellation at any time.',
    nonRefundable: 'Non-refundable: the full price of the stay is charged on cancellation.',
    freeUntil: (days) =>
      days === 0
        ? 'Free cancellation until the day of arrival.'
        : `Free cancellation until ${days} ${days === 1 ? 'day' : 'days'} before arrival.`,
    after: (p) => {
      switch (p.kind) {
        case 'first_night':
          return 'After that, the first night is charged.';
        case 'percent':
          return `After that, a fee of ${p.percent}% of the stay price is charged.`;
        case 'full_stay':
          return 'After that, the full price of the stay is charged.';
        case 'other':
          return 'After that, a cancellation fee applies.';
      }
    },
  },
  ro: {
    anyTime: 'Anulare gratuită oricând.',
    nonRefundable: 'Nerambursabil: la anulare se percepe prețul integral al sejurului.',
    freeUntil: (days) =>
      days === 0
        ? 'Anulare gratuită până în ziua sosirii.'
        : `Anulare gratuită până cu ${roDays(days)} înainte de sosire.`,
    after: (p) => {
      switch (p.kind) {
        case 'first_night':
          return 'După acest termen se percepe contravaloarea primei nopți.';
        case 'percent':
          return `După acest termen se percepe o taxă de ${p.percent}% din prețul sejurului.`;
        case 'full_stay':
          return 'După acest termen se percepe prețul integral al sejurului.';
        case 'other':
          return 'După acest termen se aplică o taxă de anulare.';
      }
    },
  },
  it: {
    anyTime: 'Cancellazione gratuita in qualsiasi momento.',
    nonRefundable: 'Non rimborsabile: in caso di cancellazione viene addebitato il prezzo totale del soggiorno.',
    freeUntil: (days) =>
      days === 0
        ? "Cancellazione gratuita fino al giorno dell'arrivo."
        : `Cancellazione gratuita fino a ${days} ${days === 1 ? 'giorno' : 'giorni'} prima dell'arrivo.`,
    after: (p) => {
      switch (p.kind) {
        case 'first_night':
          return 'Dopo tale termine viene addebitata la prima notte.';
        case 'percent':
          return `Dopo tale termine viene addebitata una penale del ${p.percent}% del prezzo del soggiorno.`;
        case 'full_stay':
          return 'Dopo tale termine viene addebitato il prezzo totale del soggiorno.';
        case 'other':
          return 'Dopo tale termine si applica una penale di cancellazione.';
      }
    },
  },
  es: {
    anyTime: 'Cancelación gratuita en cualquier momento.',
    nonRefundable: 'No reembolsable: en caso de cancelación se cobra el precio total de la estancia.',
    freeUntil: (days) =>
      days === 0
        ? 'Cancelación gratuita hasta el día de la llegada.'
        : `Cancelación gratuita hasta ${days} ${days === 1 ? 'día' : 'días'} antes de la llegada.`,
    after: (p) => {
      switch (p.kind) {
        case 'first_night':
          return 'Después de ese plazo se cobra la primera noche.';
        case 'percent':
          return `Después de ese plazo se cobra una penalización del ${p.percent}${NBSP}% del precio de la estancia.`;
        case 'full_stay':
          return 'Después de ese plazo se cobra el precio total de la estancia.';
        case 'other':
          return 'Después de ese plazo se aplica una penalización por cancelación.';
      }
    },
  },
  de: {
    anyTime: 'Kostenlose Stornierung jederzeit möglich.',
    nonRefundable: 'Nicht erstattungsfähig: Bei Stornierung wird der volle Preis des Aufenthalts berechnet.',
    freeUntil: (days) =>
      days === 0
        ? 'Kostenlose Stornierung bis zum Anreisetag.'
        : `Kostenlose Stornierung bis ${days} ${days === 1 ? 'Tag' : 'Tage'} vor der Anreise.`,
    after: (p) => {
      switch (p.kind) {
        case 'first_night':
          return 'Danach wird die erste Nacht berechnet.';
        case 'percent':
          return `Danach wird eine Stornogebühr von ${p.percent}${NBSP}% des Aufenthaltspreises berechnet.`;
        case 'full_stay':
          return 'Danach wird der volle Preis des Aufenthalts berechnet.';
        case 'other':
          return 'Danach fällt eine Stornogebühr an.';
      }
    },
  },
  fr: {
    anyTime: 'Annulation gratuite à tout moment.',
    nonRefundable: `Non remboursable${NBSP}: le prix total du séjour est facturé en cas d'annulation.`,
    freeUntil: (days) =>
      days === 0
        ? "Annulation gratuite jusqu'au jour de l'arrivée."
        : `Annulation gratuite jusqu'à ${days} ${days === 1 ? 'jour' : 'jours'} avant l'arrivée.`,
    after: (p) => {
      switch (p.kind) {
        case 'first_night':
          return 'Passé ce délai, la première nuit est facturée.';
        case 'percent':
          return `Passé ce délai, des frais d'annulation de ${p.percent}${NBSP}% du prix du séjour sont facturés.`;
        case 'full_stay':
          return 'Passé ce délai, le prix total du séjour est facturé.';
        case 'other':
          return "Passé ce délai, des frais d'annulation s'appliquent.";
      }
    },
  },
};

function penaltyOf(terms: CancellationTerms): Penalty {
  switch (terms.penalty) {
    case 'first_night':
    case 'full_stay':
      return { kind: terms.penalty };
    case 'percent':
      return { kind: 'percent', percent: terms.penalty_percent ?? 0 };
    default:
      return { kind: 'other' };
  }
}

/**
 * `cancellation.text`: one entry per shipped language, in `CANCELLATION_LANGUAGES` order (so
 * always `en`, and the source language when the service ships it). Plain text, one or two
 * sentences, deterministic. The terms must be consistent: throws a RangeError naming the
 * violation codes otherwise (check with `cancellationViolations` first).
 */
export function cancellationText(terms: CancellationTerms): Record<string, string> {
  const violations = cancellationViolations(terms);
  if (violations.length > 0) {
    const list = violations.map((v) => `${v.path}: ${v.code}`).join(', ');
    throw new RangeError(`cancellationText: inconsistent terms (${list})`);
  }
  const text: Record<string, string> = {};
  for (const language of CANCELLATION_LANGUAGES) {
    const phrases = PHRASES[language];
    if (!terms.refundable) text[language] = phrases.nonRefundable;
    else if (terms.penalty === 'none') text[language] = phrases.anyTime;
    else text[language] = `${phrases.freeUntil(terms.free_until_days_before ?? 0)} ${phrases.after(penaltyOf(terms))}`;
  }
  return text;
}
