import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { openDatabase } from '../../db/orm.ts';
import { createScratchDatabase } from '../../db/scratch.ts';
import { endpointById } from '../../db/webhook-endpoints.ts';
import { systemClock, type Clock } from '../../domain/clock.ts';
import type { KeyRing } from '../../domain/key-ring.ts';
import { parseKeyRing, sha256 } from '../../infra/secrets.ts';
import { createWebhookSender } from '../../infra/webhook-sender.ts';
import { signingKeyForToken } from '../../services/owner-connect/signing-keys.ts';
import { apiTestBed, type ApiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, TEST_SERVER_SECRET } from '../support/api.ts';
import { onCleanup } from '../support/cleanup.ts';
import { dumpDatabase, restoreDatabase } from '../support/pg-tools.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// Backup and restore as docs/operations.md tells it: the service's database dumped with pg_dump
// while it runs, restored with pg_restore into a new database, and a service (API and worker)
// started on the restored one with the same server key ring. pg_dump and pg_restore are the
// server's version (test/support/pg-tools.ts finds them).

const BASE = '/api/v1/distribution';

let receiver: Receiver;
let restored: ApiTestBed<Clock>;
/** What the backed-up deployment showed before its dump. */
const before = { secret: '', endpointId: '', channel: '', key: '', kid: '', propertyEvents: [] as string[] };

const ring = (serverSecret: string | undefined, serverSecrets?: string): KeyRing =>
  parseKeyRing({ serverSecret, serverSecrets, serverGeoSecret: TEST_SERVER_SECRET });
/** The ring the dump's values were sealed under, and two it was not. */
const SAME_RING = ring(TEST_SERVER_SECRET);
const OTHER_SECRET = ring('another-server-secret-0123456789abcdef-0123');
const OTHER_KEY_ID = ring(undefined, `7:another-server-secret-0123456789abcdef-0123`);

beforeAll(async () => {
  receiver = await startReceiver();
  // The deployment backed up: its API only. No worker runs its queue, so its events wait in the log.
  const source = await apiTestBed({ clock: systemClock, receiver, taskQueue: 'backup-source' });
  const { channel, key } = await source.channel({ scopes: ['read:catalog', 'manage:webhooks'] });
  const created = await source.api.call('POST', `${BASE}/webhooks`, {
    key: key.key,
    body: { url: `${receiver.url}/restored`, events: ['property.*'] },
  });
  expect(created.status, created.text).toBe(201);
  Object.assign(before, {
    secret: created.json.secret,
    endpointId: created.json.id,
    channel: channel.name,
    key: key.key,
  });
  await source.host.organization('br-org');
  await source.host.owner('br-own', { organization: 'br-org' });
  await source.host.location('br-loc', { organization: 'br-org', owner: 'br-own' });
  await source.host.property('br-p', { location: 'br-loc', owner: 'br-own' });
  await source.host.distribute('br-p', [channel.name]);
  const events = (await source.api.call('GET', `${BASE}/events?limit=500`, { key: key.key })).json.data as {
    id: string;
    type: string;
  }[];
  before.propertyEvents = events.filter((event) => event.type.startsWith('property.')).map((event) => event.id);
  expect(before.propertyEvents.length).toBeGreaterThan(0);
  // The deployment's first owner-connect signing key, its private part sealed under the ring.
  before.kid = (await signingKeyForToken(source.ctx, new Date())).kid;

  const dump = await dumpDatabase(source.databaseUrl);
  const target = await createScratchDatabase(inject('pgServerUrl'), 'svc_restored');
  onCleanup(target.drop);
  await restoreDatabase(dump, target.url);
  const orm = await openDatabase(target.url);
  onCleanup(() => orm.close(true));
  // The restored service: same ring (the beds' TEST_SERVER_SECRET), a task queue of its own.
  restored = await apiTestBed({
    database: { orm, url: target.url },
    clock: systemClock,
    receiver,
    taskQueue: 'backup-restored',
    worker: true,
  });
});

