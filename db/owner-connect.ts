import type { EntityManager } from '@mikro-orm/postgresql';
import type { OwnerConnectTokenState } from './entities/index.ts';

/** Owner connect: the tokens minted and their outcome, and each owner's connection per channel. */

export interface OwnerSource {
  id: string;
  organizationRef: string;
}

export async function ownerByRef(em: EntityManager, ref: string): Promise<OwnerSource | null> {
  const [row] = await em.execute<{ id: string; organization_ref: string }[]>(
    'select o.id, g.ref as organization_ref from owner o join organization g on g.id = o.organization_id where o.ref = ?',
    [ref],
  );
  return row ? { id: row.id, organizationRef: row.organization_ref } : null;
}

/** The channel's view of an owner: its `own_` id and status, or null when the channel never saw it. */
export async function ownerView(
  em: EntityManager,
  channelId: string,
  ownerId: string,
): Promise<{ externalId: string; status: string } | null> {
  const [row] = await em.execute<{ external_id: string; status: string }[]>(
    `select external_id, status from channel_resource where channel_id = ? and kind = 'owner' and internal_id = ?`,
    [channelId, ownerId],
  );
  return row ? { externalId: row.external_id, status: row.status } : null;
}

/** The owner the channel knows by this `own_` id, with its status in the channel's view. */
export async function ownerOfExternalId(
  em: EntityManager,
  channelId: string,
  externalId: string,
): Promise<{ ownerId: string; status: string } | null> {
  const [row] = await em.execute<{ internal_id: string; status: string }[]>(
    `select internal_id, status from channel_resource where channel_id = ? and kind = 'owner' and external_id = ?`,
    [channelId, externalId],
  );
  return row ? { ownerId: row.internal_id, status: row.status } : null;
}

/** The `prp_` ids of the owner's properties the channel sees now (active or inactive), in id order. */
export async function visiblePropertyIds(em: EntityManager, channelId: string, ownerId: string): Promise<string[]> {
  const rows = await em.execute<{ external_id: string }[]>(
    `select external_id from channel_resource
      where channel_id = ? and kind = 'property' and owner_id = ? and status in ('active', 'inactive')
      order by external_id`,
    [channelId, ownerId],
  );
  return rows.map((row) => row.external_id);
}

export interface TokenRecord {
  jti: string;
  channelId: string;
  ownerId: string;
  ownerExternalId: string;
  propertyIds: string[];
  issuedAt: Date;
  confirmUntil: Date;
  state: OwnerConnectTokenState;
  connectedAt: Date | null;
}

interface TokenRow {
  jti: string;
  channel_id: string;
  owner_id: string;
  owner_external_id: string;
  property_ids: string[];
  issued_at: Date;
  confirm_until: Date;
  state: OwnerConnectTokenState;
  connected_at: Date | null;
}

const toRecord = (row: TokenRow): TokenRecord => ({
  jti: row.jti,
  channelId: row.channel_id,
  ownerId: row.owner_id,
  ownerExternalId: row.owner_external_id,
  propertyIds: row.property_ids,
  issuedAt: new Date(row.issued_at),
  confirmUntil: new Date(row.confirm_until),
  state: row.state,
  connectedAt: row.connected_at === null ? null : new Date(row.connected_at),
});

/** Who asked for a token and in which language: what answering it again must match. */
export interface TokenRequester {
  locale: string | null;
  hostSessionId: string | null;
}

export async function insertToken(
  em: EntityManager,
  record: Omit<TokenRecord, 'state' | 'connectedAt'> & TokenRequester,
): Promise<void> {
  await em.execute(
    `insert into owner_connect_token (jti, channel_id, owner_id, owner_external_id, property_ids, issued_at, confirm_until, state, connected_at, locale, host_session_id)
     values (?, ?, ?, ?, ?::jsonb, ?, ?, 'waiting', null, ?, ?)`,
    [
      record.jti,
      record.channelId,
      record.ownerId,
      record.ownerExternalId,
      JSON.stringify(record.propertyIds),
      record.issuedAt,
      record.confirmUntil,
      record.locale,
      record.hostSessionId,
    ],
  );
}

