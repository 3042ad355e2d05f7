import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { beforeAll, expect, test } from 'vitest';
import { newWebhookSecret, signedHeaders, verifyWebhook } from '../../clients/channel-kit/src/index.ts';
import { selfSignedCertificate } from '../../infra/tls.ts';
import {
  ignoringRetryAfter,
  neverReadingAvailability,
  readsAvailability,
  resigned,
  startFront,
} from '../support/broken-channels.ts';
import { fetchTrusting } from '../support/channel-kit.ts';
import { onCleanup } from '../support/cleanup.ts';

/** The pieces the certify test breaks the reference app with, each doing the one wrong thing it is for. */

let tls: { cert: string; key: string };
let target: string;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

beforeAll(async () => {
  tls = await selfSignedCertificate({ dns: ['localhost'], ips: ['127.0.0.1'] });
  const server = https.createServer(tls, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(202, { 'x-from': 'target' }).end('taken');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  target = `https://localhost:${(server.address() as AddressInfo).port}`;
});

function answers(...statuses: number[]) {
  const seen: number[] = [];
  const fetch = (input: Request | string | URL) => {
    seen.push(Date.now());
    const status = statuses.shift() ?? 200;
    void input;
    return Promise.resolve(new Response(status === 429 ? null : '{}', { status, headers: { 'retry-after': '30' } }));
  };
  return { fetch, seen };
}

test('ignoringRetryAfter sends a 429 again after about a second, whatever Retry-After says, up to its times', async () => {
  const { fetch, seen } = answers(429, 429, 200);
  const response = await ignoringRetryAfter(fetch, { waitMs: 50 })('https://api.test/properties/prp_1');
  expect(response.status).toBe(200);
  expect(seen).toHaveLength(3);
  expect(seen[2]! - seen[0]!).toBeLessThan(2000);

  const stubborn = answers(429, 429, 429, 429);
  expect((await ignoringRetryAfter(stubborn.fetch, { waitMs: 10, times: 2 })('https://api.test/x')).status).toBe(429);
  expect(stubborn.seen).toHaveLength(3);
});

test('neverReadingAvailability answers reads of availability with an empty last page, and passes the rest on', async () => {
  const { fetch, seen } = answers(200);
  const wrapped = neverReadingAvailability(fetch);
  for (const url of [
    'https://api.test/d/availability?property_id=prp_1',
    'https://api.test/d/properties/prp_1/availability',
  ]) {
    const answer = await wrapped(url);
    expect(await answer.json()).toEqual({ data: [], next_cursor: null });
  }
  expect(seen).toEqual([]);
  expect((await wrapped('https://api.test/d/properties/prp_1')).status).toBe(200);
  expect(seen).toHaveLength(1);
  expect(readsAvailability(new Request('https://api.test/d/availability', { method: 'POST' }))).toBe(false);
});

test('a re-signing front makes a body signed with any secret verify with the real one, at its own timestamp', async () => {
  const real = newWebhookSecret();
  const front = await startFront({ target, ca: tls.cert, tls, rewrite: resigned(real) });
  const body = JSON.stringify({ id: 'evt_1', type: 'webhook.ping', created_at: new Date().toISOString(), data: {} });
  const at = new Date(Date.now() - 600_000);
  const headers = signedHeaders([newWebhookSecret()], 'msg_1', at, body);
  const answer = await fetchTrusting(tls.cert)(`${front.url}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  expect(answer.status).toBe(202);
  expect(answer.headers.get('x-from')).toBe('target');
  expect(await answer.text()).toBe('taken');
  const forwarded = received.at(-1)!;
  expect(forwarded.body).toBe(body);
  expect(forwarded.headers['webhook-timestamp']).toBe(headers['webhook-timestamp']);
  expect(forwarded.headers['webhook-signature']).not.toBe(headers['webhook-signature']);
  // Stale as sent: the receiver's tolerance still refuses it, the signature no longer does.
  expect(() => verifyWebhook(body, forwarded.headers, [real])).toThrow(/timestamp/i);
  const fresh = signedHeaders([newWebhookSecret()], 'msg_2', new Date(), body);
  await fetchTrusting(tls.cert)(`${front.url}/webhooks`, { method: 'POST', headers: fresh, body });
  expect(verifyWebhook(body, received.at(-1)!.headers, [real]).id).toBe('evt_1');
});

test('a late front forwards at once and answers only after its delay', async () => {
  const front = await startFront({ target, ca: tls.cert, tls, delayMs: 700 });
  const before = received.length;
  const started = Date.now();
  const answer = fetchTrusting(tls.cert)(`${front.url}/webhooks`, { method: 'POST', body: 'x' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(received.length).toBe(before + 1);
  expect((await answer).status).toBe(202);
  expect(Date.now() - started).toBeGreaterThanOrEqual(690);
});
