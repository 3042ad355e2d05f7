import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { EVENT_TYPES } from '../../domain/events.ts';
import { TRIGGER_TYPES } from '../../services/sandbox-trigger.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// Each trigger through the real API over TLS, its events read back from GET /events and received
// by a loopback receiver through the service's worker (dispatcher and delivery workflows).

const BASE = '/api/v1/distribution';
const ALL_SCOPES = ['read:catalog', 'read:ari', 'manage:webhooks'] as const;
let api: TestApi;
let ctx: AdminContext;
let receiver: Receiver;

interface Triggered {
  type: string;
  events: { type: string; event_id: string; object: string; id: string; version: number | null }[];
  cursor: string | null;
  pings: { webhook_id: string; delivered: boolean; event_id: string }[];
}

beforeAll(async () => {
  receiver = await startReceiver();
  ({ api, ctx } = await apiTestBed({ receiver, worker: true, taskQueue: 'sandbox-trigger' }));
}, 60_000);

const call = async (key: string, method: string, path: string, body?: unknown) => {
  const res = await api.call(method, `${BASE}${path}`, { key, ...(body === undefined ? {} : { body }) });
  if (res.status < 400) expectMatchesDescription(method, `${BASE}${path}`, res);
  return res;
};

async function triggerOf(key: string, type: string): Promise<Triggered> {
  const res = await call(key, 'POST', '/sandbox/triggers', { type });
  expect(res.status, res.text).toBe(200);
  return res.json as Triggered;
}

/** Every event of the channel's log, oldest first. */
async function allEvents(key: string): Promise<{ id: string; type: string; data: { id: string } }[]> {
  return (await call(key, 'GET', '/events?limit=500')).json.data;
}

describe('POST /sandbox/triggers', () => {
  test('each event type: its event in the answer, listed from the cursor, received by the endpoint', async () => {
    const { key } = await channelWithKey(ctx, { scopes: [...ALL_SCOPES] });
    const created = await call(key.key, 'POST', '/webhooks', { url: receiver.url, events: ['*'] });
    expect(created.status).toBe(201);
    const answered: string[] = [];
    for (const type of EVENT_TYPES) {
      const outcome = await triggerOf(key.key, type);
      expect(
        outcome.events.map((event) => event.type),
        type,
      ).toContain(type);
      const asked = outcome.events.find((event) => event.type === type)!;
      if (type === 'availability.updated') expect(asked.version).toBeNull();
      else expect(asked.version, type).toEqual(expect.any(Number));
      expect(asked.object).toBe(type.startsWith('availability') ? 'property' : type.split('.')[0]);
      // The cursor reads these very events first, in the order answered.
      const fromCursor = await call(key.key, 'GET', `/events?limit=100&cursor=${outcome.cursor!}`);
      const listed = (fromCursor.json.data as { id: string; type: string; data: { id: string; version?: number } }[])
        .slice(0, outcome.events.length)
        .map((event) => ({ id: event.id, type: event.type, object_id: event.data.id }));
      expect(listed, type).toEqual(
        outcome.events.map((event) => ({ id: event.event_id, type: event.type, object_id: event.id })),
      );
      answered.push(...outcome.events.map((event) => event.event_id));
    }
    // Delivered like any other event: the receiver gets each, under its id. Two processes reach
    // every channel, this one too, while another test file runs them: an amenity release
    // (`amenity.*`) and the daily horizon roll (`availability.updated`); anything else received
    // is one of theirs.
    const idsOf = (requests: { headers: Record<string, string> }[]) =>
      new Set(requests.map((r) => r.headers['webhook-id']));
    const received = await receiver.waitUntil((all) => answered.every((id) => idsOf(all).has(id)), 30_000);
    const others = received.filter((request) => !answered.includes(request.headers['webhook-id']!));
    for (const other of others)
      expect((JSON.parse(other.body) as { type: string }).type).toMatch(
        /^(amenity\.(updated|deleted)|availability\.updated)$/,
      );
  }, 120_000);

  test("a trigger never moves another channel's view or log", async () => {
    const other = (await channelWithKey(ctx, { scopes: [...ALL_SCOPES] })).key.key;
    await triggerOf(other, 'property.updated');
    const before = {
      events: await allEvents(other),
      properties: (await call(other, 'GET', '/properties?limit=100')).json,
      locations: (await call(other, 'GET', '/locations?limit=100')).json,
    };
    const { key } = await channelWithKey(ctx, { scopes: [...ALL_SCOPES] });
    for (const type of EVENT_TYPES) await triggerOf(key.key, type);
    expect(await allEvents(other)).toEqual(before.events);
    expect((await call(other, 'GET', '/properties?limit=100')).json).toEqual(before.properties);
    expect((await call(other, 'GET', '/locations?limit=100')).json).toEqual(before.locations);
  }, 120_000);

  test('property.distributed on a shown property withdraws it first; a key is answered the events it reads', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    await triggerOf(key.key, 'property.updated');
    const outcome = await triggerOf(key.key, 'property.distributed');
    const property = outcome.events.filter((event) => event.type.startsWith('property.')).map((event) => event.type);
    expect(property).toEqual(['property.withdrawn', 'property.distributed']);
    // The newly shown property's nights are announced too, but this key does not read availability.updated.
    expect(outcome.events.map((event) => event.type)).not.toContain('availability.updated');
  }, 60_000);

  test('webhook.ping: a signed ping to each active endpoint, not in the log', async () => {
    const { key } = await channelWithKey(ctx, { scopes: [...ALL_SCOPES] });
    const endpoint = (await call(key.key, 'POST', '/webhooks', { url: `${receiver.url}/ping`, events: ['owner.*'] }))
      .json as { id: string };
    const seen = receiver.received.length;
    const outcome = await triggerOf(key.key, 'webhook.ping');
    expect(outcome.events).toEqual([]);
    expect(outcome.cursor).toBeNull();
    expect(outcome.pings).toEqual([expect.objectContaining({ webhook_id: endpoint.id, delivered: true })]);
    const ping = (await receiver.waitFor(seen + 1)).find((r) => r.headers['webhook-id'] === outcome.pings[0]!.event_id);
    expect(JSON.parse(ping!.body)).toMatchObject({
      type: 'webhook.ping',
      data: { object: 'webhook', id: endpoint.id },
    });
    expect((await allEvents(key.key)).map((event) => event.type)).not.toContain('webhook.ping');
  });

  test('an unknown type: 400 invalid_parameters naming every valid one', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const res = await call(key.key, 'POST', '/sandbox/triggers', { type: 'property.exploded' });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    const [error] = res.json.errors as { pointer: string; detail: string }[];
    expect(error!.pointer).toBe('/type');
    for (const type of TRIGGER_TYPES) expect(error!.detail).toContain(type);
  });

  test('a type needs the scope that reads it: 403 insufficient_scope naming it', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const ari = await call(key.key, 'POST', '/sandbox/triggers', { type: 'availability.updated' });
    expectProblem(ari, 403, 'insufficient_scope', ['required_scopes']);
    expect(ari.json.required_scopes).toEqual(['read:ari']);
    const ping = await call(key.key, 'POST', '/sandbox/triggers', { type: 'webhook.ping' });
    expect(ping.json.required_scopes).toEqual(['manage:webhooks']);
  });
});
