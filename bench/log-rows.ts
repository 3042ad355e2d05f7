/**
 * SQL expressions for rows of the event log and of webhook deliveries as the service writes them,
 * for loads far larger than one can write through the service: `bench:scale` builds its histories
 * with them, and test/support/event-log-seed.ts its logs. Each expression is built from the
 * service's own shapes (the JSON of an event's data as the projector and the availability writer
 * give it, a delivery's body from `webhookBody`), so a change there changes the loaded rows too.
 *
 * Ids are the service's (`evt_`, `dlv_` and a lowercase ULID): the time part encodes the instant
 * given, the random part is 16 hex digits of a digest (a subset of lowercase Crockford base32),
 * so the same seed gives the same id again.
 */
import { ID_PREFIXES, type IdKind } from '../domain/catalogue/ids.ts';
import { webhookBody } from '../domain/webhooks/sending.ts';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
/** The 10 characters of a ULID's time part, 5 bits each, most significant first. */
const TIME_CHARACTERS = 10;

/** A SQL string literal. */
export const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * A ULID body (26 characters) in SQL: the time part from `msExpr` (epoch milliseconds, bigint),
 * then `randomExpr`, which must give 16 characters of lowercase Crockford base32 (hex digits do).
 */
export function ulidSql(msExpr: string, randomExpr: string): string {
  const characters = Array.from(
    { length: TIME_CHARACTERS },
    (_, k) => `substr('${CROCKFORD}', (((${msExpr})::bigint >> ${5 * (TIME_CHARACTERS - 1 - k)}) & 31)::int + 1, 1)`,
  );
  return `(${characters.join(' || ')} || (${randomExpr}))`;
}

/** An external id of `kind` in SQL, minted at `msExpr` with a random part digested from `seedExpr`. */
export function externalIdSql(kind: IdKind, msExpr: string, seedExpr: string): string {
  return `('${ID_PREFIXES[kind]}' || ${ulidSql(msExpr, `substr(md5(${seedExpr}), 1, 16)`)})`;
}

/** A value of a JSON text template: SQL giving text placed inside the quotes of a string, or a number's digits. */
type Slot = { sql: string; as: 'string' | 'number' };
export const textSlot = (sql: string): Slot => ({ sql, as: 'string' });
export const numberSlot = (sql: string): Slot => ({ sql, as: 'number' });

type Template = string | number | boolean | null | Slot | Template[] | { [key: string]: Template };

const isSlot = (value: unknown): value is Slot =>
  typeof value === 'object' && value !== null && 'sql' in value && 'as' in value;

/**
 * SQL giving the text `JSON.stringify` gives of `template`, each slot's SQL in its place. The
 * strings slots give are placed as they are: ids, dates and stamps, which JSON needs not escape.
 */
export function jsonSql(template: Template): string {
  const slots: Slot[] = [];
  const marker = (i: number) => `@@slot${i}@@`;
  const text = JSON.stringify(template, (_key, value: unknown) => {
    if (!isSlot(value)) return value;
    slots.push(value);
    return marker(slots.length - 1);
  });
  let sql = literal(text);
  slots.forEach((slot, i) => {
    const placed = slot.as === 'number' ? `"${marker(i)}"` : marker(i);
    const expression = slot.as === 'number' ? `(${slot.sql})::text` : `(${slot.sql})`;
    sql = sql.replace(placed, () => `' || ${expression} || '`);
  });
  return sql;
}

/** Epoch milliseconds in SQL (a bigint expression) as a timestamptz, exactly. */
export const stampSql = (msExpr: string) =>
  `(timestamptz '1970-01-01 00:00:00+00' + (${msExpr}) * interval '1 millisecond')`;

/** An instant in SQL as the contract writes it (`toInstant`: whole seconds, `Z`). */
export const instantSql = (stampExpr: string) =>
  `to_char((${stampExpr}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

/** A catalogue event's data: the record and its new version, the event's position (the projector's). */
export const catalogueDataSql = (object: string, idExpr: string, positionExpr: string) =>
  jsonSql({ object, id: textSlot(idExpr), version: numberSlot(positionExpr) });

/** An `availability.updated` event's data: the property and the nights `[from, to)` that changed. */
export const availabilityDataSql = (idExpr: string, fromExpr: string, toExpr: string) =>
  jsonSql({ object: 'property', id: textSlot(idExpr), from: textSlot(fromExpr), to: textSlot(toExpr) });

/** A date in SQL, `YYYY-MM-DD`. */
export const dateSql = (dateExpr: string) => `to_char(${dateExpr}, 'YYYY-MM-DD')`;

/**
 * A delivery's body in SQL: `webhookBody` of the event, its data the event's stored JSON text
 * (`dataExpr`). The channel's name is bound in the text.
 */
export function webhookBodySql(
  event: { idExpr: string; typeExpr: string; stampExpr: string; dataExpr: string },
  channel: string,
): string {
  const DATA = '@@data@@';
  const text = webhookBody({ id: '@@id@@', type: '@@type@@', occurredAt: new Date(0), channel, data: { [DATA]: 0 } });
  const withData = text.replace(`{"${DATA}":0}`, DATA).replace(/"1970-01-01T00:00:00Z"/, '"@@at@@"');
  return literal(withData)
    .replace('@@id@@', () => `' || (${event.idExpr}) || '`)
    .replace('@@type@@', () => `' || (${event.typeExpr}) || '`)
    .replace('@@at@@', () => `' || ${instantSql(event.stampExpr)} || '`)
    .replace(DATA, () => `' || (${event.dataExpr})::text || '`);
}
