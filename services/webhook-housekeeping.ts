import { endpointsSealedOtherwise, resealValue } from '../db/webhook-endpoints.ts';
import { webhookSecretBox, webhookSecretContext } from '../infra/secret-box.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * After a new server key joined the ring: every live endpoint secret sealed under an older key is
 * sealed again under the newest, so the older key can then be retired without losing a secret.
 * Idempotent and safe beside a rotation (a value changed meanwhile is left alone). A value no key
 * of the ring opens is logged by endpoint id and left as it is. Answers how many were sealed again.
 */
export async function resealWebhookSecrets(deps: Pick<ServiceDeps, 'orm' | 'secrets' | 'log'>): Promise<number> {
  const box = webhookSecretBox(deps.secrets.ring);
  const em = deps.orm.em.fork();
  let resealed = 0;
  for (const row of await endpointsSealedOtherwise(em, box.currentPrefix)) {
    for (const [column, sealed] of [
      ['secret', row.secret],
      ['previous_secret', row.previousSecret],
    ] as const) {
      if (sealed === null || sealed.startsWith(box.currentPrefix)) continue;
      let plain: string;
      try {
        plain = box.open(sealed, webhookSecretContext(row.id));
      } catch {
        deps.log.error('a webhook secret opens with no key of the ring', { endpointId: row.id, column });
        continue;
      }
      if (await resealValue(em, row.id, column, sealed, box.seal(plain, webhookSecretContext(row.id)))) resealed += 1;
    }
  }
  if (resealed > 0) deps.log.info('webhook secrets sealed again under the newest server key', { count: resealed });
  return resealed;
}
