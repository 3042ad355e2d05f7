import { chargedPer, feeCharge, type Fee, type FeeCharge, type Party } from './fee.ts';
import { exact, exactBasisPoints, exactSum, roundToMoney, type ExactAmount, type Money } from './money.ts';
import {
  bandOf,
  calendarRefusals,
  nightsOfStay,
  partyRefusals,
  type Capacity,
  type Night,
  type NightRate,
  type RatePlanForPricing,
  type Refusal,
} from './stay-rules.ts';
import { touristTaxNotice, type TouristTaxNotice } from './tourist-tax.ts';

export type StayRequest = {
  fees: readonly Fee[];
  city_tax_status: unknown;
  /** Availability nights of the property; the departure date's night is read for closed to departure. */
  nights: readonly Night[];
  party: Party;
  arrival: string;
  departure: string;
  capacity?: Capacity;
};

/** Each added fee rounded on its own for display; the total is rounded once over the exact sum. */
export type AddedFee = { fee_type: string; per: string; money: Money };

export type ShownCharge =
  | { kind: 'amount'; money: Money }
  | { kind: 'percent'; percent_bp: number; percent_of: string | null }
  | { kind: 'unknown' };

export type BesideItem =
  | TouristTaxNotice
  | { kind: 'fee'; fee_type: string; payable_at: string; included_in_price: boolean; charge: ShownCharge };

export type AdmittedStay = {
  admitted: true;
  total: Money;
  nightly: Money[];
  fees_added: AddedFee[];
  /** The added fees' exact sum, before the one rounding of the total. */
  fees_exact: ExactAmount;
  shown_beside: BesideItem[];
};
export type StayPrice = { admitted: false; reasons: Refusal[] } | AdmittedStay;

/**
 * The price of a stay (docs/contract.md#the-price-of-a-stay) for one party on one rate plan:
 * nightly prices for the party, plus every fee not included in the price and payable at booking.
 * Fees payable at the property and included fees are shown beside the total, never added. Every
 * refusal found is reported, not only the first.
 */
export function priceOfStay(plan: RatePlanForPricing, request: StayRequest): StayPrice {
  const dates = nightsOfStay(request.arrival, request.departure);
  if (!dates) return { admitted: false, reasons: [{ code: 'invalid_dates' }] };
  const partyProblems = partyRefusals(request.party, plan, request.capacity);
  if (partyProblems.some((r) => r.code === 'invalid_party')) return { admitted: false, reasons: partyProblems };
  const nightsByDate = new Map(request.nights.map((night) => [night.date, night]));
  const calendar = calendarRefusals(plan.id, dates, request.departure, nightsByDate);
  const reasons: Refusal[] = [...partyProblems, ...calendar.refusals];
  const nightly: Money[] = [];
  for (const { date, rate } of calendar.rates) {
    const priced = priceNight(rate, plan, request.party, date);
    if ('amount' in priced) nightly.push(priced);
    else reasons.push(...priced.refusals);
  }
  if (reasons.length > 0) return { admitted: false, reasons: unique(reasons) };

  const accommodation = exact(nightly.reduce((sum, night) => sum + night.amount, 0));
  const fees = applyFees(plan.currency, accommodation, request, dates.length);
  if ('refusals' in fees) return { admitted: false, reasons: fees.refusals };
  return {
    admitted: true,
    total: roundToMoney(exactSum([accommodation, ...fees.added.map((fee) => fee.exact)]), plan.currency),
    nightly,
    fees_added: fees.added.map(({ fee_type, per, exact: amount }) => ({
      fee_type,
      per,
      money: roundToMoney(amount, plan.currency),
    })),
    fees_exact: exactSum(fees.added.map((fee) => fee.exact)),
    shown_beside: fees.beside,
  };
}

function priceNight(
  rate: NightRate,
  plan: RatePlanForPricing,
  party: Party,
  date: string,
): Money | { refusals: Refusal[] } {
  const refusals: Refusal[] = [];
  const prices: Money[] = [];
  const occupancy = rate.prices_by_occupancy.find((entry) => entry.adults === party.adults);
  if (occupancy) prices.push(occupancy.price);
  else refusals.push({ code: 'party_exceeds_occupancy', adults: party.adults });
  for (const age of party.child_ages) {
    const price = plan.child_age_bands.length > 0 ? bandPrice(rate, plan, age) : rate.child_price;
    if (price) prices.push(price);
    else if (plan.child_age_bands.length === 0 || bandOf(plan.child_age_bands, age)) {
      refusals.push({ code: 'price_missing', date, of: 'child' });
    }
  }
  const infantPrice = rate.infant_price;
  if (party.infants > 0 && !infantPrice) refusals.push({ code: 'price_missing', date, of: 'infant' });
  if (infantPrice) for (let i = 0; i < party.infants; i += 1) prices.push(infantPrice);
  if (prices.some((price) => price.currency !== plan.currency)) refusals.push({ code: 'currency_mismatch', date });
  if (refusals.length > 0) return { refusals };
  return { amount: prices.reduce((sum, price) => sum + price.amount, 0), currency: plan.currency };
}

