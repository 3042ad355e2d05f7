import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { LOCALE_PATTERN } from '../../domain/owner-connect.ts';
import { Ref } from '../../domain/catalogue/source.ts';
import { startOwnerConnect } from '../../services/owner-connect/hand-off.ts';
import { defineOperation } from '../operations.ts';
import { HandOffParts } from './records.ts';
import { handOffPagePolicy, renderHandOffPage } from '../owner-connect/hand-off-page.ts';

const Body = z
  .object({
    channel: z.string().min(1).max(64),
    locale: z.string().max(35).regex(LOCALE_PATTERN).optional(),
  })
  .strict();

/**
 * The platform hands a host over to a channel to connect an owner: mints the owner-connect token
 * and answers the page whose form POSTs it to the channel's redirect URL, or with
 * `Accept: application/json` the parts `{redirect_url, token, expires_at}` (for a platform page
 * that renders its own form). Refusals: `not_found` (channel or owner), `owner_connect_not_configured`,
 * `channel_suspended`, `owner_not_distributed`, `rate_limited` (the owner's organization's
 * hand-offs this minute, counted with its host pages').
 */
export const postOwnerConnect = defineOperation({
  operationId: 'postOwnerConnect',
  method: 'post',
  path: '/owners/{ref}/owner-connect',
  summary: 'Start connecting an owner to its account on a channel',
  tags: ['Platform'],
  scopes: null,
  params: z.object({ ref: Ref }).strict(),
  body: Body,
  responses: {
    200: {
      description: 'The hand-off page, or with `Accept: application/json` its parts',
      mediaType: 'text/html',
      schema: z.string(),
      alternatives: { 'application/json': HandOffParts },
    },
  },
  problems: [
    'invalid_parameters',
    'platform_token_invalid',
    'not_found',
    'owner_connect_not_configured',
    'channel_suspended',
    'owner_not_distributed',
    'rate_limited',
  ],
  handler: async ({ params, body, deps, req }) => {
    const handOff = await startOwnerConnect(deps, {
      ownerRef: params.ref,
      channel: body.channel,
      ...(body.locale === undefined ? {} : { locale: body.locale }),
    });
    if (req.accepts(['text/html', 'application/json']) === 'application/json') return { body: handOff };
    const nonce = randomBytes(16).toString('base64');
    return {
      html: renderHandOffPage({
        redirectUrl: handOff.redirect_url,
        token: handOff.token,
        channel: body.channel,
        nonce,
        ...(body.locale === undefined ? {} : { locale: body.locale }),
      }),
      headers: {
        'Content-Security-Policy': handOffPagePolicy({ redirectUrl: handOff.redirect_url, nonce }),
        'Referrer-Policy': 'no-referrer',
      },
    };
  },
});
