import type { MikroORM } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, test } from 'vitest';
import { setChannelStatus, setWebhooksSuspended } from '../../admin/channels.ts';
import { createActivities } from '../../activities/index.ts';
import type { AdminContext } from '../../admin/context.ts';
import { findChannelByName } from '../../db/channels.ts';
import { keepAllPartitions } from '../support/partitions.ts';
import { loadConfig } from '../../app/config.ts';
import { ID_PATTERNS } from '../../domain/catalogue/ids.ts';
import { systemClock } from '../../domain/clock.ts';
import { serviceDeps } from '../../services/deps.ts';
import { rotateEndpointSecret } from '../../services/webhooks.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { uniqueTaskQueue } from '../support/temporal.ts';
import { activityDeps } from '../support/worker.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let clock: TestClock;
let ctx: AdminContext;
let orm: MikroORM;
let receiver: Receiver;
let activities: ReturnType<typeof createActivities>;

beforeAll(async () => {
  receiver = await startReceiver();
  const bed = await apiTestBed({
    clock: new TestClock(),
    receiver,
  });
  ({ api, clock, ctx, orm } = bed);
  // No worker runs here: tests call the dispatcher's activity themselves, so they decide when it
  // looks at the log. The delivery workflows it starts wait on a task queue nobody polls. The
  // activities run on the system clock, not the file's.
  activities = createActivities(
    activityDeps(orm, { client: bed.temporal, taskQueue: uniqueTaskQueue('api-webhooks'), clock: systemClock }),
  );
});

async function hooksKey(
  scopes: ('read:catalog' | 'read:ari' | 'manage:webhooks')[] = ['manage:webhooks', 'read:catalog'],
) {
  return (await channelWithKey(ctx, { scopes })).key.key;
}

const call = async (key: string, method: string, path: string, body?: unknown) => {
  const res = await api.call(method, `${BASE}${path}`, { key, ...(body === undefined ? {} : { body }) });
  if (res.status < 400) expectMatchesDescription(method, `${BASE}${path}`, res);
  return res;
};

/** Verifies a received request with the Standard Webhooks reference library, not the service's code. */
function verifies(secret: string, request: { headers: Record<string, string>; body: string }): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  }
}

/** One run of the dispatcher over every channel's new events, to the end of the log. */
async function dispatch(): Promise<void> {
  for (let batch = 0; batch < 50; batch += 1) if (!(await activities.dispatchEvents()).more) return;
  throw new Error('the dispatcher still had events after 50 batches');
}

let properties = 0;
/** A property published to the channel (`property.distributed`), and a way to change it (`property.updated`). */
async function publishedProperty(channelName: string) {
  properties += 1;
  const host = platform(api);
  const ref = `whp-${properties}`;
  await host.organization(`${ref}-org`);
  await host.owner(`${ref}-own`, { organization: `${ref}-org` });
  await host.location(`${ref}-loc`, { organization: `${ref}-org`, owner: `${ref}-own` });
  await host.property(ref, { location: `${ref}-loc`, owner: `${ref}-own` });
  await host.distribute(ref, [channelName]);
  return { change: (units: number) => host.property(ref, { location: `${ref}-loc`, owner: `${ref}-own`, units }) };
}

/** The endpoint's deliveries as stored, oldest first: event id and type. */
async function deliveriesOf(endpointId: string): Promise<{ event_id: string; event_type: string }[]> {
  return orm.em
    .fork()
    .execute('select event_id, event_type from webhook_delivery where endpoint_id = ? order by created_at, id', [
      endpointId,
    ]);
}

/** The channel's property events in log order. */
async function propertyEvents(key: string): Promise<{ id: string; type: string }[]> {
  const page = (await call(key, 'GET', '/events?limit=500')).json;
  return (page.data as { id: string; type: string }[])
    .filter((e) => e.type.startsWith('property.'))
    .map(({ id, type }) => ({ id, type }));
}

