import type { Response } from 'express';
import { ProblemError } from '../../../domain/problems.ts';
import { hostOwnerChannel } from '../../../services/host-sessions.ts';
import { startOwnerConnect } from '../../../services/owner-connect/hand-off.ts';
import { handOffPagePolicy, renderHandOffPage } from '../../owner-connect/hand-off-page.ts';
import { html } from '../html.ts';
import type { Translate } from '../i18n.ts';
import { definePage, HostPageError, notFoundPage, type HostPageResult } from '../page.ts';
import { HOST_BASE } from '../paths.ts';

/**
 * Connect: the hand-off of one owner to one channel. The owner must belong to the session's
 * organization and have a property distributed to the channel; anything else is the same 404
 * (another organization's owner is not told apart from none). The answer is the hand-off page
 * itself: its form POSTs the token to the channel's redirect URL (its own CSP: its one script by
 * nonce, forms to that origin only), in the session's language.
 */
export const connectPage = definePage({
  method: 'post',
  path: '/owners/:owner/channels/:channel/connect',
  handler: async ({ deps, session, params, nonce, res, t }) => {
    const owner = await hostOwnerChannel(deps, session, params.owner!, params.channel!);
    if (!owner) throw notFoundPage();
    let handOff;
    try {
      handOff = await startOwnerConnect(deps, {
        ownerRef: owner.ref,
        channel: params.channel!,
        locale: session.locale,
        organizationRef: session.organizationRef,
        hostSessionId: session.id,
      });
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'owner_connect_not_configured')
        throw new HostPageError(409, 'connect.not_configured.title', 'connect.not_configured.body');
      if (error instanceof ProblemError && error.code === 'channel_suspended')
        throw new HostPageError(409, 'connect.suspended.title', 'connect.suspended.body');
      if (error instanceof ProblemError && error.code === 'owner_not_distributed')
        throw new HostPageError(409, 'connect.not_distributed.title', 'connect.not_distributed.body');
      if (error instanceof ProblemError && error.code === 'rate_limited')
        return tooManyHandOffs(res, t, error.extras.headers?.['Retry-After'] ?? '60');
      throw error;
    }
    return {
      kind: 'document',
      html: renderHandOffPage({
        redirectUrl: handOff.redirect_url,
        token: handOff.token,
        channel: params.channel!,
        locale: session.locale,
        nonce,
      }),
      policy: handOffPagePolicy({ redirectUrl: handOff.redirect_url, nonce }),
    };
  },
});

/** 429: too many hand-offs this minute, saying when to try again (and `Retry-After` says it to the browser). */
function tooManyHandOffs(res: Response, t: Translate, retryAfter: string): HostPageResult {
  res.setHeader('Retry-After', retryAfter);
  const title = t('connect.too_many.title');
  return {
    kind: 'page',
    status: 429,
    title,
    body: html`<h1>${title}</h1><p>${t('connect.too_many.body', { seconds: retryAfter })}</p><p><a href="${HOST_BASE}/">${t('back.owners')}</a></p>`,
  };
}
