import { keysSealedOtherwise, resealPrivatePart } from '../../db/owner-connect-keys.ts';
import { ownerConnectKeyBox, ownerConnectKeyContext } from '../../infra/secret-box.ts';
import type { ServiceDeps } from '../deps.ts';

/**
 * After a new server key joined the ring: every owner-connect private key sealed under an older
 * server key is sealed again under the newest (as the webhook secrets are), so the older one can
 * be retired without losing the signer. A value no key of the ring opens is logged by kid and left
 * as it is. Answers how many were sealed again.
 */
export async function resealOwnerConnectKeys(deps: Pick<ServiceDeps, 'orm' | 'secrets' | 'log'>): Promise<number> {
  const box = ownerConnectKeyBox(deps.secrets.ring);
  const em = deps.orm.em.fork();
  let resealed = 0;
  for (const key of await keysSealedOtherwise(em, box.currentPrefix)) {
    let plain: string;
    try {
      plain = box.open(key.privateJwk, ownerConnectKeyContext(key.kid));
    } catch {
      deps.log.error('an owner-connect private key opens with no server key of the ring', { kid: key.kid });
      continue;
    }
    if (await resealPrivatePart(em, key.kid, key.privateJwk, box.seal(plain, ownerConnectKeyContext(key.kid))))
      resealed += 1;
  }
  if (resealed > 0)
    deps.log.info('owner-connect private keys sealed again under the newest server key', { count: resealed });
  return resealed;
}