describe('webhook endpoints', () => {
  test('creation answers the secret once; reads never show it; it is stored encrypted', async () => {
    const key = await hooksKey();
    const created = await call(key, 'POST', '/webhooks', {
      url: receiver.url,
      events: ['property.*', 'location.updated'],
      description: 'main',
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      url: receiver.url,
      events: ['property.*', 'location.updated'],
      description: 'main',
      status: 'active',
      suspended_reason: null,
      previous_secret_expires_at: null,
    });
    expect(created.json.id).toMatch(ID_PATTERNS.webhook);
    expect(created.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const one = await call(key, 'GET', `/webhooks/${created.json.id}`);
    expect(one.json).not.toHaveProperty('secret');
    expect((await call(key, 'GET', '/webhooks')).json).toEqual({ data: [one.json], next_cursor: null });
    const [stored] = await orm.em
      .fork()
      .execute<{ secret: string }[]>('select secret from webhook_endpoint where id = ?', [created.json.id]);
    expect(stored!.secret).not.toContain(created.json.secret.slice(6));
    expect(stored!.secret).toMatch(/^v2\.0\./);
  });

  test('refuses unsafe URLs, unknown patterns and events the key does not cover', async () => {
    const key = await hooksKey();
    for (const url of [
      'http://partner.example/hook',
      'https://10.0.0.7/hook',
      'https://169.254.169.254/latest',
      'https://[::ffff:192.168.0.1]/',
      'https://user@partner.example/hook',
      'https://partner.internal/hook',
    ]) {
      const res = await call(key, 'POST', '/webhooks', { url, events: ['*'] });
      expectProblem(res, 400, 'invalid_parameters', ['errors']);
      expect(res.json.errors).toEqual([expect.objectContaining({ code: 'url_not_allowed', pointer: '/url' })]);
    }
    const pattern = await call(key, 'POST', '/webhooks', {
      url: receiver.url,
      events: ['Property.Exploded', 'property.*', 'property.*'],
    });
    expect(pattern.json.errors.map((e: { code: string }) => e.code)).toEqual(['event_pattern', 'duplicate']);
    const scope = await call(key, 'POST', '/webhooks', { url: receiver.url, events: ['availability.updated'] });
    expectProblem(scope, 403, 'insufficient_scope', ['required_scopes']);
    expect(scope.json.required_scopes).toEqual(['read:ari']);
    expectProblem(
      await call(key, 'POST', '/webhooks', { url: receiver.url, events: Array.from({ length: 21 }, () => '*') }),
      400,
      'invalid_parameters',
      ['errors'],
    );
    expectProblem(await call(await hooksKey(['read:catalog']), 'GET', '/webhooks'), 403, 'insufficient_scope', [
      'required_scopes',
    ]);
  });

  test('WEBHOOK_ALLOW_LOCAL admits loopback targets on any port and nothing more: elsewhere port 443 and public addresses', async () => {
    // The bed sets the flag for its receiver. Nothing registered here is delivered to: no worker
    // polls this file's task queue.
    expect(api.config.webhooks.allowLocal).toBe(true);
    const key = await hooksKey();
    for (const url of [
      'https://8.8.8.8:8443/x',
      'https://[2606:4700:4700::1111]:8443/x',
      'https://hooks.channel-partner.com:8443/hook',
      'https://10.0.0.7/hook',
      'https://192.168.1.20:8443/hook',
      'https://[fd00::1]:8443/hook',
      'https://169.254.169.254/latest',
    ]) {
      const res = await call(key, 'POST', '/webhooks', { url, events: ['property.*'] });
      expectProblem(res, 400, 'invalid_parameters', ['errors']);
      expect(res.json.errors, url).toEqual([expect.objectContaining({ code: 'url_not_allowed', pointer: '/url' })]);
    }
    for (const url of ['https://127.0.0.1:9443/hooks', 'https://[::1]:9443/hooks', 'https://localhost:9443/hooks']) {
      const res = await call(key, 'POST', '/webhooks', { url, events: ['property.*'] });
      expect(res.status, `${url}: ${res.text}`).toBe(201);
    }
  });

  test('a subscription holds up to 20 distinct entries, types v1 has not added yet included, which need both event scopes', async () => {
    const twenty = [
      '*',
      'property.*',
      'availability.updated',
      ...Array.from({ length: 17 }, (_, i) => `booking.step_${i}`),
    ];
    const created = await call(await hooksKey(['manage:webhooks', 'read:catalog', 'read:ari']), 'POST', '/webhooks', {
      url: `${receiver.url}/twenty`,
      events: twenty,
    });
    expect(created.status).toBe(201);
    expect(created.json.events).toEqual(twenty);
    const tooMany = await call(await hooksKey(['manage:webhooks', 'read:catalog', 'read:ari']), 'POST', '/webhooks', {
      url: `${receiver.url}/more`,
      events: [...twenty, 'booking.step_17'],
    });
    expectProblem(tooMany, 400, 'invalid_parameters', ['errors']);
    expect(tooMany.json.errors).toEqual([expect.objectContaining({ code: 'max', pointer: '/events' })]);
    const unknownScope = await call(await hooksKey(), 'POST', '/webhooks', {
      url: `${receiver.url}/later`,
      events: ['property.created'],
    });
    expectProblem(unknownScope, 403, 'insufficient_scope', ['required_scopes']);
    expect(unknownScope.json.required_scopes).toEqual(['read:ari']);
  });

  test('one URL once, five endpoints at most', async () => {
    const key = await hooksKey();
    expect((await call(key, 'POST', '/webhooks', { url: receiver.url, events: ['*'] })).status).toBe(403);
    const catalogOnly = ['property.*'];
    expect((await call(key, 'POST', '/webhooks', { url: receiver.url, events: catalogOnly })).status).toBe(201);
    expectProblem(
      await call(key, 'POST', '/webhooks', { url: receiver.url, events: catalogOnly }),
      409,
      'webhook_endpoint_exists',
    );
    for (let i = 2; i <= 5; i += 1)
      expect((await call(key, 'POST', '/webhooks', { url: `${receiver.url}/${i}`, events: catalogOnly })).status).toBe(
        201,
      );
    expectProblem(
      await call(key, 'POST', '/webhooks', { url: `${receiver.url}/6`, events: catalogOnly }),
      409,
      'webhook_endpoint_limit_reached',
    );
    const [first] = (await call(key, 'GET', '/webhooks')).json.data;
    expect((await call(key, 'DELETE', `/webhooks/${first.id}`)).status).toBe(204);
    expectProblem(await call(key, 'GET', `/webhooks/${first.id}`), 404, 'not_found');
    expect((await call(key, 'POST', '/webhooks', { url: `${receiver.url}/6`, events: catalogOnly })).status).toBe(201);
    const [deleted] = await orm.em
      .fork()
      .execute<{ secret: string | null; status: string }[]>(
        'select secret, status from webhook_endpoint where id = ?',
        [first.id],
      );
    expect(deleted).toEqual({ secret: null, status: 'deleted' });
  });

  test('a test ping is signed so the reference library accepts it, and its outcome is answered', async () => {
    const key = await hooksKey();
    const { json: endpoint } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/ping`,
      events: ['property.*'],
    });
    receiver.respond(204);
    const before = receiver.received.length;
    const outcome = await call(key, 'POST', `/webhooks/${endpoint.id}/test`);
    expect(outcome.json).toMatchObject({
      delivered: true,
      status_code: 204,
      error: null,
      event_id: expect.stringMatching(/^evt_/),
    });
    const [request] = receiver.received.slice(before);
    expect(request!.headers['webhook-id']).toBe(outcome.json.event_id);
    expect(JSON.parse(request!.body)).toMatchObject({
      id: outcome.json.event_id,
      type: 'webhook.ping',
      data: { object: 'webhook', id: endpoint.id },
    });
    expect(verifies(endpoint.secret, request!)).toBe(true);
    expect(verifies(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, request!)).toBe(false);

    receiver.respond(500);
    const failed = await call(key, 'POST', `/webhooks/${endpoint.id}/test`);
    expect(failed.json).toMatchObject({ delivered: false, status_code: 500, error: 'http_status' });
    receiver.respond(204);
  });

  test('a channel has at most two pings in flight: a third is refused with 429 and Retry-After, and once they end pings go again', async () => {
    const key = await hooksKey();
    const { json: endpoint } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/held`,
      events: ['property.*'],
    });
    const before = receiver.received.length;
    receiver.hold();
    const inFlight = [
      call(key, 'POST', `/webhooks/${endpoint.id}/test`),
      call(key, 'POST', `/webhooks/${endpoint.id}/test`),
    ];
    try {
      await receiver.waitFor(before + 2);
      const third = await api.call('POST', `${BASE}/webhooks/${endpoint.id}/test`, { key });
      expectProblem(third, 429, 'rate_limited');
      expect(third.headers['retry-after']).toBe('10');
      // Another channel is not held back by this one's pings.
      const otherKey = await hooksKey();
      const { json: other } = await call(otherKey, 'POST', '/webhooks', {
        url: `${receiver.url}/other`,
        events: ['property.*'],
      });
      const otherPing = call(otherKey, 'POST', `/webhooks/${other.id}/test`);
      await receiver.waitFor(before + 3);
      receiver.release();
      expect((await otherPing).json).toMatchObject({ delivered: true });
    } finally {
      receiver.release();
    }
    for (const done of await Promise.all(inFlight))
      expect(done.json).toMatchObject({ delivered: true, status_code: 204 });
    expect((await call(key, 'POST', `/webhooks/${endpoint.id}/test`)).json).toMatchObject({ delivered: true });
  });

  test('rotation: the previous secret signs beside the new one for 24 hours, or stops at once', async () => {
    const key = await hooksKey();
    const { json: endpoint } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/rotate`,
      events: ['property.*'],
    });
    const rotated = await call(key, 'POST', `/webhooks/${endpoint.id}/rotate-secret`, {});
    expect(rotated.json.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.json.previous_secret_expires_at) - clock.now().getTime()).toBeGreaterThan(
      24 * 3600 * 1000 - 2000,
    );
    const before = receiver.received.length;
    await call(key, 'POST', `/webhooks/${endpoint.id}/test`);
    const [request] = receiver.received.slice(before);
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifies(endpoint.secret, request!)).toBe(true);
    expect(verifies(rotated.json.secret, request!)).toBe(true);

    const immediate = await call(key, 'POST', `/webhooks/${endpoint.id}/rotate-secret`, { expire_immediately: true });
    expect(immediate.json.previous_secret_expires_at).toBeNull();
    await call(key, 'POST', `/webhooks/${endpoint.id}/test`);
    const last = receiver.received.at(-1)!;
    expect(last.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifies(immediate.json.secret, last)).toBe(true);
    expect(verifies(rotated.json.secret, last)).toBe(false);
  });

  test('a rotation whose expiry workflow cannot be started keeps the secret it had', async () => {
    const {
      channel,
      key: { key },
    } = await channelWithKey(ctx, { scopes: ['manage:webhooks', 'read:catalog'] });
    const { json: endpoint } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/rotate-unreachable`,
      events: ['property.*'],
    });
    const stored = () =>
      orm.em
        .fork()
        .execute<{ secret: string; previous_secret: string | null; secret_generation: number }[]>(
          'select secret, previous_secret, secret_generation from webhook_endpoint where id = ?',
          [endpoint.id],
        );
    const before = await stored();
    const unreachable = serviceDeps({
      orm,
      config: ctx.config,
      clock,
      log: ctx.log,
      secrets: ctx.secrets,
      temporal: () => Promise.reject(new Error('Temporal unreachable')),
    });
    const record = (await findChannelByName(orm.em.fork(), channel.name))!;
    await expect(rotateEndpointSecret(unreachable, record, endpoint.id, { expireImmediately: false })).rejects.toThrow(
      'Temporal unreachable',
    );
    expect(await stored()).toEqual(before);
    receiver.respond(204);
    const received = receiver.received.length;
    await call(key, 'POST', `/webhooks/${endpoint.id}/test`);
    expect(verifies(endpoint.secret, receiver.received[received]!)).toBe(true);
  });

  test('enable needs a successful signed ping; nothing missed is replayed', async () => {
    const {
      channel,
      key: { key },
    } = await channelWithKey(ctx, { scopes: ['manage:webhooks', 'read:catalog'] });
    const { json: endpoint } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/enable`,
      events: ['property.*'],
    });
    await orm.em
      .fork()
      .execute(`update webhook_endpoint set status = 'inactive', suspended_reason = 'failing' where id = ?`, [
        endpoint.id,
      ]);
    expect((await call(key, 'GET', `/webhooks/${endpoint.id}`)).json).toMatchObject({
      status: 'inactive',
      suspended_reason: 'failing',
    });
    // Changes while it is inactive, which the dispatcher has not looked at yet.
    const property = await publishedProperty(channel.name);
    receiver.respond(503);
    expectProblem(await call(key, 'POST', `/webhooks/${endpoint.id}/enable`), 409, 'webhook_endpoint_still_failing');
    receiver.respond(200);
    const enabled = await call(key, 'POST', `/webhooks/${endpoint.id}/enable`);
    expect(enabled.json).toMatchObject({ status: 'active', suspended_reason: null });
    receiver.respond(204);
    const pings = receiver.received.filter((r) => r.path === '/hooks/enable');
    expect(pings.map((r) => JSON.parse(r.body).type)).toEqual(['webhook.ping', 'webhook.ping']);
    expect(verifies(endpoint.secret, pings[1]!)).toBe(true);

    clock.advance(1_000);
    await property.change(2);
    await dispatch();
    const [missed, after] = await propertyEvents(key);
    expect([missed!.type, after!.type]).toEqual(['property.distributed', 'property.updated']);
    // Only the change made after enabling is delivered; the one missed is not.
    expect(await deliveriesOf(endpoint.id)).toEqual([{ event_id: after!.id, event_type: 'property.updated' }]);
  });

  test('enabling one endpoint does not skip, for the others, the events not yet dispatched', async () => {
    const {
      channel,
      key: { key },
    } = await channelWithKey(ctx, { scopes: ['manage:webhooks', 'read:catalog'] });
    const { json: steady } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/steady`,
      events: ['property.*'],
    });
    const { json: revived } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/revived`,
      events: ['property.*'],
    });
    await orm.em
      .fork()
      .execute(`update webhook_endpoint set status = 'inactive', suspended_reason = 'failing' where id = ?`, [
        revived.id,
      ]);
    clock.advance(1_000);
    // The dispatcher is behind: the property is published and not dispatched when the other endpoint is enabled.
    const property = await publishedProperty(channel.name);
    receiver.respond(204);
    expect((await call(key, 'POST', `/webhooks/${revived.id}/enable`)).json).toMatchObject({ status: 'active' });
    clock.advance(1_000);
    await property.change(2);
    await dispatch();
    const [distributed, updated] = await propertyEvents(key);
    expect(await deliveriesOf(steady.id)).toEqual([
      { event_id: distributed!.id, event_type: 'property.distributed' },
      { event_id: updated!.id, event_type: 'property.updated' },
    ]);
    expect(await deliveriesOf(revived.id)).toEqual([{ event_id: updated!.id, event_type: 'property.updated' }]);
  });

  test('an endpoint gets only the events of changes made after it was registered', async () => {
    const {
      channel,
      key: { key },
    } = await channelWithKey(ctx, { scopes: ['manage:webhooks', 'read:catalog'] });
    const { json: first } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/registered-first`,
      events: ['property.*'],
    });
    const property = await publishedProperty(channel.name);
    clock.advance(2_000);
    // Registered after the property was published, before the dispatcher looked at it.
    const { json: second } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/registered-second`,
      events: ['property.*'],
    });
    clock.advance(1_000);
    await property.change(2);
    await dispatch();
    const [distributed, updated] = await propertyEvents(key);
    expect([distributed!.type, updated!.type]).toEqual(['property.distributed', 'property.updated']);
    expect(await deliveriesOf(first.id)).toEqual([
      { event_id: distributed!.id, event_type: 'property.distributed' },
      { event_id: updated!.id, event_type: 'property.updated' },
    ]);
    expect(await deliveriesOf(second.id)).toEqual([{ event_id: updated!.id, event_type: 'property.updated' }]);
  });

  test.each([
    ['a suspended channel', (name: string, on: boolean) => setChannelStatus(ctx, name, on ? 'suspended' : 'active')],
    [
      'a channel whose webhooks the platform suspended',
      (name: string, on: boolean) => setWebhooksSuspended(ctx, name, on),
    ],
  ])('%s gets no delivery of its changes; once reinstated, those from then on', async (_label, suspend) => {
    const {
      channel,
      key: { key },
    } = await channelWithKey(ctx, { scopes: ['manage:webhooks', 'read:catalog'] });
    const { json: endpoint } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/suspended`,
      events: ['property.*'],
    });
    await suspend(channel.name, true);
    const property = await publishedProperty(channel.name);
    await dispatch();
    expect(await deliveriesOf(endpoint.id)).toEqual([]);

    await suspend(channel.name, false);
    clock.advance(1_000);
    await property.change(2);
    await dispatch();
    const [, updated] = await propertyEvents(key);
    expect(await deliveriesOf(endpoint.id)).toEqual([{ event_id: updated!.id, event_type: 'property.updated' }]);
  });

  test('deliveries of an unknown endpoint or delivery are not_found; the list pages newest first', async () => {
    const key = await hooksKey();
    const { json: endpoint } = await call(key, 'POST', '/webhooks', {
      url: `${receiver.url}/deliveries`,
      events: ['property.*'],
    });
    expect((await call(key, 'GET', `/webhooks/${endpoint.id}/deliveries`)).json).toEqual({
      data: [],
      next_cursor: null,
    });
    // Five deliveries stored out of order, two of them made in the same instant (then the larger id is newer).
    const now = clock.now().getTime();
    const made: [string, number][] = [
      ['dlv_0aaaaaaaaaaaaaaaaaaaaaaab3', 3],
      ['dlv_0aaaaaaaaaaaaaaaaaaaaaaab1', 1],
      ['dlv_0aaaaaaaaaaaaaaaaaaaaaaab5', 5],
      ['dlv_0aaaaaaaaaaaaaaaaaaaaaaab2', 3],
      ['dlv_0aaaaaaaaaaaaaaaaaaaaaaab4', 4],
    ];
    for (const [id, minutesAgo] of made) {
      await orm.em
        .fork()
        .execute(
          `insert into webhook_delivery (id, endpoint_id, event_id, event_type, payload, state, attempts, created_at) values (?, ?, ?, 'property.updated', '{}', 'delivered', 1, ?)`,
          [id, endpoint.id, `evt_${id.slice(4)}`, new Date(now - minutesAgo * 60_000)],
        );
    }
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: { data: { id: string }[]; next_cursor: string | null } = (
        await call(
          key,
          'GET',
          `/webhooks/${endpoint.id}/deliveries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        )
      ).json;
      pages.push(page.data.map((d) => d.id.slice(-2)));
      cursor = page.next_cursor;
    } while (cursor !== null && pages.length < 5);
    expect(pages).toEqual([['b1', 'b3'], ['b2', 'b4'], ['b5']]);
    expectProblem(
      await call(key, 'GET', `/webhooks/${endpoint.id}/deliveries/dlv_0aaaaaaaaaaaaaaaaaaaaaaaaa`),
      404,
      'not_found',
    );
    expectProblem(await call(key, 'GET', '/webhooks/whk_0aaaaaaaaaaaaaaaaaaaaaaaaa/deliveries'), 404, 'not_found');
    expectProblem(await call(key, 'GET', '/webhooks/nonsense'), 404, 'not_found');
    const other = await hooksKey();
    expectProblem(await call(other, 'GET', `/webhooks/${endpoint.id}`), 404, 'not_found');
  });
});

test("operators can suspend a channel's webhooks: no registration, no enabling, until resumed", async () => {
  const { channel, key } = await channelWithKey(ctx, { scopes: ['manage:webhooks', 'read:catalog'] });
  const { json: endpoint } = await call(key.key, 'POST', '/webhooks', {
    url: `${receiver.url}/platform`,
    events: ['property.*'],
  });
  await orm.em
    .fork()
    .execute(`update webhook_endpoint set status = 'inactive', suspended_reason = 'failing' where id = ?`, [
      endpoint.id,
    ]);
  const suspended = await setWebhooksSuspended(ctx, channel.name, true);
  expect(suspended.webhooks_suspended_at).toEqual(expect.any(String));
  expectProblem(
    await call(key.key, 'POST', '/webhooks', { url: `${receiver.url}/platform-2`, events: ['property.*'] }),
    409,
    'webhooks_suspended_by_platform',
  );
  expectProblem(await call(key.key, 'POST', `/webhooks/${endpoint.id}/enable`), 409, 'webhooks_suspended_by_platform');
  await setWebhooksSuspended(ctx, channel.name, false);
  expect((await call(key.key, 'POST', `/webhooks/${endpoint.id}/enable`)).json).toMatchObject({ status: 'active' });
});

test("while operators hold a channel's webhooks its endpoints read inactive, reason platform; once resumed, their own state", async () => {
  const { channel, key } = await channelWithKey(ctx, { scopes: ['manage:webhooks', 'read:catalog'] });
  const { json: live } = await call(key.key, 'POST', '/webhooks', {
    url: `${receiver.url}/held-live`,
    events: ['property.*'],
  });
  const { json: failing } = await call(key.key, 'POST', '/webhooks', {
    url: `${receiver.url}/held-failing`,
    events: ['property.*'],
  });
  await orm.em
    .fork()
    .execute(`update webhook_endpoint set status = 'inactive', suspended_reason = 'failing' where id = ?`, [
      failing.id,
    ]);
  await setWebhooksSuspended(ctx, channel.name, true);
  // Two endpoints made in one millisecond may list in either order: compared by id.
  const byId = (rows: string[][]) => rows.sort((a, b) => a[0]!.localeCompare(b[0]!));
  const held = (await call(key.key, 'GET', '/webhooks')).json.data.map(
    (e: { id: string; status: string; suspended_reason: string }) => [e.id, e.status, e.suspended_reason],
  );
  expect(byId(held)).toEqual(
    byId([
      [live.id, 'inactive', 'platform'],
      [failing.id, 'inactive', 'platform'],
    ]),
  );
  expect((await call(key.key, 'GET', `/webhooks/${live.id}`)).json).toMatchObject({
    status: 'inactive',
    suspended_reason: 'platform',
  });
  expect((await call(key.key, 'POST', `/webhooks/${live.id}/rotate-secret`, {})).json).toMatchObject({
    status: 'inactive',
    suspended_reason: 'platform',
  });
  await setWebhooksSuspended(ctx, channel.name, false);
  const resumed = (await call(key.key, 'GET', '/webhooks')).json.data.map(
    (e: { id: string; status: string; suspended_reason: string | null }) => [e.id, e.status, e.suspended_reason],
  );
  expect(byId(resumed)).toEqual(
    byId([
      [live.id, 'active', null],
      [failing.id, 'inactive', 'failing'],
    ]),
  );
});

test('deliveries are kept 35 days', async () => {
  const key = await hooksKey();
  const { json: endpoint } = await call(key, 'POST', '/webhooks', {
    url: `${receiver.url}/kept`,
    events: ['property.*'],
  });
  const now = clock.now();
  for (const [id, age] of [
    ['dlv_0aaaaaaaaaaaaaaaaaaaaaaaa1', 34],
    ['dlv_0aaaaaaaaaaaaaaaaaaaaaaaa2', 36],
  ] as const) {
    await orm.em
      .fork()
      .execute(
        `insert into webhook_delivery (id, endpoint_id, event_id, event_type, payload, state, attempts, created_at) values (?, ?, ?, 'property.updated', '{}', 'delivered', 1, ?)`,
        [id, endpoint.id, `evt_${id.slice(4)}`, new Date(now.getTime() - age * 86_400_000)],
      );
  }
  await keepAllPartitions(orm, now, ['webhook_delivery']);
  const kept = (await call(key, 'GET', `/webhooks/${endpoint.id}/deliveries`)).json.data.map(
    (d: { id: string }) => d.id,
  );
  expect(kept).toEqual(['dlv_0aaaaaaaaaaaaaaaaaaaaaaaa1']);
});

test('only development and test runs accept the local-receiver settings; a deployed sandbox refuses them', () => {
  expect(() => loadConfig({ SVC_ENVIRONMENT: 'production', WEBHOOK_ALLOW_LOCAL: 'true' })).toThrow(
    /WEBHOOK_ALLOW_LOCAL/,
  );
  expect(() => loadConfig({ SVC_ENVIRONMENT: 'production', WEBHOOK_CA_FILE: '/tmp/ca.pem' })).toThrow(
    /WEBHOOK_CA_FILE/,
  );
  expect(() => loadConfig({ SVC_ENVIRONMENT: 'sandbox', WEBHOOK_ALLOW_LOCAL: 'true' })).toThrow(/WEBHOOK_ALLOW_LOCAL/);
  expect(() =>
    loadConfig({ SVC_ENVIRONMENT: 'sandbox', NODE_ENV: 'production', WEBHOOK_CA_FILE: '/tmp/ca.pem' }),
  ).toThrow(/WEBHOOK_CA_FILE/);
  expect(
    loadConfig({ SVC_ENVIRONMENT: 'sandbox', NODE_ENV: 'development', WEBHOOK_ALLOW_LOCAL: 'true' }).webhooks
      .allowLocal,
  ).toBe(true);
  expect(
    loadConfig({ SVC_ENVIRONMENT: 'sandbox', NODE_ENV: 'test', WEBHOOK_ALLOW_LOCAL: 'true' }).webhooks.allowLocal,
  ).toBe(true);
});
