import { describe, expect, test } from 'vitest';
import type { Channel } from '../../db/channels.ts';
import { MAX_ENDPOINTS, SECRET_OVERLAP_MS } from '../../domain/webhooks/endpoints.ts';
import { ProblemError } from '../../domain/problems.ts';
import {
  createEndpoint,
  deleteEndpoint,
  enableEndpoint,
  rotateEndpointSecret,
  setChannelWebhooksSuspended,
} from '../../services/webhooks.ts';
import { serviceStandIns } from '../support/service-stand-ins.ts';

// services/webhooks.ts with its port in memory and the workflow client and ping sender recording:
// the endpoint rules of docs/contract.md, each read in a few lines.

const CATALOG_KEY = { scopes: ['read:catalog'] };
const EVERY_KEY = { scopes: ['read:catalog', 'read:ari'] };

function setUp(options: Parameters<typeof serviceStandIns>[0] = {}) {
  const standIns = serviceStandIns(options);
  const channel = standIns.db.channel({ name: 'acme', technicalContactEmail: 'ops@acme.example' });
  const register = (url: string, key = EVERY_KEY, on: Channel = channel) =>
    createEndpoint(standIns.deps, { channel: on, key }, { url, events: ['*'], description: null });
  return { ...standIns, channel, register };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error, 'the call was refused').toBeInstanceOf(ProblemError);
  return (error as ProblemError).code;
}

describe('registering an endpoint', () => {
  test('a channel whose webhooks the platform holds registers nothing (webhooks_suspended_by_platform)', async () => {
    const { db, channel, register, clock } = setUp();
    const held = { ...channel, webhooksSuspendedAt: clock.now() };
    expect(await refusal(register('https://acme.example/hook', EVERY_KEY, held))).toBe(
      'webhooks_suspended_by_platform',
    );
    expect(db.tables.endpoints).toEqual([]);
  });

  test('a key that does not cover every subscribed event type is refused (insufficient_scope)', async () => {
    const { db, register } = setUp();
    expect(await refusal(register('https://acme.example/hook', CATALOG_KEY))).toBe('insufficient_scope');
    expect(db.tables.endpoints).toEqual([]);
  });

  test('a URL the channel has registered already is refused (webhook_endpoint_exists)', async () => {
    const { db, register } = setUp();
    await register('https://acme.example/hook');
    expect(await refusal(register('https://acme.example/hook'))).toBe('webhook_endpoint_exists');
    expect(db.tables.endpoints).toHaveLength(1);
  });

  test(`a channel holds at most ${MAX_ENDPOINTS} live endpoints; a deleted one frees its place`, async () => {
    const { db, register, deps, channel } = setUp();
    const made = [];
    for (let i = 1; i <= MAX_ENDPOINTS; i += 1) made.push(await register(`https://acme.example/hook/${i}`));
    expect(await refusal(register('https://acme.example/one-more'))).toBe('webhook_endpoint_limit_reached');
    expect(db.tables.endpoints).toHaveLength(MAX_ENDPOINTS);
    await deleteEndpoint(deps, channel, made[0]!.endpoint.id);
    await expect(register('https://acme.example/one-more')).resolves.toMatchObject({ endpoint: { status: 'active' } });
  });

  test('the limit is counted under the channel lock; the first endpoint starts the dispatch; the secret is stored sealed', async () => {
    const { db, register, channel } = setUp();
    const { endpoint, secret } = await register('https://acme.example/hook');
    expect(db.locks).toEqual([`channel:${channel.id}`]);
    expect(db.tables.dispatchStarted).toEqual([channel.id]);
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint.secret).not.toBeNull();
    expect(endpoint.secret).not.toContain(secret.slice('whsec_'.length));
  });

  test('an endpoint is sent only what the log holds after its registration', async () => {
    const { db, register, channel } = setUp();
    db.tables.logEnd[channel.id] = 41;
    const { endpoint } = await register('https://acme.example/hook');
    expect(db.endpoint(endpoint.id).resumeAfter).toBe(41);
  });
});

describe('rotating the secret', () => {
  test('the previous secret keeps signing for the overlap, and a workflow is started to destroy it then', async () => {
    const { register, deps, channel, clock, workflowCalls } = setUp();
    const { endpoint: before } = await register('https://acme.example/hook');
    const { endpoint } = await rotateEndpointSecret(deps, channel, before.id, { expireImmediately: false });
    expect(endpoint.previousSecret).toBe(before.secret);
    expect(endpoint.previousSecretExpiresAt).toEqual(new Date(clock.now().getTime() + SECRET_OVERLAP_MS));
    expect(endpoint.secretGeneration).toBe(before.secretGeneration + 1);
    expect(workflowCalls).toEqual([
      {
        name: 'startSecretRotation',
        args: [{ endpointId: before.id, generation: 2, overlapMs: SECRET_OVERLAP_MS }, 'acme'],
      },
    ]);
  });

  test('expire_immediately drops the previous secret at once and starts no workflow', async () => {
    const { register, deps, channel, workflowCalls } = setUp();
    const { endpoint: before } = await register('https://acme.example/hook');
    const { endpoint } = await rotateEndpointSecret(deps, channel, before.id, { expireImmediately: true });
    expect(endpoint.previousSecret).toBeNull();
    expect(endpoint.previousSecretExpiresAt).toBeNull();
    expect(workflowCalls).toEqual([]);
  });

  test('when the workflow cannot be started, no new secret is installed', async () => {
    const { register, deps, channel, db } = setUp({
      workflows: {
        startSecretRotation: () => Promise.reject(new Error('Temporal unreachable')),
      },
    });
    const { endpoint: before } = await register('https://acme.example/hook');
    await expect(rotateEndpointSecret(deps, channel, before.id, { expireImmediately: false })).rejects.toThrow(
      'Temporal unreachable',
    );
    expect(db.endpoint(before.id)).toMatchObject({ secret: before.secret, previousSecret: null, secretGeneration: 1 });
  });

  test("another channel's endpoint, or none, is not_found", async () => {
    const { register, deps, db } = setUp();
    const { endpoint } = await register('https://acme.example/hook');
    const other = db.channel({ name: 'other' });
    expect(await refusal(rotateEndpointSecret(deps, other, endpoint.id, { expireImmediately: false }))).toBe(
      'not_found',
    );
  });
});

