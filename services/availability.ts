import { applyAvailabilityUpdates, lockPropertiesByRef, type UpdateOutcome } from '../db/availability.ts';
import type { AvailabilityUpdate } from '../domain/availability/nights.ts';
import { unknownReference } from '../domain/catalogue/source-rules.ts';
import type { ParameterError } from '../domain/problems.ts';
import { invalidParameters } from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';
import { writeAndNotify } from './durable-processes.ts';

/**
 * Platform updates of nights and prices, applied together in one transaction: every property and
 * rate plan they name must exist, else nothing is written. Each property's changed nights are
 * announced to every channel that sees it.
 */
export function postAvailability(deps: Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'clock'>, batch: { updates: readonly AvailabilityUpdate[] }): Promise<{ results: UpdateOutcome[] }> {
  return writeAndNotify(deps, async (tx) => {
    const rows = await lockPropertiesByRef(tx, [...new Set(batch.updates.map((u) => u.property))].sort());
    const byRef = new Map(rows.map((row) => [row.ref, row]));
    const errors: ParameterError[] = batch.updates.flatMap((update, i) => {
      const property = byRef.get(update.property);
      if (!property) return [unknownReference(`/updates/${i}/property`, 'property', update.property)];
      const keys = new Set(property.content.rate_plans.map((plan) => plan.key));
      return (update.rates ?? []).flatMap((rate, j) => (keys.has(rate.rate_plan) ? [] : [{ detail: `the property has no rate plan "${rate.rate_plan}"`, code: 'unknown_reference', pointer: `/updates/${i}/rates/${j}/rate_plan` }]));
    });
    if (errors.length > 0) throw invalidParameters(errors);
    const results = [];
    for (const row of rows) {
      const updates = batch.updates.filter((u) => u.property === row.ref);
      results.push(await applyAvailabilityUpdates(tx, { propertyId: row.id, ref: row.ref, content: row.content, timezone: row.timezone }, updates, deps.clock));
    }
    return { results };
  });
}
