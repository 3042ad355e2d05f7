import { describe, expect, test } from 'vitest';
import { attemptDelivery, notifyTechnicalContact, suspendEndpoint } from '../../services/webhook-attempts.ts';
import { createEndpoint } from '../../services/webhooks.ts';
import { recordingMailer, recordingSender, serviceStandIns } from '../support/service-stand-ins.ts';

// services/webhook-attempts.ts, what a delivery workflow's activities do, with its port in memory
// and the sender, the workflow client and the mailer recording.

async function setUp(statusCode: number | null = 200) {
  const standIns = serviceStandIns();
  const channel = standIns.db.channel({ name: 'acme', technicalContactEmail: 'ops@acme.example' });
  const { endpoint } = await createEndpoint(
    standIns.deps,
    { channel, key: { scopes: ['read:catalog', 'read:ari'] } },
    { url: 'https://acme.example/hook', events: ['*'], description: null },
  );
  const receiver = recordingSender(statusCode);
  const deps = { ...standIns.deps, webhookSender: receiver.sender };
  const delivery = standIns.db.delivery({ id: 'dlv-1', endpointId: endpoint.id, eventId: 'evt-1', attempts: 2 });
  return { ...standIns, channel, endpoint, receiver, deps, delivery };
}

describe('one attempt', () => {
  test('a 2xx delivers: the attempt is recorded with the next number and the delivery is complete', async () => {
    const { deps, db, receiver, endpoint } = await setUp(204);
    await expect(attemptDelivery(deps, 'dlv-1')).resolves.toEqual({
      outcome: 'delivered',
      statusCode: 204,
      attempt: 3,
    });
    expect(receiver.sent).toEqual([{ endpointId: endpoint.id, eventId: 'evt-1' }]);
    expect(db.tables.attempts).toEqual([{ deliveryId: 'dlv-1', number: 3, statusCode: 204, error: null }]);
    expect(db.tables.deliveries[0]).toMatchObject({ state: 'delivered', attempts: 3 });
  });

  test('another answer fails the attempt and leaves the delivery pending; a 410 is gone', async () => {
    const { deps, db, receiver } = await setUp(500);
    await expect(attemptDelivery(deps, 'dlv-1')).resolves.toEqual({
      outcome: 'failed',
      statusCode: 500,
      attempt: 3,
      error: 'http_status',
    });
    expect(db.tables.deliveries[0]).toMatchObject({ state: 'pending', attempts: 3 });
    receiver.answer.statusCode = 410;
    await expect(attemptDelivery(deps, 'dlv-1')).resolves.toMatchObject({ outcome: 'gone', attempt: 4 });
  });

  test('a delivery that no longer exists, or has ended, is answered without a POST', async () => {
    const { deps, db, receiver } = await setUp();
    await expect(attemptDelivery(deps, 'dlv-gone')).resolves.toEqual({
      outcome: 'cancelled',
      statusCode: null,
      attempt: 0,
    });
    db.tables.deliveries[0]!.state = 'delivered';
    await expect(attemptDelivery(deps, 'dlv-1')).resolves.toMatchObject({ outcome: 'delivered', statusCode: null });
    db.tables.deliveries[0]!.state = 'cancelled';
    await expect(attemptDelivery(deps, 'dlv-1')).resolves.toMatchObject({ outcome: 'cancelled', statusCode: null });
    expect(receiver.sent).toEqual([]);
  });

  test('an inactive endpoint, a suspended channel or held webhooks cancel the delivery without a POST', async () => {
    for (const stop of ['endpoint', 'channel', 'webhooks'] as const) {
      const { deps, db, receiver, endpoint, channel, clock } = await setUp();
      if (stop === 'endpoint') db.endpoint(endpoint.id).status = 'inactive';
      if (stop === 'channel') channel.status = 'suspended';
      if (stop === 'webhooks') channel.webhooksSuspendedAt = clock.now();
      await expect(attemptDelivery(deps, 'dlv-1'), stop).resolves.toMatchObject({ outcome: 'cancelled', attempt: 2 });
      expect(db.tables.deliveries[0]!.state, stop).toBe('cancelled');
      expect(receiver.sent, stop).toEqual([]);
    }
  });
});

describe('suspension', () => {
  test("suspends the endpoint once and cancels its other pending deliveries and their workflows, not the failing one's", async () => {
    const { deps, db, endpoint, workflowCalls } = await setUp();
    db.delivery({ id: 'dlv-2', endpointId: endpoint.id, eventId: 'evt-2' });
    workflowCalls.length = 0;
    expect(await suspendEndpoint(deps, endpoint.id, 'failing', 'dlv-1')).toBe(true);
    expect(db.endpoint(endpoint.id)).toMatchObject({ status: 'inactive', suspendedReason: 'failing' });
    expect(db.tables.deliveries.map((d) => [d.id, d.state])).toEqual([
      ['dlv-1', 'pending'],
      ['dlv-2', 'cancelled'],
    ]);
    expect(workflowCalls).toEqual([
      { name: 'cancelWebhookDeliveries', args: [[{ endpointId: endpoint.id, eventId: 'evt-2' }]] },
    ]);
    // A second delivery failing meanwhile finds it suspended: only the first tells the contact.
    expect(await suspendEndpoint(deps, endpoint.id, 'gone', 'dlv-2')).toBe(false);
    expect(db.endpoint(endpoint.id).suspendedReason).toBe('failing');
  });

  test('the technical contact is e-mailed the endpoint, its URL without query and the reason', async () => {
    const { deps, endpoint, mail } = await setUp();
    await expect(notifyTechnicalContact(deps, endpoint.id, 'gone')).resolves.toEqual({ sent: true });
    expect(mail.sent).toHaveLength(1);
    expect(mail.sent[0]).toMatchObject({ to: 'ops@acme.example', subject: expect.stringContaining(endpoint.id) });
    expect(mail.sent[0]!.text).toContain('Reason:     gone');
  });

  test('without a contact or without SMTP nobody is told, and the operators are (a warning)', async () => {
    const { deps, endpoint, mail, channel, logLines } = await setUp();
    const unconfigured = recordingMailer({ unconfigured: true });
    await expect(
      notifyTechnicalContact({ ...deps, mailer: unconfigured.mailer }, endpoint.id, 'failing'),
    ).resolves.toEqual({
      sent: false,
    });
    channel.technicalContactEmail = null;
    await expect(notifyTechnicalContact(deps, endpoint.id, 'failing')).resolves.toEqual({ sent: false });
    expect(mail.sent).toEqual([]);
    expect(logLines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'webhook endpoint suspended; no SMTP configured to tell the technical contact',
      'webhook endpoint suspended; the channel has no technical contact to tell',
    ]);
  });
});
