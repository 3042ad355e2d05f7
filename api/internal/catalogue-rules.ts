import { DistributionInput, LocationInput, OwnerInput, PropertyInput, Ref } from '../../domain/catalogue/source.ts';
import { AvailabilityBatch, AvailabilityUpdate, RatePatch } from '../../domain/availability/nights.ts';
import * as availability from '../../services/availability.ts';
import * as rules from '../../services/catalogue-rules.ts';
import type { LaterRulesContext } from '../operations.ts';
import { memberOf, tooLong, wellFormedFields, wellFormedItems } from '../validation.ts';

/**
 * The rules of the platform's catalogue writes that the services check against the stored records
 * (references, organizations, a location's country, a property's texts), for a write whose shape
 * was refused: over what of it is well formed, so that the one refusal names them too.
 */

/** The path's `ref` when it is well formed. */
const refOf = (params: unknown) => {
  const parsed = Ref.safeParse(memberOf(params, 'ref'));
  return parsed.success ? parsed.data : undefined;
};

export const catalogueRules = {
  availability: ({ body, deps }: LaterRulesContext) => {
    const updates = memberOf(body, 'updates');
    if (tooLong(AvailabilityBatch.shape.updates, updates) || !Array.isArray(updates)) return Promise.resolve([]);
    return availability.availabilityRuleErrors(
      deps,
      updates.flatMap((update: unknown, index) => {
        const property = AvailabilityUpdate.shape.property.safeParse(memberOf(update, 'property'));
        if (!property.success) return [];
        const rates = memberOf(update, 'rates');
        const wellFormed = tooLong(AvailabilityUpdate.shape.rates, rates) ? [] : wellFormedItems(RatePatch, rates);
        return [
          { index, property: property.data, rates: wellFormed.map(({ index: j, item }) => ({ index: j, rate: item })) },
        ];
      }),
    );
  },
  owner: ({ params, body, deps }: LaterRulesContext) =>
    rules.ownerRuleErrors(deps, refOf(params), wellFormedFields(OwnerInput, body)),
  location: ({ params, body, deps }: LaterRulesContext) =>
    rules.locationRuleErrors(deps, refOf(params), {
      ...wellFormedFields(LocationInput, body),
      country: wellFormedFields(LocationInput.shape.address, memberOf(body, 'address')).country,
    }),
  property: ({ body, deps }: LaterRulesContext) =>
    rules.propertyRuleErrors(deps, wellFormedFields(PropertyInput, body)),
  distribution: ({ body, deps }: LaterRulesContext) => {
    const channels = memberOf(body, 'channels');
    if (tooLong(DistributionInput.shape.channels, channels)) return Promise.resolve([]);
    return rules.distributionRuleErrors(
      deps,
      wellFormedItems(DistributionInput.shape.channels.element, channels).map(({ index, item }) => ({
        index,
        name: item,
      })),
    );
  },
};
