import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { base64url, decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, test } from 'vitest';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { signingKeyForToken } from '../../services/owner-connect/signing-keys.ts';
import {
  MemoryJtiStore,
  OwnerConnectTokenError,
  verifyOwnerConnectToken,
  verifyWebhook,
  WebhookVerificationError,
  type ChannelClient,
  type OwnerConnectOptions,
  type OwnerConnectRefusal,
  type WebhookEvent,
  type WebhookRefusal,
} from '../../clients/channel-kit/src/index.ts';
import type { ReceivedRequest } from '../support/receiver.ts';
import { TEST_PLATFORM_TOKEN } from '../support/api.ts';
import { description, forValidation } from '../support/openapi-validator.ts';
import { kitClient, startKitService } from '../support/channel-kit.ts';
import { channelWithKey } from '../support/fixtures.ts';

/**
 * The kit's verifiers on what the real service sends: webhooks it delivers to a receiver on this
 * machine, and owner-connect tokens it mints; and on forgeries of both.
 */

let service: Awaited<ReturnType<typeof startKitService>>;
let channel: { name: string };
let client: ChannelClient;

beforeAll(async () => {
  service = await startKitService('channel-kit-verifiers');
  const made = await channelWithKey(service.ctx, { scopes: ['read:catalog', 'read:ari', 'manage:webhooks'] });
  channel = made.channel;
  client = kitClient(service.api, made.key.key, { fetch: service.fetch });
  await service.host.organization('kv-org');
  await service.host.owner('kv-own', { organization: 'kv-org', display_name: 'Verified Owner' });
  await service.host.location('kv-loc', { organization: 'kv-org', owner: 'kv-own' });
});

/**
 * Whether a delivery is what the description's `webhooks` entry for its type says: the body by its
 * schema (objects closed, as for the interface's answers), the headers by their parameters.
 */
function describedDelivery(type: string, request: ReceivedRequest): string[] {
  const entry = description.webhooks?.[type]?.post;
  if (!entry) return [`no webhooks entry for ${type}`];
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajvFormats.default(ajv);
  ajv.addKeyword('example');
  ajv.addSchema(
    forValidation({ $id: 'https://distribution.test/openapi.json', $defs: description.components.schemas }),
  );
  const body = ajv.compile(forValidation(entry.requestBody!.content['application/json']!.schema));
  const problems = body(JSON.parse(request.body))
    ? []
    : (body.errors ?? []).map((e) => `body${e.instancePath} ${e.message}`);
  for (const parameter of entry.parameters ?? []) {
    if (!('name' in parameter)) continue;
    const value = request.headers[parameter.name];
    if (value === undefined || !ajv.validate(parameter.schema, value))
      problems.push(`header ${parameter.name}: ${value}`);
  }
  return problems;
}

