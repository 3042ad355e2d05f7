import { z } from 'zod';
import { confirmOwnerConnection, removeOwnerConnection } from '../../services/owner-connect/connection.ts';
import { defineOperation } from '../operations.ts';
import { Instant } from '../schemas/common.ts';

/**
 * The channel's side of owner connect (docs/contract.md#owner-connect, rules 3 to 6). Both take `read:catalog`: a channel that reads owners is the one that
 * connects them, and a key without it cannot see the owner ids in the path.
 */

const tags = ['Owner connect'];
const OwnerParams = z.object({
  owner_id: z.string().max(64).meta({ description: "An `own_` id of this channel (the token's `sub`)." }),
});

const ConfirmBody = z
  .object({
    token: z
      .string()
      .min(1)
      .max(4096)
      .meta({ description: "The owner-connect token the host's browser POSTed to the redirect URL, as received." }),
  })
  .strict()
  .meta({ id: 'OwnerConnectionConfirmation' });

const OwnerConnection = z
  .object({
    owner_id: z.string().meta({ description: 'The owner connected (`own_` id).' }),
    connected_at: Instant.meta({
      description:
        "When the connection was made: the first confirmation of the token. `connected_at` of the owner in this channel's view.",
    }),
    property_ids: z.array(z.string()).meta({
      description:
        "The token's `property_ids`: the owner's properties distributed to the channel when the host started.",
    }),
    token_id: z.string().meta({ description: "The token's `jti`: the token this connection was made with." }),
  })
  .meta({ id: 'OwnerConnection', description: "An owner's connection to an account on the channel." });

export const putOwnerConnection = defineOperation({
  operationId: 'putOwnerConnection',
  method: 'put',
  path: '/owners/{owner_id}/connection',
  summary: 'Confirm an owner-connect token',
  tags,
  scopes: ['read:catalog'],
  description:
    "Confirms the token after the signed-in host confirmed the link. Every check comes before any claim is trusted: header `alg` exactly ES256 and `typ` exactly `owner-connect+jwt` (anything else, `none` included, is refused before a key is looked up), `kid` one of the published keys, the signature, `iss` this deployment's origin, `aud` the calling channel, `sub` the owner in the path, `iat` at most 60 seconds ahead; any failure is `invalid_owner_connect_token`. " +
    "The token is accepted until 3600 seconds after `iat` (`owner_connect_token_expired` afterwards), only from the channel named in `aud`. The first confirmation connects the owner: its `connected_at` is set in this channel's view only and `owner.updated` is emitted with a higher `version`. Confirming the same token again answers the same connection and writes nothing. A token whose connection was removed or replaced by a later token, or that was confirmed and whose window closed, is `owner_connect_token_used`. An owner with no property distributed to the channel now is `owner_not_distributed`. A refusal writes nothing.",
  params: OwnerParams,
  body: ConfirmBody,
  responses: { 200: { description: 'The connection', schema: OwnerConnection } },
  problems: [
    'invalid_owner_connect_token',
    'not_found',
    'owner_connect_token_used',
    'owner_not_distributed',
    'owner_connect_token_expired',
  ],
  handler: async ({ params, body, caller, deps }) => ({
    body: await confirmOwnerConnection(
      deps,
      { channelId: caller.channel.id, channelName: caller.channel.name },
      params.owner_id,
      body.token,
    ),
  }),
});

export const deleteOwnerConnection = defineOperation({
  operationId: 'deleteOwnerConnection',
  method: 'delete',
  path: '/owners/{owner_id}/connection',
  summary: "Remove an owner's connection",
  tags,
  scopes: ['write:listings'],
  description:
    "Takes `write:listings`: unlike the confirmation, whose authority is the token the host started, a removal carries nothing from the host, so a key that may only read cannot undo hosts' connections. " +
    "Disconnects the owner on this channel: `connected_at` becomes `null` and `owner.updated` is emitted, only when a connection existed. The token that made it is never accepted again. 204 in every case, also when no connection exists and for an id the channel does not know, so the answer tells nothing about other channels' owners.",
  params: OwnerParams,
  responses: { 204: { description: 'Not connected (any more)' } },
  problems: [],
  handler: async ({ params, caller, deps }) => {
    await removeOwnerConnection(
      deps,
      { channelId: caller.channel.id, channelName: caller.channel.name },
      params.owner_id,
    );
    return { status: 204 };
  },
});

export const ownerConnectOperations = [putOwnerConnection, deleteOwnerConnection];
