import { beforeAll, describe, expect, test } from 'vitest';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { openApiDocument } from '../../api/openapi/document.ts';
import {
  createChannelClient,
  isProblem,
  ProblemError,
  type ChannelClient,
} from '../../clients/channel-kit/src/index.ts';
import { TEST_PLATFORM_TOKEN } from '../support/api.ts';
import { kitClient, startKitService, type TestFetch } from '../support/channel-kit.ts';
import { channelWithKey } from '../support/fixtures.ts';

/**
 * Every operation of the distribution interface's description, called through the kit's typed
 * client against the real service; and what the client adds to openapi-fetch: the key, problems
 * as `ProblemError`, the ETag cache and pages that overlap.
 */

let service: Awaited<ReturnType<typeof startKitService>>;
const called = new Set<string>();
const operations = Object.entries(openApiDocument('https://distribution.test', 'sandbox').paths).flatMap(
  ([path, item]) => Object.keys(item).map((method) => `${method} ${path}`),
);

/** A client of a fresh channel whose every request is counted against the description's operations. */
async function channelClient(scopes: NonNullable<Parameters<typeof channelWithKey>[1]>['scopes'], options = {}) {
  const { channel, key } = await channelWithKey(service.ctx, { scopes, ...options });
  const client = kitClient(service.api, key.key, { fetch: service.fetch });
  client.use({
    onRequest({ request, schemaPath }) {
      called.add(`${request.method.toLowerCase()} ${schemaPath}`);
      return undefined;
    },
  });
  return { client, channel, key: key.key };
}

const ALL_SCOPES = ['read:catalog', 'read:ari', 'manage:webhooks', 'write:listings'] as const;
let main: Awaited<ReturnType<typeof channelClient>>;
let client: ChannelClient;

beforeAll(async () => {
  service = await startKitService('channel-kit-client');
  main = await channelClient([...ALL_SCOPES]);
  client = main.client;
  const { host } = service;
  await host.organization('ck-org');
  await host.owner('ck-own', { organization: 'ck-org', display_name: 'Kit Owner' });
  await host.location('ck-loc', { organization: 'ck-org', owner: 'ck-own' });
  for (const ref of ['ck-p1', 'ck-p2', 'ck-p3']) {
    await host.property(ref, { location: 'ck-loc', owner: 'ck-own' });
    await host.distribute(ref, [main.channel.name]);
  }
});

async function firstProperty(of: ChannelClient = client) {
  for await (const property of of.paginate('/properties')) return property;
  throw new Error('no property is published to the channel');
}

describe('reads', () => {
  test('the channel, every list page after page, one property, availability, a quote, the key set and the description', async () => {
    const { data: channel } = await client.GET('/channel');
    expect(channel!.channel).toBe(main.channel.name);

    for (const path of ['/locations', '/owners', '/properties', '/amenities'] as const) {
      const items = [];
      for await (const item of client.paginate(path, { params: { query: { limit: 1 } } })) items.push(item);
      expect(items.length, path).toBeGreaterThan(0);
    }
    const property = await firstProperty();
    const { data: one } = await client.GET('/properties/{property_id}', {
      params: { path: { property_id: property.id } },
    });
    expect(one).toEqual(property);

    const nights = [];
    for await (const record of client.paginate('/availability', { params: { query: { property_id: property.id } } }))
      if ('data' in record) nights.push(...record.data); // a tombstone comes only with updated_since
    expect(nights.length).toBeGreaterThanOrEqual(365);

    const arrival = nights[10]!.date;
    const departure = nights[12]!.date;
    const { data: quotes } = await client.GET('/quotes', {
      params: { query: { property_id: property.id, arrival, departure, adults: 2 } },
    });
    expect(Array.isArray(quotes!.data)).toBe(true);

    const { data: keys } = await client.GET('/owner-connect/keys');
    expect(Array.isArray(keys!.keys)).toBe(true);
    const { data: description } = await client.GET('/openapi.json');
    expect(description!.info.version).toBe(openApiDocument('https://distribution.test', 'sandbox').info.version);
    const { data: changelog } = await client.GET('/CHANGELOG.md', { parseAs: 'text' });
    expect(changelog).toContain(`## ${description!.info.version}`);

    const events = [];
    for await (const event of client.paginate('/events')) events.push(event);
    expect(events.map((event) => event.type)).toContain('property.distributed');
  });
});

