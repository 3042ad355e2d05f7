import { feeCharge, type Fee, type Party } from './fee.ts';
import { roundToMoney, type Money } from './money.ts';

export type CityTaxStatus = 'levied' | 'none' | 'undeclared';

/** The status is an open enum; a value this version does not know is read as `undeclared`. */
export function readCityTaxStatus(value: unknown): CityTaxStatus {
  return value === 'levied' || value === 'none' ? value : 'undeclared';
}

/**
 * What the tourist tax comes to for one party and stay:
 * - `amount`: a fixed rate, times taxable guests (adults and children, or adults only when the
 *   fee exempts children; never infants) times nights capped at `max_nights`, rounded once. It is
 *   the most the property charges; exemptions it applies on the spot only lower it.
 * - `percent_at_property`: a percentage of the price named by `percent_of`; neither the service
 *   nor the channel computes it.
 * - `unknown_local_tax`: the tax exists but its amount is not known. Shown as a local tax payable
 *   at the property, never as zero.
 */
export type TouristTax =
  | { kind: 'amount'; money: Money }
  | { kind: 'percent_at_property'; percent_bp: number; percent_of: string | null }
  | { kind: 'unknown_local_tax' };

export function touristTax(fee: Fee, party: Party, nights: number): TouristTax {
  const charge = feeCharge(fee, party, nights);
  switch (charge.kind) {
    case 'amount':
      return { kind: 'amount', money: roundToMoney(charge.exact, charge.currency) };
    case 'percent':
      return { kind: 'percent_at_property', percent_bp: charge.percent_bp, percent_of: charge.percent_of };
    default:
      return { kind: 'unknown_local_tax' };
  }
}

/** What is shown beside a total about the tourist tax: the tax itself, or that one may apply. */
export type TouristTaxNotice = { kind: 'tourist_tax'; tax: TouristTax } | { kind: 'tourist_tax_may_apply' };

/**
 * `levied` shows the tax; `none` shows nothing; `undeclared` (or an unknown status) says a tax
 * may apply. A `city_tax` fee that is present is shown whatever the status says, since hiding a
 * tax the property has described is worse than an inconsistent status; a `levied` status without
 * the fee is shown as an unknown local tax.
 */
export function touristTaxNotice(
  status: unknown,
  cityTax: Fee | undefined,
  party: Party,
  nights: number,
): TouristTaxNotice | null {
  if (cityTax) return { kind: 'tourist_tax', tax: touristTax(cityTax, party, nights) };
  switch (readCityTaxStatus(status)) {
    case 'levied':
      return { kind: 'tourist_tax', tax: { kind: 'unknown_local_tax' } };
    case 'none':
      return null;
    case 'undeclared':
      return { kind: 'tourist_tax_may_apply' };
  }
}
