import { nightsForQuote, quoteSubject, replaceVatSchedule, vatSchedule } from '../db/quotes.ts';
import { writeTransaction } from '../db/sql.ts';
import { publishedHorizonEnd } from '../domain/availability/horizon.ts';
import { PLACEHOLDER_IN_JSON } from '../domain/availability/nights.ts';
import { isExternalId } from '../domain/catalogue/ids.ts';
import type { Fee } from '../domain/pricing/fee.ts';
import { quoteStay, type Quote } from '../domain/pricing/quote.ts';
import type { Capacity, Night, RatePlanForPricing } from '../domain/pricing/stay-rules.ts';
import type { VatSchedule } from '../domain/pricing/vat.ts';
import { ProblemError, type ParameterError } from '../domain/problems.ts';
import { localDate } from '../domain/time.ts';
import { invalidParameters } from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';

export interface QuoteQuery {
  property_id: string;
  arrival: string;
  departure: string;
  adults: number;
  children: number[];
  infants: number;
}

const seen = (subject: { status: string }) => subject.status === 'active' || subject.status === 'inactive';

/** A stay arrives on the property's today or later. */
function arrivalErrors(arrival: string, today: string): ParameterError[] {
  return arrival < today
    ? [{ parameter: 'arrival', code: 'in_the_past', detail: `the property's today is ${today}` }]
    : [];
}

/**
 * The rule after the query's shape, for a query whose shape was refused: an arrival before the
 * today of a property the channel sees, when both are well formed (a property it does not see is
 * 404, not a failed rule).
 */
export async function quoteRuleErrors(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  channelId: string,
  query: { property_id?: string | undefined; arrival?: string | undefined },
): Promise<ParameterError[]> {
  const { property_id: propertyId, arrival } = query;
  if (propertyId === undefined || arrival === undefined || !isExternalId('property', propertyId)) return [];
  const subject = await quoteSubject(deps.orm.em.fork(), channelId, propertyId);
  return subject && seen(subject) ? arrivalErrors(arrival, localDate(deps.clock.now(), subject.timezone)) : [];
}

/**
 * Every rate plan of a property the channel sees that admits the stay, priced exactly (see
 * domain/pricing/quote.ts). A property the channel does not see, or sees as a tombstone, is 404;
 * an arrival before the property's today is refused, a departure past its horizon too.
 */
export async function quoteStayFor(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  channelId: string,
  query: QuoteQuery,
): Promise<Quote[]> {
  const em = deps.orm.em.fork();
  const subject = isExternalId('property', query.property_id)
    ? await quoteSubject(em, channelId, query.property_id)
    : null;
  if (!subject || !seen(subject)) throw new ProblemError('not_found');
  const errors = arrivalErrors(query.arrival, localDate(deps.clock.now(), subject.timezone));
  if (errors.length > 0) throw invalidParameters(errors);
  // The horizon channels read (domain/availability/horizon.ts), not the spare night stored past it.
  const horizonEnd = publishedHorizonEnd(subject.horizonEnd, localDate(deps.clock.now(), subject.timezone));
  if (query.departure > horizonEnd) {
    throw new ProblemError('window_beyond_horizon', {
      horizon_end: horizonEnd,
      detail: `${query.property_id} has nights up to ${horizonEnd} (exclusive)`,
    });
  }
  // An inactive property cannot be sold: no plan admits a stay.
  if (subject.status !== 'active') return [];

  const { bodies, planIds } = await nightsForQuote(em, channelId, subject.internalId, query.arrival, query.departure);
  const nights = bodies.map(
    (body) =>
      JSON.parse(
        body.replace(PLACEHOLDER_IN_JSON, (_, key: string) => JSON.stringify(planIds.get(key) ?? null)),
      ) as Night,
  );
  const vat = subject.country ? await vatSchedule(em, subject.country) : [];
  const property = subject.body as {
    rate_plans: RatePlanForPricing[];
    fees: Fee[];
    city_tax_status: unknown;
    capacity: Capacity;
  };
  return quoteStay(
    property.rate_plans.map(({ id, currency, child_age_bands }) => ({ id, currency, child_age_bands })),
    {
      fees: property.fees,
      city_tax_status: property.city_tax_status,
      nights,
      party: { adults: query.adults, child_ages: query.children, infants: query.infants },
      arrival: query.arrival,
      departure: query.departure,
      capacity: property.capacity,
    },
    vat,
  );
}

/** The platform replaces a country's VAT schedule whole; an empty list removes it. */
export async function putVatSchedule(
  deps: Pick<ServiceDeps, 'orm'>,
  country: string,
  schedule: VatSchedule,
): Promise<VatSchedule> {
  await writeTransaction(deps.orm.em, (tx) => replaceVatSchedule(tx, country, schedule.rates));
  return getVatSchedule(deps, country);
}

export async function getVatSchedule(deps: Pick<ServiceDeps, 'orm'>, country: string): Promise<VatSchedule> {
  const rates = await vatSchedule(deps.orm.em.fork(), country);
  return { rates: rates.map((rate) => ({ ...rate, applies_to: 'accommodation' as const })) };
}