describe('webhook endpoints', () => {
  test('registered, listed, read, pinged, rotated, enabled, their deliveries read, and deleted', async () => {
    const { data: endpoint } = await client.POST('/webhooks', {
      body: { url: `${service.receiver.url}/kit`, events: ['property.*'], description: 'kit' },
    });
    expect(endpoint!.secret).toMatch(/^whsec_/);
    const webhook_id = endpoint!.id;
    const { data: listed } = await client.GET('/webhooks');
    expect(listed!.data.map((e) => e.id)).toContain(webhook_id);
    const { data: read } = await client.GET('/webhooks/{webhook_id}', { params: { path: { webhook_id } } });
    expect(read!.url).toBe(`${service.receiver.url}/kit`);

    const { data: ping } = await client.POST('/webhooks/{webhook_id}/test', { params: { path: { webhook_id } } });
    expect(ping!.delivered).toBe(true);
    const { data: rotated } = await client.POST('/webhooks/{webhook_id}/rotate-secret', {
      params: { path: { webhook_id } },
      body: { expire_immediately: true },
    });
    expect(rotated!.secret).not.toBe(endpoint!.secret);
    const { data: enabled } = await client.POST('/webhooks/{webhook_id}/enable', { params: { path: { webhook_id } } });
    expect(enabled!.status).toBe('active');

    // A change after registration is delivered; its delivery is listed, then read.
    const before = service.receiver.received.length;
    await service.host.property('ck-p1', { location: 'ck-loc', owner: 'ck-own', units: 2 });
    await service.receiver.waitFor(before + 1, 30_000);
    let deliveries: { id: string }[] = [];
    for (let tries = 0; deliveries.length === 0 && tries < 50; tries += 1) {
      deliveries = [];
      for await (const delivery of client.paginate('/webhooks/{webhook_id}/deliveries', {
        params: { path: { webhook_id } },
      }))
        deliveries.push(delivery);
      if (deliveries.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(deliveries.length).toBeGreaterThan(0);
    const { data: delivery } = await client.GET('/webhooks/{webhook_id}/deliveries/{delivery_id}', {
      params: { path: { webhook_id, delivery_id: deliveries[0]!.id } },
    });
    expect(delivery!.id).toBe(deliveries[0]!.id);

    const { response } = await client.DELETE('/webhooks/{webhook_id}', { params: { path: { webhook_id } } });
    expect(response.status).toBe(204);
  });
});

describe('listing reports and owner connect', () => {
  test('a report is put and read back; statistics are accepted', async () => {
    const property = await firstProperty();
    const { data: put } = await client.PUT('/properties/{property_id}/listing', {
      params: { path: { property_id: property.id } },
      body: { status: 'published', public_url: 'https://channel.example/p/1', promoted: false, rejection: null },
    });
    expect(put!.status).toBe('published');
    const { data: read } = await client.GET('/properties/{property_id}/listing', {
      params: { path: { property_id: property.id } },
    });
    expect(read!.public_url).toBe('https://channel.example/p/1');
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const { data: stats } = await client.POST('/listing-stats', {
      body: { data: [{ property_id: property.id, date: yesterday, views: 10, clicks_to_booking: 1 }] },
    });
    expect(stats).toEqual({ accepted: 1 });
  });

  test("a host's owner-connect token confirms a connection, which is then removed", async () => {
    const minted = await service.api.call('POST', '/internal/v1/owners/ck-own/owner-connect', {
      key: TEST_PLATFORM_TOKEN,
      body: { channel: main.channel.name },
      headers: { accept: 'application/json' },
    });
    expect(minted.status, minted.text).toBe(200);
    const property = await firstProperty();
    if (!('owner_id' in property)) throw new Error('the first property is a tombstone');
    const owner_id = property.owner_id;
    const { data: connection } = await client.PUT('/owners/{owner_id}/connection', {
      params: { path: { owner_id } },
      body: { token: minted.json.token as string },
    });
    expect(connection!.owner_id).toBe(owner_id);
    const { response } = await client.DELETE('/owners/{owner_id}/connection', { params: { path: { owner_id } } });
    expect(response.status).toBe(204);
  });
});

describe('sandbox tools', () => {
  test('a trigger, the request log, fast retries, attempt now and a window ended, each through the typed client', async () => {
    const { data: triggered } = await client.POST('/sandbox/triggers', { body: { type: 'property.updated' } });
    expect(triggered!.events.map((event) => event.type)).toContain('property.updated');
    // A request's record is written after its answer: read the log until the trigger's is there.
    const logged = async () => {
      for (let tries = 0; tries < 50; tries += 1) {
        const { data: requests } = await client.GET('/sandbox/requests', { params: { query: { limit: 10 } } });
        const paths = requests!.data.map((request) => request.path);
        if (paths.includes(`${DISTRIBUTION_BASE}/sandbox/triggers`)) return paths;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return expect.fail("the trigger's request never appeared in the log");
    };
    expect(await logged()).toContain(`${DISTRIBUTION_BASE}/sandbox/triggers`);

    const { data: endpoint } = await client.POST('/webhooks', {
      body: { url: `${service.receiver.url}/kit-fast`, events: ['property.*'] },
    });
    const webhook_id = endpoint!.id;
    const { data: fast } = await client.PUT('/sandbox/webhooks/{webhook_id}/fast-retries', {
      params: { path: { webhook_id } },
      body: { enabled: true },
    });
    expect(fast!.enabled).toBe(true);
    const { data: read } = await client.GET('/sandbox/webhooks/{webhook_id}/fast-retries', {
      params: { path: { webhook_id } },
    });
    expect(read).toEqual(fast);
    const { data: hurried } = await client.POST('/sandbox/deliveries/attempt-now', { body: { webhook_id } });
    expect(Array.isArray(hurried!.hurried)).toBe(true);
    await client.DELETE('/webhooks/{webhook_id}', { params: { path: { webhook_id } } });

    const refusal = await client.POST('/sandbox/owner-connect/expire', { body: { token: 'not.a.token' } }).then(
      () => expect.fail('a token that is not one was taken'),
      (error: unknown) => error as ProblemError,
    );
    expect([refusal.status, refusal.code]).toEqual([400, 'invalid_owner_connect_token']);
  });
});

describe('certification', () => {
  test('a start refused for an endpoint not subscribed to *, the runs listed, an unknown run not found', async () => {
    const { data: endpoint } = await client.POST('/webhooks', {
      body: { url: `${service.receiver.url}/kit-certify`, events: ['property.*'] },
    });
    const refusal = await client.POST('/sandbox/certifications', { body: { webhook_id: endpoint!.id } }).then(
      () => expect.fail('a run of an endpoint not subscribed to * was started'),
      (error: unknown) => error as ProblemError,
    );
    expect([refusal.status, refusal.code]).toEqual([409, 'certification_not_possible']);
    await client.DELETE('/webhooks/{webhook_id}', { params: { path: { webhook_id: endpoint!.id } } });

    const { data: runs } = await client.GET('/sandbox/certifications', { params: { query: { limit: 5 } } });
    expect(runs!.data).toEqual([]);
    const unknown = await client
      .GET('/sandbox/certifications/{certification_id}', { params: { path: { certification_id: 'crt_unknown' } } })
      .then(
        () => expect.fail('a run that does not exist was read'),
        (error: unknown) => error as ProblemError,
      );
    expect([unknown.status, unknown.code]).toEqual([404, 'not_found']);
  });
});

describe('what the kit adds', () => {
  test('a refusal is thrown as a ProblemError carrying its code, status and details', async () => {
    const refused = (call: Promise<unknown>) =>
      call.then(
        () => expect.fail('the call was not refused'),
        (error: unknown) => {
          expect(error).toBeInstanceOf(ProblemError);
          return error as ProblemError;
        },
      );
    const invalid = await refused(client.GET('/properties', { params: { query: { limit: 501 } } }));
    expect([invalid.status, invalid.code]).toEqual([400, 'invalid_parameters']);
    expect(invalid.errors).toEqual([expect.objectContaining({ parameter: 'limit', code: 'max' })]);
    expect(invalid.request_id).toMatch(/^[0-9a-f-]{36}$/);

    const reader = await channelClient(['read:catalog']);
    const scope = await refused(reader.client.GET('/availability'));
    expect([scope.status, scope.code, scope.required_scopes]).toEqual([403, 'insufficient_scope', ['read:ari']]);
    const missing = await refused(
      client.GET('/properties/{property_id}', { params: { path: { property_id: 'prp_0aaaaaaaaaaaaaaaaaaaaaaaaa' } } }),
    );
    expect(isProblem(missing, 'not_found')).toBe(true);
    const stranger = kitClient(service.api, `${main.key.slice(0, -1)}${main.key.endsWith('x') ? 'y' : 'x'}`, {
      fetch: service.fetch,
    });
    expect((await refused(stranger.GET('/channel'))).code).toBe('invalid_api_key');

    // A third ping while two are in flight is refused 429; a Retry-After longer than the client
    // waits is not waited for.
    const { data: endpoint } = await client.POST('/webhooks', {
      body: { url: `${service.receiver.url}/held`, events: ['property.*'] },
    });
    const webhook_id = endpoint!.id;
    const impatient = kitClient(service.api, main.key, { fetch: service.fetch, retries: { maxDelaySeconds: 0 } });
    service.receiver.hold();
    const before = service.receiver.received.length;
    const inFlight = [1, 2].map(() =>
      impatient.POST('/webhooks/{webhook_id}/test', { params: { path: { webhook_id } } }),
    );
    try {
      // Both pings are at the receiver, unanswered.
      for (let waited = 0; ; waited += 50) {
        const held = service.receiver.received.slice(before).filter((r) => r.path === '/hooks/held');
        if (held.length >= 2) break;
        if (waited > 10_000) throw new Error(`${held.length} of 2 pings reached the receiver`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const over = await refused(impatient.POST('/webhooks/{webhook_id}/test', { params: { path: { webhook_id } } }));
      expect([over.status, over.code]).toEqual([429, 'rate_limited']);
      expect(over.retryAfter).toBeGreaterThan(0);
    } finally {
      service.receiver.release();
      await Promise.all(inFlight);
    }
    await client.DELETE('/webhooks/{webhook_id}', { params: { path: { webhook_id } } });
  });

  test('with the ETag cache a repeated GET is answered 304 and served from what was kept', async () => {
    const statuses: number[] = [];
    const counting: TestFetch = async (input, init) => {
      const response = await service.fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const cached = kitClient(service.api, main.key, { fetch: counting, etagCache: true });
    const first = await cached.GET('/properties', { params: { query: { limit: 2 } } });
    const second = await cached.GET('/properties', { params: { query: { limit: 2 } } });
    expect(statuses).toEqual([200, 304]);
    expect(second.response.status).toBe(200);
    expect(second.data).toEqual(first.data);
    expect(second.response.headers.get('request-id')).not.toBe(first.response.headers.get('request-id'));
  });

  test("pages: the next page is asked for as soon as a page's Link names it, and cancelled when the walk stops", async () => {
    const asked: string[] = [];
    const aborted: string[] = [];
    const watching: TestFetch = (input, init) => {
      const request = input as Request;
      const cursor = new URL(request.url).searchParams.get('cursor') ?? 'first';
      asked.push(cursor);
      request.signal.addEventListener('abort', () => aborted.push(cursor));
      return service.fetch(input, init);
    };
    const walker = kitClient(service.api, main.key, { fetch: watching });
    const ids = [];
    for await (const property of walker.paginate('/properties', { params: { query: { limit: 1 } } })) {
      ids.push(property.id);
      break;
    }
    expect(ids).toHaveLength(1);
    // The second page was on its way before the first page's record reached the loop.
    expect(asked).toHaveLength(2);
    expect(aborted).toEqual([asked[1]]);

    asked.length = 0;
    const all = [];
    for await (const property of walker.paginate('/properties', { params: { query: { limit: 1 } } }))
      all.push(property.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(new Set(all).size).toBe(all.length);
    expect(asked).toHaveLength(all.length);
  });
  test('a base URL that is not https:// is refused as the client is made: no request, the key nowhere', async () => {
    const sent: string[] = [];
    const recording: TestFetch = (input) => {
      sent.push((input as Request).url);
      return Promise.resolve(Response.json({ channel: 'anyone on the path' }));
    };
    for (const baseUrl of [
      `${service.api.plainUrl}${DISTRIBUTION_BASE}`,
      'HTTP://api.example/api/v1/distribution',
      'api.example/api/v1/distribution',
    ]) {
      const refusal = await (async () =>
        createChannelClient({ baseUrl, key: main.key, fetch: recording }).GET('/channel'))().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal, baseUrl).toBeInstanceOf(TypeError);
      expect((refusal as Error).message).toMatch(/^createChannelClient: baseUrl .*https:\/\//);
      expect((refusal as Error).message).not.toContain(main.key);
    }
    expect(sent).toEqual([]);
  });
});

test('every operation of the description was called through the typed client', () => {
  const missed = operations.filter((op) => !called.has(op));
  console.log(`operations covered ${operations.length - missed.length} / ${operations.length}`);
  expect(missed).toEqual([]);
  expect(DISTRIBUTION_BASE).toBe('/api/v1/distribution');
});
