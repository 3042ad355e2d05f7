import type { EntityManager } from '@mikro-orm/postgresql';
import {
  datesIn,
  defaultNight,
  renderNight,
  storedNightText,
  type NightState,
  type PlanShape,
} from '../domain/availability/nights.ts';
import { conformNight } from '../domain/availability/conform.ts';
import type { PropertyInput } from '../domain/catalogue/source.ts';
import { pgArray } from './sql.ts';

/**
 * How a property's nights are written: one statement per property, whatever the number of
 * nights, and as few bytes as the stored texts take. A statement's values travel inside its text
 * (MikroORM formats them in), so every byte of a value is escaped in this process and parsed again
 * by PostgreSQL; a year of nights is some 400 KB.
 */

/**
 * A night as stored for the property as it is now: its prices brought in line with the current
 * capacity and age bands first (`conformNight`), so a night priced for an older shape is never served.
 */
export function renderFor(night: NightState, content: PropertyInput, plans: readonly PlanShape[]): string {
  return storedNightText(renderNight(conformNight(night, { maxAdults: content.capacity.max_adults, plans }), plans));
}

/**
 * Between the stored texts of one statement: a newline, which no stored night holds (its text is
 * `JSON.stringify`'s, which escapes a newline inside a string), so the texts travel as one value
 * with nothing escaped but their placeholders' backslashes, and PostgreSQL splits it again.
 */
const BETWEEN_NIGHTS = '\n';

/** Writes (inserts or replaces) the property's nights, each date with its stored text. */
export async function writeNights(tx: EntityManager, propertyId: string, nights: Map<string, string>): Promise<void> {
  if (nights.size === 0) return;
  const texts = [...nights.values()];
  if (texts.some((text) => text.includes(BETWEEN_NIGHTS)))
    throw new Error('a stored night holds a newline, which separates the nights written together');
  await tx.execute(
    `insert into ari_night (property_id, night, body)
     select ?, d, b from unnest(?::date[], string_to_array(?, chr(10))) as t(d, b)
     on conflict (property_id, night) do update set body = excluded.body`,
    [propertyId, pgArray([...nights.keys()]), texts.join(BETWEEN_NIGHTS)],
  );
}

/** A rendered night opens with its date: `{"date":"YYYY-MM-DD",…` (`renderNight`). */
const DATE_OPENING = '{"date":"';
const DATE_LENGTH = 'YYYY-MM-DD'.length;

/**
 * Writes the property's nights from `from` to before `to` at their defaults (`defaultNight`: all
 * units free, no restriction, each plan at its `default_rates` or closed). Those nights differ
 * only by their date, so one is rendered and PostgreSQL writes each date into its text: the same
 * texts as rendering each night, for the bytes of one.
 */
export async function writeDefaultNights(
  tx: EntityManager,
  propertyId: string,
  content: PropertyInput,
  plans: readonly PlanShape[],
  from: string,
  to: string,
): Promise<void> {
  const dates = [...datesIn(from, to)];
  if (dates.length === 0) return;
  const text = renderFor(defaultNight(from, content.units, plans), content, plans);
  if (!text.startsWith(`${DATE_OPENING}${from}"`)) throw new Error('a rendered night opens with its date');
  await tx.execute(
    `insert into ari_night (property_id, night, body)
     select ?, d, ? || to_char(d, 'YYYY-MM-DD') || ? from unnest(?::date[]) as t(d)
     on conflict (property_id, night) do update set body = excluded.body`,
    [propertyId, DATE_OPENING, text.slice(DATE_OPENING.length + DATE_LENGTH), pgArray(dates)],
  );
}
