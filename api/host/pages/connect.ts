import { hostOwnerChannel } from '../../../services/host-sessions.ts';
import { definePage, HostPageError, notFoundPage } from '../page.ts';

/**
 * Connect: the hand-off of one owner to one channel. The owner must belong to the session's
 * organization and have a property distributed to the channel; anything else is the same 404
 * (another organization's owner is not told apart from none).
 */
export const connectPage = definePage({
  method: 'post',
  path: '/owners/:owner/channels/:channel/connect',
  handler: async ({ deps, session, params }) => {
    const owner = await hostOwnerChannel(deps, session, params.owner!, params.channel!);
    if (!owner) throw notFoundPage();
    throw new HostPageError(503, 'unavailable.title', 'unavailable.body');
  },
});
