import type { EntityManager } from '@mikro-orm/postgresql';
import type { VatRate } from '../domain/pricing/vat.ts';
import { pgArray } from './sql.ts';

/** A property of the channel's view with what a quote reads beside its nights. */
export interface QuoteSubject {
  internalId: string;
  status: string;
  /** The channel's projection of the property (rate plans under the channel's ids, fees, capacity). */
  body: Record<string, unknown>;
  country: string | null;
  timezone: string;
  /** The first night past the horizon (`YYYY-MM-DD`). */
  horizonEnd: string;
}

/** Null when the channel does not see the property or it has no availability. */
export async function quoteSubject(
  em: EntityManager,
  channelId: string,
  externalId: string,
): Promise<QuoteSubject | null> {
  const [row] = await em.execute<
    (Omit<QuoteSubject, 'internalId' | 'horizonEnd'> & { internal_id: string; horizon_end: string })[]
  >(
    `select cr.internal_id, cr.status, cr.body, l.content->'address'->>'country' as country, a.timezone, to_char(a.horizon_end, 'YYYY-MM-DD') as horizon_end
       from channel_resource cr
       join ari_property a on a.property_id = cr.internal_id
       join property p on p.id = cr.internal_id
       join location l on l.id = p.location_id
      where cr.channel_id = ? and cr.kind = 'property' and cr.external_id = ?`,
    [channelId, externalId],
  );
  if (!row) return null;
  return {
    internalId: row.internal_id,
    status: row.status,
    body: row.body,
    country: row.country,
    timezone: row.timezone,
    horizonEnd: row.horizon_end,
  };
}

/**
 * The stored nights from `from` through `through` (inclusive: a stay reads its departure date's
 * night for closed to departure), with rate plans named by placeholders, and the channel's ids of
 * the property's rate plans by key.
 */
export async function nightsForQuote(
  em: EntityManager,
  channelId: string,
  propertyId: string,
  from: string,
  through: string,
): Promise<{ bodies: string[]; planIds: Map<string, string> }> {
  const bodies = await em.execute<{ body: string }[]>(
    'select body from ari_night where property_id = ? and night >= ?::date and night <= ?::date order by night',
    [propertyId, from, through],
  );
  const plans = await em.execute<{ internal_key: string; external_id: string }[]>(
    `select internal_key, external_id from channel_id
      where channel_id = ? and kind = 'rate_plan' and internal_key > ? || '/' and internal_key < ? || '0'`,
    [channelId, propertyId, propertyId],
  );
  return {
    bodies: bodies.map((row) => row.body),
    planIds: new Map(plans.map((row) => [row.internal_key.slice(propertyId.length + 1), row.external_id])),
  };
}

/** A country's accommodation VAT schedule, oldest first. */
export async function vatSchedule(em: EntityManager, country: string): Promise<VatRate[]> {
  return em.execute<VatRate[]>(
    `select to_char(valid_from, 'YYYY-MM-DD') as "from", rate_bp from vat_rate where country = ? and applies_to = 'accommodation' order by valid_from`,
    [country],
  );
}

/** Replaces a country's schedule whole, in the caller's transaction. */
export async function replaceVatSchedule(
  tx: EntityManager,
  country: string,
  rates: readonly (VatRate & { applies_to: string })[],
): Promise<void> {
  await tx.execute('delete from vat_rate where country = ?', [country]);
  if (rates.length === 0) return;
  await tx.execute(
    `insert into vat_rate (country, applies_to, valid_from, rate_bp)
     select ?, a, f::date, r from unnest(?::text[], ?::text[], ?::int[]) as t(a, f, r)`,
    [
      country,
      pgArray(rates.map((r) => r.applies_to)),
      pgArray(rates.map((r) => r.from)),
      `{${rates.map((r) => r.rate_bp).join(',')}}`,
    ],
  );
}
