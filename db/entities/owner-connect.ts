import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { OwnerSchema } from './catalogue.ts';
import { ChannelSchema } from './channel.ts';

/**
 * Every owner-connect token minted, by its `jti`, and what became of it: `waiting` until it is
 * confirmed (`confirmed`), its window closes unconfirmed (`expired`) or the connection it made is
 * removed or replaced (`revoked`). Its workflow holds the window; this record answers a
 * confirmation that arrives after the workflow closed, so the refusal is the same every time.
 */
export const OwnerConnectTokenSchema = defineEntity({
  name: 'OwnerConnectToken',
  tableName: 'owner_connect_token',
  properties: {
    /** 128 random bits, 32 lowercase hex digits. */
    jti: p.string().length(32).primary(),
    channel: () => p.manyToOne(ChannelSchema).index(),
    owner: () => p.manyToOne(OwnerSchema).index().deleteRule('cascade'),
    /** `sub`: the owner's `own_` id in the channel's view. */
    ownerExternalId: p.string().length(40),
    /** `property_ids` as signed, answered again with the connection. */
    propertyIds: p.json<string[]>(),
    issuedAt: p.datetime(),
    /** `iat` + 3600 s. */
    confirmUntil: p.datetime(),
    state: p.enum(['waiting', 'confirmed', 'expired', 'revoked'] as const),
    connectedAt: p.datetime().nullable(),
    /** `locale` as signed, if any: a token is answered again only in the language it was signed in. */
    locale: p.string().length(35).nullable(),
    /** The host session that asked for it (none for the platform's): a token is answered again only to it. */
    hostSessionId: p.uuid().nullable(),
  },
});

/** The owner's connection to an account on one channel: the channel's view of the owner shows `connected_at`. */
export const OwnerConnectionSchema = defineEntity({
  name: 'OwnerConnection',
  tableName: 'owner_connection',
  properties: {
    channel: () => p.manyToOne(ChannelSchema).primary(),
    owner: () => p.manyToOne(OwnerSchema).primary().deleteRule('cascade'),
    connectedAt: p.datetime(),
    /** The token whose confirmation made it. */
    jti: p.string().length(32),
  },
  primaryKeys: ['channel', 'owner'],
});

export type OwnerConnectToken = InferEntity<typeof OwnerConnectTokenSchema>;
export type OwnerConnectTokenState = OwnerConnectToken['state'];
