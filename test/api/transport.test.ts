import type { MikroORM } from '@mikro-orm/postgresql';
import tls from 'node:tls';
import http from 'node:http';
import { beforeAll, describe, expect, test } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { expectProblem } from '../support/problems.ts';
import { devServerClient } from '../support/temporal.ts';

let api: TestApi;
let orm: MikroORM;

beforeAll(async () => {
  ({ api, orm } = await apiTestBed({ clock: systemClock }));
});

function plainGet(
  url: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(new URL(path, url), { headers }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

describe('HTTPS only', () => {
  test('the plain-HTTP port refuses with https_required and never redirects', async () => {
    for (const path of ['/api/v1/distribution/channel', '/health', '/anything']) {
      const res = await plainGet(api.plainUrl, path, { authorization: 'Bearer svc_test_x' });
      expect(res.status).toBe(403);
      expect(res.headers.location).toBeUndefined();
      expect(res.json.code).toBe('https_required');
      expect(res.json.request_id).toBe(res.headers['request-id']);
    }
  });

  test('TLS below 1.2 is refused by the listener', async () => {
    const { port } = new URL(api.url);
    const outcome = await new Promise<string>((resolve) => {
      const socket = tls.connect({
        host: '127.0.0.1',
        port: Number(port),
        ca: api.ca,
        servername: 'localhost',
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
      });
      socket.on('secureConnect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', () => resolve('refused'));
    });
    expect(outcome).toBe('refused');
  });

  test('TLS 1.2 is accepted', async () => {
    const { port } = new URL(api.url);
    const protocol = await new Promise<string | null>((resolve, reject) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port: Number(port), ca: api.ca, servername: 'localhost', maxVersion: 'TLSv1.2' },
        () => {
          resolve(socket.getProtocol());
          socket.destroy();
        },
      );
      socket.on('error', reject);
    });
    expect(protocol).toBe('TLSv1.2');
  });

  test('behind a TLS-terminating proxy, X-Forwarded-Proto decides, and every hop must say https', async () => {
    const proxied = await startTestApi({
      orm,
      temporal: await devServerClient(),
      clock: systemClock,
      env: { TRUST_PROXY: '1' },
    });
    // A proxy that reached us over HTTPS from the client but says the client used http.
    expectProblem(
      await proxied.call('GET', '/api/v1/distribution/channel', { headers: { 'x-forwarded-proto': 'http' } }),
      403,
      'https_required',
    );
    expectProblem(
      await proxied.call('GET', '/api/v1/distribution/channel', { headers: { 'x-forwarded-proto': 'https' } }),
      401,
      'missing_api_key',
    );
    // A client that wrote `https` itself, in front of a proxy that appends what it saw.
    expectProblem(
      await proxied.call('GET', '/api/v1/distribution/channel', { headers: { 'x-forwarded-proto': 'https, http' } }),
      403,
      'https_required',
    );
  });
});

describe('GET /health', () => {
  test('200 when Postgres and Temporal answer', async () => {
    const res = await api.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'ok',
      checks: { postgres: 'ok', temporal: 'ok' },
      checked_at: expect.stringMatching(/Z$/),
    });
  });

  test('503 naming Temporal when it is out of reach', async () => {
    // A lazily connecting client to a port nothing listens on.
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 });
    const unreachable = await startTestApi({ orm, temporal: new Client({ connection }), clock: systemClock });
    const res = await unreachable.call('GET', '/health');
    expect(res.status).toBe(503);
    expect(res.json.checks).toEqual({ postgres: 'ok', temporal: 'unavailable' });
    // Liveness asks nothing of the dependencies.
    const alive = await unreachable.call('GET', '/health/live');
    expect(alive.status).toBe(200);
    expect(alive.json).toEqual({ status: 'ok' });
  });
});

describe('uniform answers', () => {
  test('an unknown path is 404 not_found, with or without a key', async () => {
    expectProblem(await api.call('GET', '/api/v1/distribution/nowhere'), 404, 'not_found');
    expectProblem(await api.call('GET', '/elsewhere', { key: 'svc_test_x' }), 404, 'not_found');
  });

  test('a known path with another method is 405 with Allow', async () => {
    const res = await api.call('DELETE', '/api/v1/distribution/channel');
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  test('from an authenticated caller, a body that is not JSON is 415, and malformed JSON is invalid_parameters', async () => {
    const { adminContext, channelWithKey } = await import('../support/fixtures.ts');
    const { key } = await channelWithKey(adminContext(orm, await devServerClient(), systemClock), {
      scopes: ['manage:webhooks'],
    });
    const res = await api.call('POST', '/api/v1/distribution/webhooks', {
      key: key.key,
      rawBody: 'url=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(res, 415, 'unsupported_media_type');
    const bad = await api.call('POST', '/api/v1/distribution/webhooks', {
      key: key.key,
      rawBody: '{"url":',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(bad, 400, 'invalid_parameters', ['errors']);
    expect(bad.json.errors).toEqual([{ detail: 'The body is not valid JSON', code: 'json', pointer: '' }]);
  });

  test('titles follow Accept-Language, machine fields do not', async () => {
    const en = await api.call('GET', '/api/v1/distribution/channel');
    const ro = await api.call('GET', '/api/v1/distribution/channel', {
      headers: { 'accept-language': 'ro-RO, en;q=0.5' },
    });
    expect(en.json.title).toBe('Missing API key');
    expect(ro.json.title).toBe('Cheie API lipsă');
    expect({ ...ro.json, title: 0, instance: 0, request_id: 0 }).toEqual({
      ...en.json,
      title: 0,
      instance: 0,
      request_id: 0,
    });
  });

  test('each problem type resolves to a description page', async () => {
    const res = await api.call('GET', '/problems/api-key-revoked');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('api_key_revoked');
    expectProblem(await api.call('GET', '/problems/nothing-here'), 404, 'not_found');
  });
});

describe('conditional reads', () => {
  test('a successful read carries a weak ETag and answers 304 to a matching If-None-Match', async () => {
    const { adminContext, channelWithKey } = await import('../support/fixtures.ts');
    const { key } = await channelWithKey(adminContext(orm, await devServerClient(), systemClock));
    const first = await api.call('GET', '/api/v1/distribution/channel', { key: key.key });
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    for (const header of [etag, etag.slice(2), `W/"other", ${etag}`, '*']) {
      const again = await api.call('GET', '/api/v1/distribution/channel', {
        key: key.key,
        headers: { 'if-none-match': header },
      });
      expect(again.status, header).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['ratelimit-remaining']).toBeDefined();
    }
    const changed = await api.call('GET', '/api/v1/distribution/channel', {
      key: key.key,
      headers: { 'if-none-match': 'W/"stale"' },
    });
    expect(changed.status).toBe(200);
  });

  test('refusals carry no validator', async () => {
    const res = await api.call('GET', '/api/v1/distribution/channel');
    expect(res.status).toBe(401);
    expect(res.headers.etag).toBeUndefined();
  });
});