function refusalOf(verify: () => unknown): WebhookRefusal | 'accepted' {
  try {
    verify();
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

/** The requests the receiver got at `path` from index `from` on, once there are `count`. */
async function deliveredTo(path: string, from: number, count: number): Promise<ReceivedRequest[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = service.receiver.received.slice(from).filter((r) => r.path === path);
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`${found.length} of ${count} deliveries to ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('verifyWebhook on real deliveries', () => {
  test('every event delivered verifies with the endpoint secret and comes out typed; a ping too', async () => {
    const path = '/hooks/verified';
    const { data: endpoint } = await client.POST('/webhooks', {
      body: { url: `${service.receiver.url.replace('/hooks', '')}${path}`, events: ['*'] },
    });
    const secret = endpoint!.secret!;
    const from = service.receiver.received.length;
    await service.host.property('kv-p1', { location: 'kv-loc', owner: 'kv-own' });
    await service.host.distribute('kv-p1', [channel.name]);
    // Publishing the property shows the channel its location and owner too; the four events
    // arrive in no particular order.
    const delivered = await deliveredTo(path, from, 4);

    const events: WebhookEvent[] = delivered.map((request) => verifyWebhook(request.body, request.headers, secret));
    expect(events.map((event) => event.type).sort()).toEqual([
      'availability.updated',
      'location.updated',
      'owner.updated',
      'property.distributed',
    ]);
    for (const [i, event] of events.entries()) {
      expect(describedDelivery(event.type, delivered[i]!), event.type).toEqual([]);
      expect(event.id).toBe(delivered[i]!.headers['webhook-id']);
      expect(event.channel).toBe(channel.name);
      switch (event.type) {
        case 'availability.updated':
          expect(event.data.from <= event.data.to).toBe(true);
          break;
        case 'property.distributed':
          expect(event.data.id).toMatch(/^prp_/);
          expect(event.data.version).toBeGreaterThanOrEqual(1);
          break;
        default:
          expect(['location.updated', 'owner.updated']).toContain(event.type);
      }
    }
    // The bytes as received verify too, as Node hands them over (a Buffer) or as a Uint8Array.
    const raw = delivered[0]!;
    expect(verifyWebhook(Buffer.from(raw.body), new Headers(raw.headers), [secret])).toEqual(events[0]);
    expect(verifyWebhook(new TextEncoder().encode(raw.body), raw.headers, secret)).toEqual(events[0]);

    const pingFrom = service.receiver.received.length;
    const { data: ping } = await client.POST('/webhooks/{webhook_id}/test', {
      params: { path: { webhook_id: endpoint!.id } },
    });
    const [pinged] = await deliveredTo(path, pingFrom, 1);
    const event = verifyWebhook(pinged!.body, pinged!.headers, secret);
    expect(describedDelivery('webhook.ping', pinged!)).toEqual([]);
    expect(event).toMatchObject({ type: 'webhook.ping', id: ping!.event_id, data: { object: 'webhook' } });
  });

  test('during a rotation either secret verifies; a wrong, altered, unsigned or stale delivery is refused for its rule', async () => {
    const path = '/hooks/rotated';
    const { data: endpoint } = await client.POST('/webhooks', {
      body: { url: `${service.receiver.url.replace('/hooks', '')}${path}`, events: ['property.*'] },
    });
    const previous = endpoint!.secret!;
    const { data: rotated } = await client.POST('/webhooks/{webhook_id}/rotate-secret', {
      params: { path: { webhook_id: endpoint!.id } },
    });
    const current = rotated!.secret!;
    const from = service.receiver.received.length;
    await service.host.property('kv-p1', { location: 'kv-loc', owner: 'kv-own', units: 4 });
    const [request] = await deliveredTo(path, from, 1);
    const { body, headers } = request!;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);

    expect(refusalOf(() => verifyWebhook(body, headers, current))).toBe('accepted');
    expect(refusalOf(() => verifyWebhook(body, headers, previous))).toBe('accepted');
    expect(refusalOf(() => verifyWebhook(body, headers, [current, previous]))).toBe('accepted');
    const stranger = `whsec_${Buffer.from('a secret nobody was given, 32 b').toString('base64')}`;
    expect(refusalOf(() => verifyWebhook(body, headers, stranger))).toBe('signature');
    expect(refusalOf(() => verifyWebhook(body.replace('property.', 'location.'), headers, current))).toBe('signature');
    expect(refusalOf(() => verifyWebhook(`${body} `, headers, current))).toBe('signature');
    const { 'webhook-signature': _signature, ...unsigned } = headers;
    expect(refusalOf(() => verifyWebhook(body, unsigned, current))).toBe('missing_header');
    // The same body signed with the right secret six minutes ago, and six minutes ahead.
    for (const minutes of [-6, 6]) {
      const at = new Date(Date.now() + minutes * 60_000);
      const stale = {
        ...headers,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(current).sign(headers['webhook-id']!, at, body),
      };
      expect(
        refusalOf(() => verifyWebhook(body, stale, current)),
        `${minutes} minutes`,
      ).toBe('timestamp');
    }
    expect(refusalOf(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': '12abc' }, current))).toBe(
      'timestamp',
    );
  });
});

describe('verifyOwnerConnectToken on real tokens', () => {
  let ownerId: string;

  beforeAll(async () => {
    await service.host.property('kv-p2', { location: 'kv-loc', owner: 'kv-own' });
    await service.host.distribute('kv-p2', [channel.name]);
    for await (const owner of client.paginate('/owners')) if ('display_name' in owner) ownerId = owner.id;
  });

  const options = (overrides: Partial<OwnerConnectOptions> = {}): OwnerConnectOptions => ({
    baseUrl: `${service.api.url}${DISTRIBUTION_BASE}`,
    audience: channel.name,
    issuer: service.api.config.publicOrigin,
    fetch: service.fetch,
    ...overrides,
  });

  async function mint(): Promise<string> {
    const res = await service.api.call('POST', '/internal/v1/owners/kv-own/owner-connect', {
      key: TEST_PLATFORM_TOKEN,
      body: { channel: channel.name },
      headers: { accept: 'application/json' },
    });
    expect(res.status, res.text).toBe(200);
    return res.json.token as string;
  }

  async function reason(
    token: string,
    overrides: Partial<OwnerConnectOptions> = {},
  ): Promise<OwnerConnectRefusal | 'accepted'> {
    try {
      await verifyOwnerConnectToken(token, options({ seenJti: new MemoryJtiStore(), ...overrides }));
      return 'accepted';
    } catch (error) {
      if (error instanceof OwnerConnectTokenError) return error.reason;
      throw error;
    }
  }

  test('a minted token verifies against the served key set, once', async () => {
    const token = await mint();
    const seen = new MemoryJtiStore();
    const claims = await verifyOwnerConnectToken(token, options({ seenJti: seen }));
    expect(claims).toMatchObject({ iss: service.api.config.publicOrigin, aud: channel.name, sub: ownerId });
    expect(claims.jti).toMatch(/^[0-9a-f]{32}$/);
    expect(claims.property_ids.length).toBeGreaterThan(0);
    expect(await reason(token, { seenJti: seen })).toBe('replayed');
    // The one-call form keeps its own memory of accepted tokens.
    const other = await mint();
    await verifyOwnerConnectToken(other, options());
    expect(await reason(other, { seenJti: undefined })).toBe('replayed');
  });

  test('a missing or empty audience is refused as the call is made, naming the option: aud is always checked', async () => {
    const token = await mint();
    for (const audience of [undefined, '']) {
      const refusal = await verifyOwnerConnectToken(
        token,
        options({ seenJti: new MemoryJtiStore(), audience: audience as unknown as string }),
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal, JSON.stringify(audience)).toBeInstanceOf(TypeError);
      expect((refusal as Error).message).toMatch(/^verifyOwnerConnectToken: .*audience/);
    }
  });

  test('a key set address that is not https:// is refused before it is fetched', async () => {
    const fetched: string[] = [];
    const recording = (url: string) => {
      fetched.push(url);
      return Promise.resolve(Response.json({ keys: [] }));
    };
    const token = await mint();
    const plainBase = `${service.api.plainUrl}${DISTRIBUTION_BASE}`;
    for (const [option, overrides] of [
      ['baseUrl', { baseUrl: plainBase }],
      ['jwksUrl', { jwksUrl: `${plainBase}/owner-connect/keys` }],
    ] as const) {
      const refusal = await verifyOwnerConnectToken(
        token,
        options({ seenJti: new MemoryJtiStore(), fetch: recording, ...overrides }),
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal, option).toBeInstanceOf(TypeError);
      expect((refusal as Error).message).toMatch(new RegExp(`^verifyOwnerConnectToken: ${option} .*https://`));
    }
    expect(fetched).toEqual([]);
  });

  test('forged tokens are refused, each for the check it breaks', async () => {
    const genuine = decodeJwt(await mint());
    const { kid, privateKey } = await signingKeyForToken(service.ctx, new Date());
    const now = Math.floor(Date.now() / 1000);
    const fresh = () => ({ ...genuine, jti: crypto.randomUUID().replaceAll('-', '') });
    const sign = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ: 'owner-connect+jwt', kid, ...header })
        .sign(privateKey);
    const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
    const stranger = await generateKeyPair('ES256');

    const good = await sign(fresh());
    const [head, , signature] = good.split('.');
    const forged: Record<string, [string, OwnerConnectRefusal | 'accepted', Partial<OwnerConnectOptions>?]> = {
      'the genuine claims, signed again': [good, 'accepted'],
      'alg none': [`${encode({ alg: 'none', typ: 'owner-connect+jwt', kid })}.${encode(fresh())}.`, 'alg'],
      'alg HS256': [
        await new SignJWT(fresh())
          .setProtectedHeader({ alg: 'HS256', typ: 'owner-connect+jwt', kid })
          .sign(new TextEncoder().encode('a shared secret of thirty-two bytes')),
        'alg',
      ],
      'typ JWT': [await sign(fresh(), { typ: 'JWT' }), 'typ'],
      'typ in capitals': [await sign(fresh(), { typ: 'OWNER-CONNECT+JWT' }), 'typ'],
      'unknown kid': [
        await new SignJWT(fresh())
          .setProtectedHeader({ alg: 'ES256', typ: 'owner-connect+jwt', kid: 'no-such-key' })
          .sign(stranger.privateKey),
        'kid',
      ],
      'bad signature: claims changed under the original one': [
        `${head}.${encode({ ...fresh(), property_ids: ['prp_0aaaaaaaaaaaaaaaaaaaaaaaaa'] })}.${signature}`,
        'signature',
      ],
      'bad signature: another key under the published kid': [
        await new SignJWT(fresh())
          .setProtectedHeader({ alg: 'ES256', typ: 'owner-connect+jwt', kid })
          .sign(stranger.privateKey),
        'signature',
      ],
      'wrong aud': [await sign({ ...fresh(), aud: 'another-channel' }), 'aud'],
      'wrong iss': [await sign({ ...fresh(), iss: 'https://elsewhere.example' }), 'iss'],
      expired: [await sign({ ...fresh(), iat: now - 400, exp: now - 100 }), 'exp'],
      'iat past the 60 seconds of skew': [await sign({ ...fresh(), iat: now + 61, exp: now + 361 }), 'iat'],
      'exp more than 300 seconds after iat': [await sign({ ...fresh(), exp: now + 3600 }), 'lifetime'],
      'jti of 64 bits': [await sign({ ...fresh(), jti: 'a1b2c3d4e5f60718' }), 'jti'],
      'no sub': [await sign({ ...fresh(), sub: undefined }), 'claims'],
      'not a JWS': ['definitely.not-a.token', 'malformed'],
    };
    // Verified at the instant the claims were written against: signing them all takes long enough
    // on a loaded machine to carry `iat: now + 61` back inside the skew.
    const at = { now: () => new Date(now * 1000) };
    const verdicts: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const [shape, [token, verdict, overrides]] of Object.entries(forged)) {
      verdicts[shape] = await reason(token, { ...at, ...overrides });
      expected[shape] = verdict;
    }
    expect(verdicts).toEqual(expected);
    // Within the 60 seconds of skew both ways, a token is accepted.
    expect(await reason(await sign({ ...fresh(), iat: now + 50, exp: now + 300 }), at)).toBe('accepted');
    expect(await reason(await sign({ ...fresh(), iat: now - 350, exp: now - 50 }), at)).toBe('accepted');
  });
});
