import type { MikroORM } from '@mikro-orm/postgresql';
import tls from 'node:tls';
import { beforeAll, describe, expect, test } from 'vitest';
import { clientKey } from '../../api/middleware/client-address.ts';
import { systemClock } from '../../domain/clock.ts';
import { generateApiKey } from '../../domain/api-keys.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi, TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { request } from '../support/https-client.ts';
import { expectProblem } from '../support/problems.ts';
import { devServerClient } from '../support/temporal.ts';

const CHANNEL = '/api/v1/distribution/channel';
const ORGANIZATION = '/internal/v1/organizations/org-1';
let orm: MikroORM;
let api: TestApi;

beforeAll(async () => {
  ({ api, orm } = await apiTestBed({ clock: systemClock }));
});

/** A fresh database per limiter test, so no other test's failures count. */
async function strictApi(env: Record<string, string>) {
  return (await apiTestBed({ clock: systemClock, env: { AUTH_FAILURE_LIMIT: '3', ...env } })).api;
}

describe('client address behind a proxy', () => {
  test.each([['1'], ['127.0.0.1/32']])(
    'TRUST_PROXY=%s: rotating the X-Forwarded-For the client writes does not escape the failed-authentication limit',
    async (trust) => {
      const proxied = await strictApi({ TRUST_PROXY: trust });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        // What a proxy that appends the peer it saw (203.0.113.7) forwards for a client that wrote its own value.
        const forwarded = `198.51.100.${i}, 203.0.113.7`;
        statuses.push(
          (
            await proxied.call('GET', CHANNEL, {
              key: generateApiKey('sandbox'),
              headers: { 'x-forwarded-for': forwarded },
            })
          ).status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      // Another client behind the same proxy is counted apart.
      expectProblem(
        await proxied.call('GET', CHANNEL, { headers: { 'x-forwarded-for': '203.0.113.8' } }),
        401,
        'missing_api_key',
      );
    },
  );

  test('a forwarded address that is no address (200 characters) is counted, in one bucket, never a 500', async () => {
    const bed = await apiTestBed({ clock: systemClock, env: { TRUST_PROXY: '1', AUTH_FAILURE_LIMIT: '1000' } });
    for (const forwarded of [
      'x'.repeat(200),
      `${'1'.repeat(120)}, ${'a:'.repeat(100)}`,
      '203.0.113.7, ' + 'f'.repeat(200),
    ]) {
      expectProblem(
        await bed.api.call('GET', CHANNEL, { headers: { 'x-forwarded-for': forwarded } }),
        401,
        'missing_api_key',
      );
    }
    const counted = await bed.orm.em
      .fork()
      .execute<{ bucket: string; n: number }[]>(
        `select bucket, sum(count)::int as n from request_counter where bucket like 'auth-fail:%' group by bucket`,
      );
    expect(counted).toEqual([{ bucket: 'auth-fail:unparsable', n: 3 }]);
  });

  test('IPv6 clients are counted by their /64', async () => {
    const proxied = await strictApi({ TRUST_PROXY: '1' });
    const statuses: number[] = [];
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::9', '2001:DB8:1:2:0:0:0:abcd']) {
      statuses.push((await proxied.call('GET', CHANNEL, { headers: { 'x-forwarded-for': address } })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await proxied.call('GET', CHANNEL, { headers: { 'x-forwarded-for': '2001:db8:1:3::1' } })).status).toBe(
      401,
    );
  });

  test('the integration interface counts failed tokens by the same client key: IPv6 by /64, a non-address never a 500', async () => {
    const proxied = await strictApi({ TRUST_PROXY: '1' });
    const guests = '/api/v1/integration/guests';
    const statuses: number[] = [];
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::9', '2001:DB8:1:2:0:0:0:abcd']) {
      statuses.push((await proxied.call('GET', guests, { headers: { 'x-forwarded-for': address } })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await proxied.call('GET', guests, { headers: { 'x-forwarded-for': 'x'.repeat(200) } })).status).toBe(401);
  });

  test('the bucket key: IPv4 as is, IPv6 by /64, anything else one bucket', () => {
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('2001:0db8:0001:0002:0003:0004:0005:0006')).toBe('2001:db8:1:2::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('x'.repeat(200))).toBe('unparsable');
    expect(clientKey(undefined)).toBe('unknown');
  });
});

describe('the platform interface', () => {
  test('wrong platform tokens count against the failed-authentication limit', async () => {
    const strict = await strictApi({});
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await strict.call('GET', ORGANIZATION, { key: `wrong-token-${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  test('with INTERNAL_PORT it is served only on its own listener, and the public one answers 404', async () => {
    const split = await startTestApi({
      orm,
      temporal: await devServerClient(),
      clock: systemClock,
      env: { INTERNAL_PORT: '0' },
    });
    expect(split.internalUrl).toBeDefined();
    const internal = (path: string, method = 'GET', body?: unknown) =>
      request(split.internalUrl!, split.ca, method, path, {
        headers: { authorization: `Bearer ${TEST_PLATFORM_TOKEN}` },
        ...(body ? { body } : {}),
      });
    const organization = '/internal/v1/organizations/org-split';
    expect((await internal(organization, 'PUT', { name: 'Split Org', country: 'RO' })).status).toBeLessThan(300);
    expect((await internal(organization)).status).toBe(200);
    expectProblem(await split.call('GET', organization, { key: TEST_PLATFORM_TOKEN }), 404, 'not_found');
    expectProblem(
      await split.call('PUT', organization, { key: TEST_PLATFORM_TOKEN, body: { name: 'Split Org', country: 'RO' } }),
      404,
      'not_found',
    );
    expectProblem(await internal(CHANNEL), 404, 'not_found');
    expectProblem(await internal('/docs'), 404, 'not_found');
    expect((await internal('/health/live')).status).toBe(200);
    // A wrong token on the internal listener is refused as on the shared one.
    expectProblem(
      await request(split.internalUrl!, split.ca, 'GET', ORGANIZATION, { headers: { authorization: 'Bearer nope' } }),
      401,
      'platform_token_invalid',
    );
    expectProblem(await split.call('GET', CHANNEL), 401, 'missing_api_key');
  });
});

describe('bodies are read only after authentication', () => {
  test('malformed JSON without credentials is 401, not 400, on both interfaces', async () => {
    const bad = { rawBody: '{"url":', headers: { 'content-type': 'application/json' } };
    expectProblem(await api.call('POST', '/api/v1/distribution/webhooks', bad), 401, 'missing_api_key');
    expectProblem(await api.call('PUT', ORGANIZATION, bad), 401, 'platform_token_invalid');
    expectProblem(
      await api.call('POST', '/api/v1/distribution/webhooks', {
        rawBody: 'url=x',
        headers: { 'content-type': 'text/plain' },
      }),
      401,
      'missing_api_key',
    );
  });

  test('the distribution interface takes bodies up to 64 KiB; the platform interface up to 1 MiB', async () => {
    const { key } = await channelWithKey(adminContext(orm, await devServerClient(), systemClock), {
      scopes: ['manage:webhooks'],
    });
    const padding = 'x'.repeat(70 * 1024);
    expectProblem(
      await api.call('POST', '/api/v1/distribution/webhooks', {
        key: key.key,
        body: { url: 'https://partner.example/hook', padding },
      }),
      413,
      'payload_too_large',
    );
    const platform = await api.call('PUT', ORGANIZATION, {
      key: TEST_PLATFORM_TOKEN,
      body: { name: 'Org', country: 'RO', padding },
    });
    expect(platform.status).not.toBe(413);
    expectProblem(
      await api.call('PUT', ORGANIZATION, { key: TEST_PLATFORM_TOKEN, body: { padding: 'x'.repeat(1100 * 1024) } }),
      413,
      'payload_too_large',
    );
  });
});

describe('caching', () => {
  test('authenticated answers and refusals say no-store', async () => {
    const { key } = await channelWithKey(adminContext(orm, await devServerClient(), systemClock));
    const ok = await api.call('GET', CHANNEL, { key: key.key });
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(
      (await api.call('GET', CHANNEL, { key: key.key, headers: { 'if-none-match': ok.headers.etag! } })).headers[
        'cache-control'
      ],
    ).toBe('no-store');
    expect((await api.call('GET', CHANNEL)).headers['cache-control']).toBe('no-store');
    const platform = await api.call('GET', ORGANIZATION, { key: TEST_PLATFORM_TOKEN });
    expect(platform.headers['cache-control']).toBe('no-store');
  });
});

describe('pages', () => {
  test('/docs renders from this origin only: its policy, nosniff, no framing, and its assets', async () => {
    const page = await api.call('GET', '/docs');
    expect(page.status).toBe(200);
    const csp = page.headers['content-security-policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline|https?:/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // No inline script, and every asset it loads is on this origin and served.
    expect(page.text).not.toMatch(/<script>(?!<\/script>)|<script[^>]*>[^<]+<\/script>/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1]!)
      .filter((a) => a.startsWith('/docs'));
    expect(assets.sort()).toEqual(['/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']);
    expect(page.text).not.toMatch(/(?:src|href)="https?:/);
    for (const asset of assets) {
      const res = await api.call('GET', asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers['content-type'], asset).toMatch(
        asset.endsWith('.css') ? /^text\/css/ : /^(?:text|application)\/javascript/,
      );
      expect(res.headers['x-content-type-options'], asset).toBe('nosniff');
    }
  });

  test('problem pages allow only their own inline style, and are framed by no one', async () => {
    const { createHash } = await import('node:crypto');
    const page = await api.call('GET', '/problems/api-key-revoked');
    const style = /<style>([^<]*)<\/style>/.exec(page.text)![1]!;
    const csp = page.headers['content-security-policy']!;
    expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('TLS', () => {
  const handshake = (options: tls.ConnectionOptions) =>
    new Promise<string>((resolve) => {
      const { port } = new URL(api.url);
      const socket = tls.connect(
        { host: '127.0.0.1', port: Number(port), ca: api.ca, servername: 'localhost', ...options },
        () => {
          resolve(socket.getCipher().name);
          socket.destroy();
        },
      );
      socket.on('error', () => resolve('refused'));
    });

  test('a client offering only CBC suites is refused; AEAD suites are accepted', async () => {
    for (const cipher of ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA', 'ECDHE-ECDSA-AES128-SHA256']) {
      expect(await handshake({ maxVersion: 'TLSv1.2', ciphers: cipher }), cipher).toBe('refused');
    }
    expect(await handshake({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).toBe(
      'ECDHE-ECDSA-AES128-GCM-SHA256',
    );
    expect(await handshake({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-CHACHA20-POLY1305' })).toBe(
      'ECDHE-ECDSA-CHACHA20-POLY1305',
    );
    expect(await handshake({ minVersion: 'TLSv1.3' })).toMatch(/^TLS_/);
  });
});

describe('readiness', () => {
  test('one check answers every caller for a few seconds, so /health cannot be used to load the dependencies', async () => {
    const clock = new TestClock();
    const own = await startTestApi({ orm, temporal: await devServerClient(), clock });
    const first = await own.call('GET', '/health');
    clock.advance(4000);
    const second = await own.call('GET', '/health');
    expect(second.json.checked_at).toBe(first.json.checked_at);
    clock.advance(1000);
    const third = await own.call('GET', '/health');
    expect(third.status).toBe(200);
    expect(third.json.checked_at).not.toBe(first.json.checked_at);
  });
});
