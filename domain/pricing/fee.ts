import { exact, exactTimes, type ExactAmount, type Money } from './money.ts';

/**
 * A fee as the Property record carries it. Enums are open, so the string fields accept values
 * this version does not know; such a fee is never priced, only shown.
 *
 * `amount.amount` is normally whole minor units; a rate finer than that (a tourist tax of 1.5
 * minor units per guest-night) is accepted and the result is rounded once by the caller.
 */
export type Fee = {
  type: string;
  basis: string | null;
  amount: Money | null;
  percent_bp: number | null;
  percent_of: string | null;
  per: string;
  included_in_price: boolean;
  payable_at: string;
  max_nights: number | null;
  exempts_children: boolean | null;
};

/** `child_ages` holds one age per child; infants are counted, never aged. */
export type Party = { adults: number; child_ages: readonly number[]; infants: number };

export type FeeCharge =
  | { kind: 'amount'; exact: ExactAmount; currency: string }
  | { kind: 'percent'; percent_bp: number; percent_of: string | null }
  | { kind: 'unknown' };

/**
 * Guests a per-guest fee counts: adults and children, adults only when `exempts_children` is
 * true. Infants are never counted, for any fee: they are priced apart (`infant_price`) and the
 * tourist-tax rule exempts them. A null `exempts_children` counts children: the figure is then the
 * most the property charges, which further exemptions can only lower.
 */
export function chargedGuests(fee: Pick<Fee, 'exempts_children'>, party: Party): number {
  return party.adults + (fee.exempts_children === true ? 0 : party.child_ages.length);
}

/** Nights capped at `max_nights`. A cap below 1 is ignored: it would declare the fee away. */
export function chargedNights(fee: Pick<Fee, 'max_nights'>, nights: number): number {
  const cap = fee.max_nights;
  return cap !== null && cap >= 1 ? Math.min(nights, cap) : nights;
}

/**
 * What a fee comes to for one party and stay, before rounding. `per` decides the multiplier of a
 * fixed amount; a percentage is left to the caller, which knows its base.
 */
export function feeCharge(fee: Fee, party: Party, nights: number): FeeCharge {
  if (fee.basis === 'percent') {
    return validNumber(fee.percent_bp)
      ? { kind: 'percent', percent_bp: fee.percent_bp, percent_of: fee.percent_of }
      : { kind: 'unknown' };
  }
  if (fee.basis !== 'fixed' || fee.amount === null || !validNumber(fee.amount.amount)) return { kind: 'unknown' };
  const units = unitsCharged(fee, party, nights);
  if (units === null) return { kind: 'unknown' };
  return { kind: 'amount', exact: exactTimes(exact(fee.amount.amount), units), currency: fee.amount.currency };
}

/**
 * How often a fee is charged. In v1 a cleaning fee is charged once per stay
 * (docs/contract.md#the-price-of-a-stay, rule 2): writes refuse any other `per` for it, and a
 * record written before that rule still holding `night` or `guest_night` is charged, and shown,
 * once per stay all the same.
 */
export function chargedPer<Per extends string>(fee: { type: string; per: Per }): Per | 'stay' {
  return fee.type === 'cleaning' ? 'stay' : fee.per;
}

function unitsCharged(fee: Fee, party: Party, nights: number): number | null {
  switch (chargedPer(fee)) {
    case 'stay':
      return 1;
    case 'night':
      return chargedNights(fee, nights);
    case 'guest_night':
      return chargedGuests(fee, party) * chargedNights(fee, nights);
    default:
      return null;
  }
}

function validNumber(value: number | null): value is number {
  return value !== null && Number.isFinite(value) && value >= 0;
}
