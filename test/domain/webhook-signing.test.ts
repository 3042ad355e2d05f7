import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { generateWebhookSecret, signWebhook, verifyWebhook, webhookHeaders } from '../../domain/webhooks/signing.ts';
import { nodeHmac } from '../../infra/webhook-sender.ts';

// The "sign function works" vector of standard-webhooks/standard-webhooks,
// libraries/javascript/src/webhook.test.ts (the same one Svix's libraries test against).
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

function nodeSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

describe('signWebhook', () => {
  test('reproduces the Standard Webhooks reference vector', async () => {
    await expect(
      signWebhook({ id: vector.id, timestamp: vector.timestamp, body: vector.body, secrets: [vector.secret] }),
    ).resolves.toBe(vector.signature);
  });

  test('agrees with node:crypto for a generated secret and a non-ASCII body', async () => {
    const secret = generateWebhookSecret();
    const input = { id: 'evt_01hzz', timestamp: 1_767_225_600, body: '{"name":"Casa Mărului","emoji":"🏡"}' };
    await expect(signWebhook({ ...input, secrets: [secret] })).resolves.toBe(
      nodeSignature(secret, input.id, input.timestamp, input.body),
    );
  });

  test("with the worker's HMAC (Node's, synchronous), reproduces the reference vector and signs once per secret", async () => {
    const other = generateWebhookSecret();
    const input = { id: vector.id, timestamp: vector.timestamp, body: vector.body };
    await expect(signWebhook({ ...input, secrets: [vector.secret] }, nodeHmac)).resolves.toBe(vector.signature);
    await expect(signWebhook({ ...input, secrets: [other, vector.secret] }, nodeHmac)).resolves.toBe(
      `${nodeSignature(other, vector.id, vector.timestamp, vector.body)} ${vector.signature}`,
    );
  });

  test('signs once per secret, space separated, in the order given', async () => {
    const other = generateWebhookSecret();
    const header = await signWebhook({
      id: vector.id,
      timestamp: vector.timestamp,
      body: vector.body,
      secrets: [other, vector.secret],
    });
    expect(header.split(' ')).toEqual([
      nodeSignature(other, vector.id, vector.timestamp, vector.body),
      vector.signature,
    ]);
  });

  test.each([
    ['no secrets', { secrets: [] as string[] }],
    ['a secret without prefix', { secrets: ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }],
    ['a secret that is not base64', { secrets: ['whsec_not*base64'] }],
    ['an empty key', { secrets: ['whsec_'] }],
    ['a fractional timestamp', { timestamp: 1614265330.5 }],
    ['a negative timestamp', { timestamp: -1 }],
  ])('refuses %s', async (_name, override) => {
    await expect(
      signWebhook({
        id: vector.id,
        timestamp: vector.timestamp,
        body: vector.body,
        secrets: [vector.secret],
        ...override,
      }),
    ).rejects.toThrow();
  });
});

describe('webhookHeaders', () => {
  test('produces the three Standard Webhooks headers', async () => {
    await expect(
      webhookHeaders({ id: vector.id, timestamp: vector.timestamp, body: vector.body, secrets: [vector.secret] }),
    ).resolves.toEqual({
      'webhook-id': vector.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': vector.signature,
    });
  });
});

describe('generateWebhookSecret', () => {
  test('is whsec_ plus base64 of 32 random bytes', () => {
    const secrets = new Set(Array.from({ length: 20 }, generateWebhookSecret));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    }
  });
});

describe('verifyWebhook', () => {
  const headers = {
    'webhook-id': vector.id,
    'webhook-timestamp': String(vector.timestamp),
    'webhook-signature': vector.signature,
  };
  const base = { headers, body: vector.body, secret: vector.secret, nowSeconds: vector.timestamp };

  test('accepts the reference vector, also beside other entries', async () => {
    await expect(verifyWebhook(base)).resolves.toBe(true);
    const crowded = {
      ...headers,
      'webhook-signature': `v1,bm9wZQ== v2,${vector.signature.slice(3)} ${vector.signature}`,
    };
    await expect(verifyWebhook({ ...base, headers: crowded })).resolves.toBe(true);
  });

  test('accepts up to five minutes of skew', async () => {
    await expect(verifyWebhook({ ...base, nowSeconds: vector.timestamp + 300 })).resolves.toBe(true);
    await expect(verifyWebhook({ ...base, nowSeconds: vector.timestamp - 300 })).resolves.toBe(true);
  });

  test.each([
    ['a changed body', { body: '{"test": 2432232315}' }],
    ['another secret', { secret: 'whsec_' + Buffer.alloc(32, 1).toString('base64') }],
    ['a timestamp too old', { nowSeconds: vector.timestamp + 301 }],
    ['a timestamp too new', { nowSeconds: vector.timestamp - 301 }],
    ['a changed id', { headers: { ...headers, 'webhook-id': 'msg_other' } }],
    ['a non-numeric timestamp', { headers: { ...headers, 'webhook-timestamp': 'hello' } }],
    ['a truncated signature', { headers: { ...headers, 'webhook-signature': vector.signature.slice(0, 8) } }],
    ['an empty v1 entry', { headers: { ...headers, 'webhook-signature': 'v1,' } }],
    [
      'the right signature under v2',
      { headers: { ...headers, 'webhook-signature': `v2,${vector.signature.slice(3)}` } },
    ],
    ['garbage', { headers: { ...headers, 'webhook-signature': 'v1,!!!' } }],
  ])('refuses %s', async (_name, override) => {
    await expect(verifyWebhook({ ...base, ...override })).resolves.toBe(false);
  });
});
