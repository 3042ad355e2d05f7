import { addDays } from '../time.ts';
import { exact, exactAdd, exactSum, roundHalfAwayFromZero, type ExactAmount, type Money } from './money.ts';
import { offerStay, type AdmittedStay, type BesideItem, type StayRequest } from './price-of-stay.ts';
import { nightsOfStay, type RatePlanForPricing } from './stay-rules.ts';
import { vatRateOn, type VatRate } from './vat.ts';

export type QuoteNight = { date: string; price: Money };
export type QuoteFee = { type: string; per: string; amount: Money };
export type QuoteBeside = {
  type: string;
  payable_at: string;
  included_in_price: boolean;
  /** `amount`: known sum; `percent`: a share the property computes; `unknown`: exists, amount not known; `may_apply`: the property has not said. */
  charge: 'amount' | 'percent' | 'unknown' | 'may_apply';
  amount: Money | null;
  percent_bp: number | null;
  percent_of: string | null;
};
export type Quote = {
  rate_plan_id: string;
  total: Money;
  nights: QuoteNight[];
  fees_added: QuoteFee[];
  fees_beside: QuoteBeside[];
  vat: { rate_bp: number; amount: Money } | null;
};

/**
 * The exact price of a stay, one quote per rate plan whose rules admit it, cheapest first (plans
 * at the same total keep the property's order; different currencies are grouped by code).
 *
 * With a VAT schedule (docs/contract.md#the-price-of-a-stay, rule 6): a published night carries
 * the VAT in force the morning after it, and the whole stay is charged at the rate in force on the
 * departure date. Each night's price without VAT is taken exactly (no rounding), its fees
 * likewise at the departure rate, and the net sum is rounded once; the VAT is that net times the
 * departure rate, rounded once; the total is the two added, so total minus VAT is the net in whole
 * minor units. Each night and fee of the breakdown is rounded on its own for display and may not add up to the total.
 * With no rate known for a night or the departure date, the total is the published sum rounded
 * once and `vat` is null.
 */
export function quoteStay(
  plans: readonly RatePlanForPricing[],
  request: StayRequest,
  vatRates: readonly VatRate[],
): Quote[] {
  const dates = nightsOfStay(request.arrival, request.departure) ?? [];
  const quotes = offerStay(plans, request).offers.map(({ rate_plan_id, price }) =>
    quoteOf(rate_plan_id, price, dates, request.departure, vatRates),
  );
  return quotes
    .map((quote, order) => ({ quote, order }))
    .sort((a, b) =>
      a.quote.total.currency === b.quote.total.currency
        ? a.quote.total.amount - b.quote.total.amount || a.order - b.order
        : a.quote.total.currency < b.quote.total.currency
          ? -1
          : 1,
    )
    .map(({ quote }) => quote);
}

function quoteOf(
  ratePlanId: string,
  price: AdmittedStay,
  dates: readonly string[],
  departure: string,
  vatRates: readonly VatRate[],
): Quote {
  const currency = price.total.currency;
  const departureRate = vatRateOn(vatRates, departure);
  const nightRates = dates.map((date) => vatRateOn(vatRates, addDays(date, 1)));
  const fees_added = price.fees_added.map((fee) => ({ type: fee.fee_type, per: fee.per, amount: fee.money }));
  const fees_beside = price.shown_beside.map(beside);
  if (departureRate === null || nightRates.some((rate) => rate === null)) {
    return {
      rate_plan_id: ratePlanId,
      total: price.total,
      nights: dates.map((date, i) => ({ date, price: price.nightly[i]! })),
      fees_added,
      fees_beside,
      vat: null,
    };
  }
  // Night i without VAT: published price / (1 + its own rate), exact.
  const netNights = price.nightly.map((night, i) => withoutVat(exact(night.amount), nightRates[i]!));
  const net = exactAdd(exactSum(netNights), withoutVat(price.fees_exact, departureRate));
  const netRounded = roundHalfAwayFromZero(net);
  const vat = roundHalfAwayFromZero(timesBp(net, departureRate));
  return {
    rate_plan_id: ratePlanId,
    total: { amount: netRounded + vat, currency },
    nights: dates.map((date, i) => ({
      date,
      price: { amount: roundHalfAwayFromZero(withVat(netNights[i]!, departureRate)), currency },
    })),
    fees_added,
    fees_beside,
    vat: { rate_bp: departureRate, amount: { amount: vat, currency } },
  };
}

function withoutVat(gross: ExactAmount, rateBp: number): ExactAmount {
  return reduced(gross.num * 10_000n, gross.den * BigInt(10_000 + rateBp));
}

function withVat(net: ExactAmount, rateBp: number): ExactAmount {
  return reduced(net.num * BigInt(10_000 + rateBp), net.den * 10_000n);
}

function timesBp(amount: ExactAmount, rateBp: number): ExactAmount {
  return reduced(amount.num * BigInt(rateBp), amount.den * 10_000n);
}

function reduced(num: bigint, den: bigint): ExactAmount {
  // exactAdd with zero normalises the fraction.
  return exactAdd({ num, den }, { num: 0n, den: 1n });
}

function beside(item: BesideItem): QuoteBeside {
  const base = { amount: null, percent_bp: null, percent_of: null };
  if (item.kind === 'tourist_tax_may_apply')
    return { type: 'city_tax', payable_at: 'property', included_in_price: false, charge: 'may_apply', ...base };
  if (item.kind === 'tourist_tax') {
    const head = { type: 'city_tax', payable_at: 'property', included_in_price: false };
    switch (item.tax.kind) {
      case 'amount':
        return { ...head, charge: 'amount', ...base, amount: item.tax.money };
      case 'percent_at_property':
        return {
          ...head,
          charge: 'percent',
          ...base,
          percent_bp: item.tax.percent_bp,
          percent_of: item.tax.percent_of,
        };
      default:
        return { ...head, charge: 'unknown', ...base };
    }
  }
  const head = { type: item.fee_type, payable_at: item.payable_at, included_in_price: item.included_in_price };
  switch (item.charge.kind) {
    case 'amount':
      return { ...head, charge: 'amount', ...base, amount: item.charge.money };
    case 'percent':
      return {
        ...head,
        charge: 'percent',
        ...base,
        percent_bp: item.charge.percent_bp,
        percent_of: item.charge.percent_of,
      };
    default:
      return { ...head, charge: 'unknown', ...base };
  }
}