describe('a dump restored into a fresh database, under the same server key ring', () => {
  test("delivers the events committed before the backup and a new one, each verified with the endpoint's original secret", async () => {
    await restored.host.property('br-p', { location: 'br-loc', owner: 'br-own', units: 4 });
    const expected = before.propertyEvents.length + 1;
    const requests = await receiver.waitFor(expected, 30_000);
    const webhook = new Webhook(before.secret);
    const delivered = requests.map(
      (request) => webhook.verify(request.body, request.headers) as { id: string; type: string },
    );
    expect(new Set(delivered.map((event) => event.id)).size).toBe(expected);
    expect(delivered.map((event) => event.id)).toEqual(expect.arrayContaining(before.propertyEvents));
    expect(delivered.filter((event) => !before.propertyEvents.includes(event.id))).toEqual([
      expect.objectContaining({ type: 'property.updated' }),
    ]);
  });

  test('an owner-connect token minted after the restore is signed by the key sealed before it and verifies against the published keys', async () => {
    const minted = await restored.api.call('POST', '/internal/v1/owners/br-own/owner-connect', {
      key: TEST_PLATFORM_TOKEN,
      body: { channel: before.channel },
      headers: { accept: 'application/json' },
    });
    expect(minted.status, minted.text).toBe(200);
    const token = minted.json.token as string;
    expect(decodeProtectedHeader(token).kid).toBe(before.kid);
    const published = await restored.api.call('GET', `${BASE}/owner-connect/keys`);
    expect(published.status).toBe(200);
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: published.json.keys as JWK[] }), {
      algorithms: ['ES256'],
      typ: 'owner-connect+jwt',
      audience: before.channel,
      issuer: restored.api.config.publicOrigin,
    });
    expect(payload.aud).toBe(before.channel);
  });
});

describe('the same dump under another ring', () => {
  const senderUnder = (keyRing: KeyRing) =>
    createWebhookSender({
      secrets: { ring: keyRing, platformTokenHash: sha256('unused') },
      clock: systemClock,
      settings: { allowLocal: true, caFile: receiver.caFile },
    });

  test('cannot open the sealed webhook secret: the sender fails by name and sends nothing, where the right ring signs', async () => {
    const endpoint = (await endpointById(restored.orm.em.fork(), before.endpointId))!;
    expect(endpoint.secret).toMatch(/^v2\.0\./);
    const event = { id: 'evt_restore_check', body: '{"check":"restore"}' };
    const sent = receiver.received.length;
    await expect(senderUnder(OTHER_SECRET).send(endpoint, event)).rejects.toThrow(
      'secret-box: the value does not open with key 0 of the ring (sealed under another server secret, or altered)',
    );
    await expect(senderUnder(OTHER_KEY_ID).send(endpoint, event)).rejects.toThrow(
      'secret-box: key 0 is not in the ring',
    );
    expect(receiver.received.length).toBe(sent);

    // The same endpoint and event under the ring it was sealed with: sent, and the original secret verifies it.
    const response = await senderUnder(SAME_RING).send(endpoint, event);
    expect(response.error).toBeNull();
    const [request] = (await receiver.waitFor(sent + 1)).slice(sent);
    expect(new Webhook(before.secret).verify(request!.body, request!.headers)).toEqual({ check: 'restore' });
  });

  test('cannot open the owner-connect private key: minting fails by name rather than signing with a new key', async () => {
    await expect(
      signingKeyForToken(
        { orm: restored.orm, secrets: { ring: OTHER_SECRET, platformTokenHash: sha256('unused') } },
        new Date(),
      ),
    ).rejects.toThrow('secret-box: the value does not open with key 0 of the ring');
    const { kid } = await signingKeyForToken(
      { orm: restored.orm, secrets: { ring: SAME_RING, platformTokenHash: sha256('unused') } },
      new Date(),
    );
    expect(kid).toBe(before.kid);
  });
});
