import { beforeAll, describe, expect, test } from 'vitest';
import { createChannel } from '../../services/channels.ts';
import { serviceStores } from '../../services/stores/index.ts';
import { dropDeletedEndpoints, endpointById, insertEndpoint, markEndpointDeleted } from '../../db/webhook-endpoints.ts';
import { keepAllPartitions } from '../support/partitions.ts';
import { newExternalId } from '../../domain/catalogue/ids.ts';
import { webhookSecretBox, webhookSecretContext } from '../../infra/secret-box.ts';
import { createLogger } from '../../infra/logger.ts';
import { parseKeyRing } from '../../infra/secrets.ts';
import { resealWebhookSecrets } from '../../services/webhook-housekeeping.ts';
import { freshDatabase } from '../support/database.ts';
import { uniqueChannelName } from '../support/fixtures.ts';

const OLD = 'old-server-secret-0123456789abcdef-0123';
const NEW = 'new-server-secret-0123456789abcdef-4567';
const DAY = 24 * 3600 * 1000;

let orm: Awaited<ReturnType<typeof freshDatabase>>['orm'];
beforeAll(async () => {
  ({ orm } = await freshDatabase());
});

async function endpoint(sealedWith: ReturnType<typeof parseKeyRing>, now: Date) {
  const channel = await createChannel(
    { stores: serviceStores(orm), clock: { now: () => now } },
    { name: uniqueChannelName(), rateLimitPerMinute: 600, redirectUrl: null, technicalContactEmail: null },
  );
  const id = newExternalId('webhook', now.getTime());
  const sealedSecret = webhookSecretBox(sealedWith).seal('whsec_kept', webhookSecretContext(id));
  await insertEndpoint(orm.em.fork(), {
    id,
    channelId: channel.id,
    url: 'https://receiver.example/hook',
    events: ['*'],
    description: null,
    sealedSecret,
    now,
  });
  return id;
}

describe('webhook housekeeping', () => {
  test('secrets sealed under a retiring key are sealed again under the newest, so they open once it is retired', async () => {
    const before = parseKeyRing({ serverSecret: OLD, serverSecrets: undefined, serverGeoSecret: undefined });
    const during = parseKeyRing({ serverSecret: OLD, serverSecrets: `1:${NEW}`, serverGeoSecret: undefined });
    const after = parseKeyRing({ serverSecret: undefined, serverSecrets: `1:${NEW}`, serverGeoSecret: OLD });
    const id = await endpoint(before, new Date());
    const deps = { orm, log: createLogger('silent') };

    expect(
      await resealWebhookSecrets({ ...deps, secrets: { ring: during, platformTokenHash: new Uint8Array(32) } }),
    ).toBeGreaterThanOrEqual(1);
    const row = await endpointById(orm.em.fork(), id);
    expect(row!.secret!.startsWith('v2.1.')).toBe(true);
    expect(webhookSecretBox(after).open(row!.secret!, webhookSecretContext(id))).toBe('whsec_kept');
    // Done once: a second sweep has nothing left to seal.
    expect(
      await resealWebhookSecrets({ ...deps, secrets: { ring: during, platformTokenHash: new Uint8Array(32) } }),
    ).toBe(0);
  });

  test('a deleted endpoint is purged once the delivery retention has passed since its deletion, not before', async () => {
    const ring = parseKeyRing({ serverSecret: OLD, serverSecrets: undefined, serverGeoSecret: undefined });
    const deletedAt = new Date('2026-01-01T00:00:00Z');
    const id = await endpoint(ring, deletedAt);
    await markEndpointDeleted(orm.em.fork(), id, deletedAt);

    await keepAllPartitions(orm, new Date(deletedAt.getTime() + 34 * DAY), ['webhook_delivery']);
    await dropDeletedEndpoints(orm.em.fork(), new Date(deletedAt.getTime() + 34 * DAY));
    expect(await endpointById(orm.em.fork(), id)).not.toBeNull();

    await keepAllPartitions(orm, new Date(deletedAt.getTime() + 36 * DAY), ['webhook_delivery']);
    await dropDeletedEndpoints(orm.em.fork(), new Date(deletedAt.getTime() + 36 * DAY));
    expect(await endpointById(orm.em.fork(), id)).toBeNull();
  });
});