/**
 * The newest token the same host session asked for the same owner on the same channel, in the
 * same language and for the same properties, issued after `since` and still `waiting` (never
 * confirmed); null when there is none.
 */
export async function findReusableToken(
  em: EntityManager,
  key: {
    channelId: string;
    ownerId: string;
    propertyIds: string[];
    hostSessionId: string;
    locale: string | null;
    since: Date;
  },
): Promise<TokenRecord | null> {
  const [row] = await em.execute<TokenRow[]>(
    `select * from owner_connect_token
      where owner_id = ? and channel_id = ? and host_session_id = ? and locale is not distinct from ? and property_ids = ?::jsonb
        and state = 'waiting' and issued_at > ?
      order by issued_at desc limit 1`,
    [key.ownerId, key.channelId, key.hostSessionId, key.locale, JSON.stringify(key.propertyIds), key.since],
  );
  return row ? toRecord(row) : null;
}

export async function findToken(
  em: EntityManager,
  jti: string,
  options: { lock?: boolean } = {},
): Promise<TokenRecord | null> {
  const [row] = await em.execute<TokenRow[]>(
    `select * from owner_connect_token where jti = ?${options.lock ? ' for update' : ''}`,
    [jti],
  );
  return row ? toRecord(row) : null;
}

export async function setTokenState(
  em: EntityManager,
  jti: string,
  state: OwnerConnectTokenState,
  connectedAt?: Date,
): Promise<void> {
  await em.execute('update owner_connect_token set state = ?, connected_at = coalesce(?, connected_at) where jti = ?', [
    state,
    connectedAt ?? null,
    jti,
  ]);
}

/** A window that closed unconfirmed: `waiting` becomes `expired`; any other state stays. */
export async function expireToken(em: EntityManager, jti: string): Promise<void> {
  await em.execute(`update owner_connect_token set state = 'expired' where jti = ? and state = 'waiting'`, [jti]);
}

/** The owner's connection on the channel, locked for the transaction's write. */
export async function lockConnection(
  em: EntityManager,
  channelId: string,
  ownerId: string,
): Promise<{ jti: string; connectedAt: Date } | null> {
  const [row] = await em.execute<{ jti: string; connected_at: Date }[]>(
    'select jti, connected_at from owner_connection where channel_id = ? and owner_id = ? for update',
    [channelId, ownerId],
  );
  return row ? { jti: row.jti, connectedAt: new Date(row.connected_at) } : null;
}

export async function putConnection(
  em: EntityManager,
  channelId: string,
  ownerId: string,
  jti: string,
  connectedAt: Date,
): Promise<void> {
  await em.execute(
    `insert into owner_connection (channel_id, owner_id, connected_at, jti) values (?, ?, ?, ?)
     on conflict (channel_id, owner_id) do update set connected_at = excluded.connected_at, jti = excluded.jti`,
    [channelId, ownerId, connectedAt, jti],
  );
}

export async function deleteConnection(em: EntityManager, channelId: string, ownerId: string): Promise<void> {
  await em.execute('delete from owner_connection where channel_id = ? and owner_id = ?', [channelId, ownerId]);
}

/**
 * Ends an unconfirmed token's confirmation window at `at` (the sandbox's expire-now): the token is
 * expired and its window ends then. Answers the token's record after it (null: no such token).
 */
export async function endTokenWindow(em: EntityManager, jti: string, at: Date): Promise<TokenRecord | null> {
  await em.execute(
    `update owner_connect_token set state = 'expired', confirm_until = least(confirm_until, ?)
      where jti = ? and state = 'waiting'`,
    [at, jti],
  );
  return findToken(em, jti);
}