function bandPrice(rate: NightRate, plan: RatePlanForPricing, age: number): Money | undefined {
  const band = bandOf(plan.child_age_bands, age);
  if (!band) return undefined;
  return rate.child_prices.find((entry) => entry.age_from === band.age_from && entry.age_to === band.age_to)?.price;
}

type AppliedFees = { added: (Omit<AddedFee, 'money'> & { exact: ExactAmount })[]; beside: BesideItem[] };

/**
 * A percentage fee payable at booking is taken of the accommodation total (the sum of the nightly
 * prices), whatever its `percent_of` names: that total is the only base the channel knows. A
 * tourist tax is the exception: a percentage tax is never computed, only shown (Tourist tax, 3).
 */
function applyFees(
  currency: string,
  accommodation: ExactAmount,
  request: StayRequest,
  nights: number,
): AppliedFees | { refusals: Refusal[] } {
  const result: AppliedFees = { added: [], beside: [] };
  const refusals: Refusal[] = [];
  for (const fee of request.fees) {
    const charge = feeCharge(fee, request.party, nights);
    const amount = addedAmount(fee, charge, accommodation);
    if (amount && charge.kind === 'amount' && charge.currency !== currency) {
      refusals.push({ code: 'currency_mismatch', fee_type: fee.type });
    } else if (amount) {
      result.added.push({ fee_type: fee.type, per: chargedPer(fee), exact: amount });
    } else if (fee.type === 'city_tax' && !fee.included_in_price) {
      const notice = touristTaxNotice(request.city_tax_status, fee, request.party, nights);
      if (notice) result.beside.push(notice);
    } else {
      const { type: fee_type, payable_at, included_in_price } = fee;
      result.beside.push({ kind: 'fee', fee_type, payable_at, included_in_price, charge: shown(charge) });
    }
  }
  if (!request.fees.some((fee) => fee.type === 'city_tax')) {
    const notice = touristTaxNotice(request.city_tax_status, undefined, request.party, nights);
    if (notice) result.beside.push(notice);
  }
  return refusals.length > 0 ? { refusals } : result;
}

function addedAmount(fee: Fee, charge: FeeCharge, accommodation: ExactAmount): ExactAmount | null {
  if (fee.included_in_price || fee.payable_at !== 'booking') return null;
  if (charge.kind === 'amount') return charge.exact;
  if (charge.kind === 'percent' && fee.type !== 'city_tax') return exactBasisPoints(accommodation, charge.percent_bp);
  return null;
}

function shown(charge: FeeCharge): ShownCharge {
  return charge.kind === 'amount' ? { kind: 'amount', money: roundToMoney(charge.exact, charge.currency) } : charge;
}

function unique(refusals: Refusal[]): Refusal[] {
  const seen = new Set<string>();
  return refusals.filter((refusal) => {
    const key = JSON.stringify(refusal);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

export type StayOffer = { rate_plan_id: string; price: AdmittedStay };
export type StayOffers = { offers: StayOffer[]; refused: { rate_plan_id: string; reasons: Refusal[] }[] };

/**
 * Every plan whose rules admit the stay, cheapest first; plans at the same total keep the order
 * the property gives them. Totals in different currencies are not compared: offers are grouped by
 * currency code, cheapest first within each.
 */
export function offerStay(plans: readonly RatePlanForPricing[], request: StayRequest): StayOffers {
  const result: StayOffers = { offers: [], refused: [] };
  for (const plan of plans) {
    const price = priceOfStay(plan, request);
    if (price.admitted) result.offers.push({ rate_plan_id: plan.id, price });
    else result.refused.push({ rate_plan_id: plan.id, reasons: price.reasons });
  }
  result.offers.sort((a, b) => compareTotals(a.price.total, b.price.total));
  return result;
}

function compareTotals(a: Money, b: Money): number {
  if (a.currency !== b.currency) return a.currency < b.currency ? -1 : 1;
  return a.amount - b.amount;
}
