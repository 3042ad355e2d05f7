import type { z } from 'zod';
import { AMENITIES } from '../catalogue/amenities.ts';
import type { LocationInput, OwnerInput } from '../catalogue/source.ts';
import type { SandboxCatalogue } from './catalogue-generator.ts';
import type { PropertyBody } from './property-parts.ts';

type LocationBody = z.input<typeof LocationInput>;
type OwnerBody = z.input<typeof OwnerInput>;

function tally(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of [...values].sort()) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** What a generated catalogue holds, as the operator's summary says it: records, countries, cases. */
export function catalogueFigures(catalogue: SandboxCatalogue) {
  const bodies = <T>(operationId: string) =>
    catalogue.writes.filter((w) => w.operationId === operationId).map((w) => [w.ref, w.body as T] as const);
  const locations = new Map(bodies<LocationBody>('putLocation'));
  const owners = bodies<OwnerBody>('putOwner').map(([, o]) => o);
  const properties = bodies<PropertyBody>('putProperty').map(([, p]) => p);
  const locationOf = (p: PropertyBody) => locations.get(p.location)!;
  const taxes = properties.flatMap((p) => (p.fees ?? []).filter((f) => f.type === 'city_tax'));
  const plans = properties.flatMap((p) => p.rate_plans);
  const updates = catalogue.availability;
  return {
    records: {
      organizations: bodies('putOrganization').length,
      owners: owners.length,
      locations: locations.size,
      properties: properties.length,
      availability_updates: updates.length,
    },
    properties_per_country: tally(properties.map((p) => locationOf(p).address.country)),
    properties_per_zone: tally(properties.map((p) => locationOf(p).timezone)),
    cases: {
      owner_types: tally(owners.map((o) => o.type)),
      address_visibility: tally(
        [...locations.values()].map((l) =>
          l.address_visibility === undefined
            ? 'owner_default'
            : l.address_visibility === 'exact'
              ? 'exact'
              : `approximate_${l.precision_m}`,
        ),
      ),
      locations_with_several_room_types: Object.values(tally(properties.map((p) => p.location))).filter((n) => n > 1)
        .length,
      city_tax_status: tally(properties.map((p) => p.city_tax_status)),
      city_tax_basis: tally(taxes.map((f) => String(f.basis))),
      city_tax_unknown_amount: taxes.filter((f) => (f.amount ?? null) === null && (f.percent_bp ?? null) === null)
        .length,
      fees_per: tally(properties.flatMap((p) => (p.fees ?? []).map((f) => f.per))),
      ro_certificates: properties.filter((p) => p.legal?.classification).length,
      it_cin: properties.filter((p) => p.legal?.identifiers?.some((id) => id.scheme === 'it.cin')).length,
      plans_with_child_age_bands: plans.filter((plan) => (plan.child_age_bands ?? []).length > 0).length,
      plans_without_child_age_bands: plans.filter((plan) => (plan.child_age_bands ?? []).length === 0).length,
      with_every_amenity: properties.filter((p) => (p.amenities ?? []).length === AMENITIES.length).length,
      photos: properties.reduce((sum, p) => sum + (p.photos ?? []).length, 0),
      closed_night_updates: updates.filter((u) => u.units_available === 0 || u.rates?.some((r) => r.closed)).length,
      stay_limit_updates: updates.filter((u) => u.min_stay !== undefined || u.max_stay !== undefined).length,
      closed_to_arrival_updates: updates.filter((u) => u.closed_to_arrival === true).length,
      closed_to_departure_updates: updates.filter((u) => u.closed_to_departure === true).length,
      inactive: properties.filter((p) => p.status === 'inactive').length,
    },
  };
}
