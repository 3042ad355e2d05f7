import { Migration } from '@mikro-orm/migrations';
import { pgArray } from '../sql.ts';

interface StoredRate extends Record<string, unknown> {
  price?: unknown;
  child_price?: unknown;
  infant_price?: unknown;
  min_stay?: number | null;
}

/**
 * Stored nights as channels read them answer no null where the contract types an integer or
 * money: a closed plan without a price loses `price`, `base_occupancy` and `extra_guest_price`,
 * an unset child or infant price is left out, a plan without its own minimum stay says 1, and a
 * night without a maximum stay says 365. Key order is kept, so the text equals what the
 * renderer (domain/availability/nights.ts) writes now. Written out here, not imported, so that
 * this migration means the same thing whatever the renderer becomes.
 */
export function typedNight(body: string): string {
  const night = JSON.parse(body) as { rates: StoredRate[]; max_stay?: number | null };
  for (const rate of night.rates) {
    if (rate.price === null) {
      delete rate.price;
      delete rate.base_occupancy;
      delete rate.extra_guest_price;
    }
    if (rate.child_price === null) delete rate.child_price;
    if (rate.infant_price === null) delete rate.infant_price;
    if (rate.min_stay === null || rate.min_stay === undefined) rate.min_stay = 1;
  }
  if (night.max_stay === null || night.max_stay === undefined) night.max_stay = 365;
  return JSON.stringify(night);
}

export class Migration20261122190900TypedNights extends Migration {
  override async up(): Promise<void> {
    const properties = await this.execute('select property_id from ari_property order by property_id');
    for (const { property_id: propertyId } of properties as { property_id: string }[]) {
      const rows = (await this.execute(
        `select to_char(night, 'YYYY-MM-DD') as night, body from ari_night where property_id = ?`,
        [propertyId],
      )) as { night: string; body: string }[];
      const changed = rows
        .map((row) => ({ night: row.night, body: typedNight(row.body) }))
        .filter((row, i) => row.body !== rows[i]!.body);
      if (changed.length === 0) continue;
      await this.execute(
        `update ari_night n set body = t.body from unnest(?::date[], ?::text[]) as t(night, body) where n.property_id = ? and n.night = t.night`,
        [pgArray(changed.map((row) => row.night)), pgArray(changed.map((row) => row.body)), propertyId],
      );
    }
  }
}