describe('enabling an inactive endpoint', () => {
  async function inactive(standIns: ReturnType<typeof setUp>) {
    const { endpoint } = await standIns.register('https://acme.example/hook');
    Object.assign(standIns.db.endpoint(endpoint.id), { status: 'inactive', suspendedReason: 'failing' });
    return endpoint;
  }

  test('only after the endpoint accepts a ping (2xx); it then resumes at the end of the log', async () => {
    const standIns = setUp();
    const { deps, channel, db, ping } = standIns;
    const endpoint = await inactive(standIns);
    db.tables.logEnd[channel.id] = 97;
    const enabled = await enableEndpoint(deps, channel, endpoint.id);
    expect(ping.sent).toEqual([{ endpointId: endpoint.id, eventId: expect.stringMatching(/^evt_/) }]);
    expect(enabled).toMatchObject({ status: 'active', suspendedReason: null });
    expect(db.endpoint(endpoint.id).resumeAfter).toBe(97);
  });

  test('a ping it does not accept leaves it inactive (webhook_endpoint_still_failing)', async () => {
    const standIns = setUp();
    const endpoint = await inactive(standIns);
    standIns.ping.answer.statusCode = 503;
    expect(await refusal(enableEndpoint(standIns.deps, standIns.channel, endpoint.id))).toBe(
      'webhook_endpoint_still_failing',
    );
    expect(standIns.db.endpoint(endpoint.id).status).toBe('inactive');
  });

  test('while the platform holds the webhooks, nothing is pinged and the endpoint stays inactive', async () => {
    const standIns = setUp();
    const endpoint = await inactive(standIns);
    const held = { ...standIns.channel, webhooksSuspendedAt: standIns.clock.now() };
    expect(await refusal(enableEndpoint(standIns.deps, held, endpoint.id))).toBe('webhooks_suspended_by_platform');
    expect(standIns.ping.sent).toEqual([]);
    expect(standIns.db.endpoint(endpoint.id).status).toBe('inactive');
  });

  test('an active endpoint is answered as it is, without a ping', async () => {
    const { register, deps, channel, ping } = setUp();
    const { endpoint } = await register('https://acme.example/hook');
    await expect(enableEndpoint(deps, channel, endpoint.id)).resolves.toMatchObject({ status: 'active' });
    expect(ping.sent).toEqual([]);
  });
});

describe('deleting and holding', () => {
  test("deleting an endpoint destroys its secrets and cancels its pending deliveries and their workflows, not another's", async () => {
    const { register, deps, channel, db, workflowCalls } = setUp();
    const { endpoint } = await register('https://acme.example/hook');
    const { endpoint: kept } = await register('https://acme.example/other');
    db.delivery({ id: 'dlv-1', endpointId: endpoint.id, eventId: 'evt-1' });
    db.delivery({ id: 'dlv-2', endpointId: endpoint.id, eventId: 'evt-2', state: 'delivered' });
    db.delivery({ id: 'dlv-3', endpointId: kept.id, eventId: 'evt-3' });
    await deleteEndpoint(deps, channel, endpoint.id);
    expect(db.endpoint(endpoint.id)).toMatchObject({ status: 'deleted', secret: null, previousSecret: null });
    expect(db.tables.deliveries.map((d) => [d.id, d.state])).toEqual([
      ['dlv-1', 'cancelled'],
      ['dlv-2', 'delivered'],
      ['dlv-3', 'pending'],
    ]);
    expect(workflowCalls).toEqual([
      { name: 'cancelWebhookDeliveries', args: [[{ endpointId: endpoint.id, eventId: 'evt-1' }]] },
    ]);
  });

  test('a malformed or unknown id is not_found and deletes nothing', async () => {
    const { deps, channel, workflowCalls } = setUp();
    expect(await refusal(deleteEndpoint(deps, channel, 'not-an-id'))).toBe('not_found');
    expect(await refusal(deleteEndpoint(deps, channel, 'whk_01jz0000000000000000000000'))).toBe('not_found');
    expect(workflowCalls).toEqual([]);
  });

  test("the platform's hold cancels every pending delivery of the channel; lifting it cancels nothing", async () => {
    const { register, deps, db, workflowCalls, clock } = setUp();
    const { endpoint } = await register('https://acme.example/hook');
    db.delivery({ id: 'dlv-1', endpointId: endpoint.id, eventId: 'evt-1' });
    const held = await setChannelWebhooksSuspended(deps, 'acme', true);
    expect(held?.webhooksSuspendedAt).toEqual(clock.now());
    expect(db.tables.deliveries[0]!.state).toBe('cancelled');
    expect(workflowCalls.map((call) => call.name)).toEqual(['cancelWebhookDeliveries']);
    const lifted = await setChannelWebhooksSuspended(deps, 'acme', false);
    expect(lifted?.webhooksSuspendedAt).toBeNull();
    expect(workflowCalls).toHaveLength(1);
    expect(await setChannelWebhooksSuspended(deps, 'nobody', true)).toBeNull();
  });
});
