import diagnosticsChannel from 'node:diagnostics_channel';
import type { LookupAddress } from 'node:dns';
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredEndpoint } from '../../db/webhook-endpoints.ts';
import { singleKeyRing } from '../../domain/key-ring.ts';
import { outcomeOf } from '../../domain/webhooks/deliveries.ts';
import { webhookSecretBox, webhookSecretContext } from '../../infra/secret-box.ts';
import { postWebhook, type WebhookResponse, type WebhookTransportOptions } from '../../infra/webhook-http.ts';
import { createWebhookSender } from '../../infra/webhook-sender.ts';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  server: Server;
  port: number;
  requests: Seen[];
  connections: number;
  /** Per TLS connection, in order: whether it resumed an earlier session. */
  resumed: boolean[];
}

async function selfSignedFor(names: string[], ips: string[]) {
  return generate([{ name: 'commonName', value: names[0] ?? 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...names.map((value) => ({ type: 2 as const, value })),
          ...ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
}

const BIG_BODY = Buffer.alloc(1024 * 1024, 'a');
const slowTimers = new Set<NodeJS.Timeout>();
/** Called when a request to /never has arrived. */
const neverArrivals: (() => void)[] = [];

function handle(req: IncomingMessage, res: ServerResponse, body: string) {
  const path = req.url?.split('?')[0] ?? '';
  const status = /^\/status\/(\d{3})$/.exec(path);
  const redirect = /^\/redirect\/(\d{3})$/.exec(path);
  if (status) {
    res.writeHead(Number(status[1]), { 'content-type': 'text/plain' }).end(`failed with ${status[1]}`);
  } else if (redirect) {
    res.writeHead(Number(redirect[1]), { location: '/ok' }).end('moved');
  } else if (path === '/slow') {
    const timer = setTimeout(() => {
      slowTimers.delete(timer);
      res.writeHead(200).end('late');
    }, 2_000);
    slowTimers.add(timer);
  } else if (path === '/never') {
    // No answer at all; the connection is closed when the receiver stops.
    for (const arrival of neverArrivals.splice(0)) arrival();
  } else if (path === '/big') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(BIG_BODY);
  } else if (path === '/stall-body') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial');
  } else if (path === '/bad-utf8') {
    res.writeHead(200).end(Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x62, 0xc3]));
  } else if (path === '/emoji') {
    // 511 ASCII characters then a surrogate pair straddling the 512-character limit.
    res.writeHead(200).end(`${'x'.repeat(511)}😀tail`);
  } else if (path === '/empty') {
    res.writeHead(204).end();
  } else {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: body.length }));
  }
}

async function startReceiver(tlsMaterial: { cert: string; private: string }): Promise<Receiver> {
  const receiver: Receiver = {
    server: undefined as unknown as Server,
    port: 0,
    requests: [],
    connections: 0,
    resumed: [],
  };
  const server = createServer({ cert: tlsMaterial.cert, key: tlsMaterial.private }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      handle(req, res, body);
    });
  });
  server.on('connection', () => {
    receiver.connections += 1;
  });
  server.on('secureConnection', (socket: TLSSocket) => receiver.resumed.push(socket.isSessionReused()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.server = server;
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

async function stopReceiver(receiver: Receiver | undefined) {
  if (!receiver) return;
  receiver.server.closeAllConnections();
  await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
}

/** A resolver that answers fixed addresses and records the names it was asked about. */
function fixedLookup(addresses: string[]): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const fn: LookupFunction = (hostname, options, callback) => {
    calls.push(hostname);
    const list: LookupAddress[] = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    setImmediate(() => {
      if (options.all) callback(null, list);
      else callback(null, list[0]?.address ?? '', list[0]?.family ?? 4);
    });
  };
  return Object.assign(fn, { calls });
}

// Every TCP connection this process opens (TLS sockets included) is counted here.
let tcpConnects = 0;
const onClientSocket = (message: unknown) => {
  const { socket } = message as { socket: Socket };
  socket.once('connect', () => {
    tcpConnects += 1;
  });
};

let certs: { cert: string; private: string };
let receiver: Receiver;

beforeAll(async () => {
  diagnosticsChannel.subscribe('net.client.socket', onClientSocket);
  certs = await selfSignedFor(['localhost', 'receiver.localhost'], ['127.0.0.1']);
  receiver = await startReceiver(certs);
});

afterAll(async () => {
  diagnosticsChannel.unsubscribe('net.client.socket', onClientSocket);
  for (const timer of slowTimers) clearTimeout(timer);
  await stopReceiver(receiver);
});

beforeEach(() => {
  receiver.requests.length = 0;
  receiver.connections = 0;
  receiver.resumed.length = 0;
  tcpConnects = 0;
});

const local = (): WebhookTransportOptions => ({ allowLocal: true, ca: certs.cert });
const strict = (lookup?: LookupFunction): WebhookTransportOptions => ({
  allowLocal: false,
  ...(lookup ? { lookup } : {}),
});
const base = () => `https://127.0.0.1:${receiver.port}`;
const eventBody = JSON.stringify({
  id: 'evt_1',
  type: 'property.updated',
  data: { property_id: 'prp_1', name: 'Château' },
});
const signed = { 'webhook-id': 'evt_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc=' };

describe('postWebhook delivery', () => {
  it('delivers a 2xx with the exact body and headers, and captures the excerpt', async () => {
    const response = await postWebhook(`${base()}/hook?x=1`, signed, eventBody, local());
    expect(response).toMatchObject({
      statusCode: 200,
      error: null,
      excerpt: JSON.stringify({ received: eventBody.length }),
    });
    expect(Number.isInteger(response.durationMs)).toBe(true);
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.requests).toHaveLength(1);
    const seen = receiver.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/hook?x=1');
    expect(seen.body).toBe(eventBody);
    expect(seen.headers).toMatchObject({
      ...signed,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(eventBody)),
      'user-agent': 'distribution-service-webhooks/1',
      host: `127.0.0.1:${receiver.port}`,
    });
  });

  it('bounds the excerpt to 512 characters and stops reading a large body', async () => {
    const response = await postWebhook(`${base()}/big`, {}, '{}', local());
    expect(response.statusCode).toBe(200);
    expect(response.error).toBeNull();
    expect(response.excerpt).toBe('a'.repeat(512));
  });

  it('never splits a surrogate pair at the excerpt limit', async () => {
    const response = await postWebhook(`${base()}/emoji`, {}, '{}', local());
    expect(response.excerpt).toBe('x'.repeat(511));
  });

  it('replaces invalid UTF-8 and NUL in the excerpt; an empty body has none', async () => {
    const bad = await postWebhook(`${base()}/bad-utf8`, {}, '{}', local());
    expect(bad.excerpt).toBe('\uFFFD\uFFFDa\uFFFDb\uFFFD');
    const empty = await postWebhook(`${base()}/empty`, {}, '{}', local());
    expect(empty).toMatchObject({ statusCode: 204, error: null, excerpt: null });
  });

  it('reports other statuses as errors with their excerpt', async () => {
    expect(await postWebhook(`${base()}/status/500`, {}, '{}', local())).toMatchObject({
      statusCode: 500,
      error: 'http_status',
      detail: 'status 500',
      excerpt: 'failed with 500',
    });
    expect(await postWebhook(`${base()}/status/410`, {}, '{}', local())).toMatchObject({
      statusCode: 410,
      error: 'http_status',
    });
  });

  it.each([301, 302, 303, 307, 308])('does not follow a %i redirect', async (code) => {
    const response = await postWebhook(`${base()}/redirect/${code}`, {}, '{}', local());
    expect(response).toMatchObject({ statusCode: code, error: 'redirect_not_followed', detail: `status ${code}` });
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.url).toBe(`/redirect/${code}`);
  });

  it('times out a receiver that answers too late', async () => {
    const response = await postWebhook(`${base()}/slow`, {}, '{}', { ...local(), timeoutMs: 300 });
    expect(response).toMatchObject({ statusCode: null, error: 'timeout', excerpt: null });
    expect(response.durationMs).toBeGreaterThanOrEqual(290);
    expect(response.durationMs).toBeLessThan(1_500);
  });

  it('decides on the status line when the body stalls after it', async () => {
    const response = await postWebhook(`${base()}/stall-body`, {}, '{}', { ...local(), timeoutMs: 300 });
    expect(response).toMatchObject({ statusCode: 200, error: null, excerpt: 'partial' });
  });

  it('works with allowLocal and ca for a localhost receiver on a random port', async () => {
    const response = await postWebhook(`https://localhost:${receiver.port}/hook`, signed, eventBody, local());
    expect(response).toMatchObject({ statusCode: 200, error: null });
    expect(receiver.requests[0]!.headers.host).toBe(`localhost:${receiver.port}`);
  });

  it('resolves again at every delivery through the injected resolver', async () => {
    const lookup = fixedLookup(['127.0.0.1']);
    const url = `https://receiver.localhost:${receiver.port}/hook`;
    expect((await postWebhook(url, {}, '{}', { ...local(), lookup })).statusCode).toBe(200);
    expect((await postWebhook(url, {}, '{}', { ...local(), lookup })).statusCode).toBe(200);
    expect(lookup.calls).toEqual(['receiver.localhost', 'receiver.localhost']);
    expect(receiver.connections).toBe(2);
    expect(receiver.requests.map((seen) => seen.headers.host)).toEqual([
      `receiver.localhost:${receiver.port}`,
      `receiver.localhost:${receiver.port}`,
    ]);
  });

  it('connects afresh at every delivery and resumes the TLS session of the one before', async () => {
    const url = `https://localhost:${receiver.port}/hook`;
    for (let i = 0; i < 3; i += 1) expect((await postWebhook(url, {}, '{}', local())).statusCode).toBe(200);
    expect(receiver.connections).toBe(3);
    expect(receiver.resumed.slice(1)).toEqual([true, true]);
  });

  it('reports a refused connection and a failed lookup', async () => {
    const closed = await startReceiver(certs);
    const port = closed.port;
    await stopReceiver(closed);
    expect(await postWebhook(`https://127.0.0.1:${port}/`, {}, '{}', local())).toMatchObject({
      statusCode: null,
      error: 'connection_failed',
      detail: 'ECONNREFUSED',
    });
    const failing: LookupFunction = (_hostname, _options, callback) => {
      setImmediate(() => callback(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []));
    };
    expect(await postWebhook('https://receiver.example.com/hook', {}, '{}', strict(failing))).toMatchObject({
      statusCode: null,
      error: 'dns_failure',
      detail: 'ENOTFOUND for receiver.example.com',
    });
  });

  it('refuses headers the transport owns (a programming error)', async () => {
    await expect(postWebhook(`${base()}/hook`, { Host: 'evil.example.com' }, '{}', local())).rejects.toThrow(/host/);
    expect(receiver.connections).toBe(0);
  });
});

describe('postWebhook certificates', () => {
  it('fails TLS when the receiver certificate is not trusted (no ca)', async () => {
    const response = await postWebhook(`${base()}/hook`, {}, '{}', { allowLocal: true });
    expect(response.statusCode).toBeNull();
    expect(response.error).toBe('tls_failure');
    expect(receiver.requests).toHaveLength(0);
  });

  it('keeps host name verification when ca is given', async () => {
    const lookup = fixedLookup(['127.0.0.1']);
    const response = await postWebhook(`https://other.localhost:${receiver.port}/hook`, {}, '{}', {
      ...local(),
      lookup,
    });
    expect(response.statusCode).toBeNull();
    expect(response.error).toBe('tls_failure');
    expect(response.detail).toMatch(/^ERR_TLS_CERT_ALTNAME_INVALID/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('does not trust a certificate from another issuer than the given ca, a session verified under another trust or none', async () => {
    expect((await postWebhook(`${base()}/hook`, {}, '{}', local())).statusCode).toBe(200);
    expect((await postWebhook(`${base()}/hook`, {}, '{}', { allowLocal: true })).error).toBe('tls_failure');
    receiver.requests.length = 0;
    const other = await selfSignedFor(['localhost'], ['127.0.0.1']);
    const response = await postWebhook(`${base()}/hook`, {}, '{}', { allowLocal: true, ca: other.cert });
    expect(response.error).toBe('tls_failure');
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('postWebhook refusals (allowLocal false)', () => {
  afterEach(() => {
    // Nothing refused may ever reach a socket connection.
    expect(tcpConnects).toBe(0);
    expect(receiver.connections).toBe(0);
  });

  it('refuses the local receiver by address and by name without connecting', async () => {
    const byAddress = await postWebhook(`${base()}/hook`, {}, '{}', strict());
    expect(byAddress).toMatchObject({ statusCode: null, excerpt: null });
    expect(byAddress.error).toBe('url_not_allowed');
    const byName = await postWebhook(`https://localhost:${receiver.port}/hook`, {}, '{}', strict());
    expect(byName.error).toBe('url_not_allowed');
    const onPort443 = await postWebhook('https://127.0.0.1/hook', {}, '{}', strict());
    expect(onPort443).toMatchObject({ error: 'url_not_allowed', detail: 'address is not public (loopback)' });
  });

  it.each(['127.0.0.1', '10.1.2.3', '169.254.169.254', '::1', '::ffff:10.0.0.1', '100.64.0.1', '0.0.0.0'])(
    'refuses a name that resolves to %s (DNS rebinding)',
    async (address) => {
      const lookup = fixedLookup([address]);
      const response = await postWebhook('https://receiver.example.com/hook', signed, eventBody, strict(lookup));
      expect(response).toMatchObject({
        statusCode: null,
        error: 'address_not_allowed',
        detail: `receiver.example.com resolved to ${address}`,
        excerpt: null,
      });
      expect(lookup.calls).toEqual(['receiver.example.com']);
    },
  );

  // Policy: every answer must be allowed. A name mixing public and private answers is refused as a
  // whole, whichever comes first, so neither the first pick nor a fallback can reach the private one.
  it.each([
    [['93.184.216.34', '10.0.0.7'], '10.0.0.7'],
    [['10.0.0.7', '93.184.216.34'], '10.0.0.7'],
    [['2606:4700::1111', '::1'], '::1'],
    [['93.184.216.34', '2606:4700::1111', 'fd00::1'], 'fd00::1'],
  ])('refuses mixed answers %j', async (addresses, refused) => {
    const response = await postWebhook('https://receiver.example.com/hook', {}, '{}', strict(fixedLookup(addresses)));
    expect(response).toMatchObject({
      statusCode: null,
      error: 'address_not_allowed',
      detail: `receiver.example.com resolved to ${refused}`,
    });
  });

  it('refuses private answers beside loopback even with allowLocal', async () => {
    const lookup = fixedLookup(['127.0.0.1', '10.0.0.1']);
    const response = await postWebhook(`https://receiver.localhost:${receiver.port}/hook`, {}, '{}', {
      ...local(),
      lookup,
    });
    expect(response).toMatchObject({
      error: 'address_not_allowed',
      detail: 'receiver.localhost resolved to 10.0.0.1',
    });
  });

  it.each(['https://10.0.0.7/', 'https://[fd00::1]/', 'https://169.254.169.254/', 'https://0.0.0.0/'])(
    'refuses the private literal %s even with allowLocal',
    async (url) => {
      const response = await postWebhook(url, {}, '{}', { allowLocal: true });
      expect(response.error).toMatch(/^(url_not_allowed|address_not_allowed)$/);
    },
  );

  // Hostile URLs. Each is tried with a resolver that would hand out the local receiver, so a URL check
  // that let one through would show up as a lookup call or a connection.
  const hostileUrls = [
    'http://receiver.example.com/hook',
    'ftp://receiver.example.com/hook',
    'https://receiver.example.com:8443/hook',
    'https://receiver.example.com:80/hook',
    'https://receiver.example.com:444/',
    'https://user@receiver.example.com/hook',
    'https://user:pass@receiver.example.com/hook',
    'https://@receiver.example.com/hook',
    'https://localhost/',
    'https://localhost./',
    'https://LOCALHOST/',
    'https://api.localhost/',
    'https://metadata.google.internal/',
    'https://printer.local/',
    'https://router.home.arpa/',
    'https://intranet/',
    'https://receiver/',
    'https://127.0.0.1/',
    'https://127.0.0.1./',
    'https://127.1/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.0.0.1/',
    'https://0x7f000001/',
    'https://017700000001/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[0:0:0:0:0:0:0:1]/',
    'https://[::]/',
    'https://[fe80::1]/',
    'https://[fd12:3456::1]/',
    'https://[ff02::1]/',
    'https://[64:ff9b::a00:1]/',
    'https://[::ffff:169.254.169.254]/',
    'https://10.0.0.1/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.0.1/',
    'https://198.18.0.1/',
    'https://192.0.2.1/',
    'https://224.0.0.1/',
    'https://239.255.255.250/',
    'https://255.255.255.255/',
    'https://0.0.0.0/',
    'https://0/',
    'https://240.0.0.1/',
    'https://receiver.example.com/hook#fragment',
    'not a url',
    `https://${'a'.repeat(2050)}.com/`,
  ];

  it.each(hostileUrls)('refuses the hostile URL %s without looking it up', async (url) => {
    const lookup = fixedLookup(['127.0.0.1']);
    const response = await postWebhook(url, signed, eventBody, strict(lookup));
    expect(response.statusCode).toBeNull();
    expect(response.excerpt).toBeNull();
    expect(response.error).toMatch(/^(url_not_allowed|address_not_allowed)$/);
    expect(lookup.calls).toEqual([]);
  });

  // Public-looking names whose resolver answers are hostile.
  const hostileAnswers: Array<[string, string[]]> = [
    ['https://127.0.0.1.nip.io/', ['127.0.0.1']],
    ['https://receiver.example.com/', ['127.0.0.2']],
    ['https://receiver.example.com/', ['10.0.0.7']],
    ['https://receiver.example.com/', ['172.31.255.255']],
    ['https://receiver.example.com/', ['192.168.0.1']],
    ['https://receiver.example.com/', ['169.254.169.254']],
    ['https://receiver.example.com/', ['100.127.255.254']],
    ['https://receiver.example.com/', ['198.19.0.1']],
    ['https://receiver.example.com/', ['224.0.0.251']],
    ['https://receiver.example.com/', ['255.255.255.255']],
    ['https://receiver.example.com/', ['0.0.0.0']],
    ['https://receiver.example.com/', ['::']],
    ['https://receiver.example.com/', ['::1']],
    ['https://receiver.example.com/', ['fe80::1']],
    ['https://receiver.example.com/', ['fe80::1%eth0']],
    ['https://receiver.example.com/', ['fc00::1']],
    ['https://receiver.example.com/', ['ff02::1']],
    ['https://receiver.example.com/', ['::ffff:127.0.0.1']],
    ['https://receiver.example.com/', ['::ffff:192.168.1.1']],
    ['https://receiver.example.com/', ['64:ff9b::7f00:1']],
    ['https://receiver.example.com/', ['2001:db8::1']],
    ['https://receiver.example.com/', ['not-an-address']],
    ['https://receiver.example.com/', ['93.184.216.34', '127.0.0.1']],
  ];

  it.each(hostileAnswers)('refuses %s resolving to %j', async (url, addresses) => {
    const lookup = fixedLookup(addresses);
    const response = await postWebhook(url, signed, eventBody, strict(lookup));
    expect(response.statusCode).toBeNull();
    expect(response.error).toBe('address_not_allowed');
    expect(lookup.calls).toHaveLength(1);
  });

  it('has a table of at least 40 hostile URLs and resolver answers', () => {
    expect(hostileUrls.length + hostileAnswers.length).toBeGreaterThanOrEqual(40);
    expect(hostileUrls.length).toBeGreaterThanOrEqual(40);
  });
});

// WEBHOOK_ALLOW_LOCAL admits targets on this machine and nothing more. Each case's resolver would
// hand out the local receiver (or an address on loopback), so a target let through would show up as
// a lookup or a connection; none of them can reach beyond loopback whatever the code does.
describe('postWebhook with allowLocal: loopback targets only', () => {
  afterEach(() => {
    expect(tcpConnects).toBe(0);
    expect(receiver.connections).toBe(0);
  });

  it('refuses a public name on another port than 443 without looking it up', async () => {
    const lookup = fixedLookup(['127.0.0.1']);
    const url = `https://receiver.example.com:${receiver.port}/hook`;
    const response = await postWebhook(url, signed, eventBody, { ...local(), lookup });
    expect(response).toMatchObject({ statusCode: null, error: 'url_not_allowed', detail: 'port must be 443' });
    expect(lookup.calls).toEqual([]);
  });

  it('refuses a public name that resolves to loopback: only localhost names and loopback literals reach it', async () => {
    const lookup = fixedLookup(['127.0.0.1']);
    const response = await postWebhook('https://receiver.example.com/hook', signed, eventBody, { ...local(), lookup });
    expect(response).toMatchObject({
      statusCode: null,
      error: 'address_not_allowed',
      detail: 'receiver.example.com resolved to 127.0.0.1',
    });
  });

  it('refuses a private literal on another port with url_not_allowed', async () => {
    const response = await postWebhook('https://10.0.0.7:8443/hook', signed, eventBody, local());
    expect(response).toMatchObject({ statusCode: null, error: 'url_not_allowed' });
  });
});

describe('the webhook sender', () => {
  const serverSecret = new TextEncoder().encode('webhook-sender-test-secret-0123456789abcdef');

  function endpointFor(url: string): StoredEndpoint {
    const id = 'whk_01jsender0000000000000000';
    return {
      id,
      channelId: '00000000-0000-4000-8000-000000000001',
      url,
      events: ['*'],
      description: null,
      status: 'active',
      suspendedReason: null,
      secret: webhookSecretBox(singleKeyRing(serverSecret)).seal(
        `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
        webhookSecretContext(id),
      ),
      previousSecret: null,
      previousSecretExpiresAt: null,
      secretGeneration: 1,
      createdAt: new Date('2026-11-22T10:00:00Z'),
      updatedAt: new Date('2026-11-22T10:00:00Z'),
    };
  }

  it('gives a receiver 10 s to answer: still waiting at 9.999 s, a failed delivery (timeout) at 10 s', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-sender-'));
    const caFile = path.join(dir, 'receiver.crt');
    await writeFile(caFile, certs.cert);
    const sender = createWebhookSender({
      secrets: { ring: singleKeyRing(serverSecret), platformTokenHash: new Uint8Array(32) },
      clock: { now: () => new Date() },
      settings: { allowLocal: true, caFile },
    });
    const arrived = new Promise<void>((resolve) => neverArrivals.push(resolve));
    // Only the timers move by hand; the connection to the receiver is real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let outcome: WebhookResponse | undefined;
      const sending = sender
        .send(endpointFor(`${base()}/never`), { id: 'evt_1', body: eventBody })
        .then((response) => (outcome = response));
      await arrived;
      await vi.advanceTimersByTimeAsync(9_999);
      expect(outcome, 'no outcome before 10 s').toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await vi.waitFor(() => expect(outcome, 'an outcome at 10 s').toBeDefined());
      await sending;
      expect(outcome).toMatchObject({ statusCode: null, error: 'timeout', excerpt: null });
      expect(outcomeOf(outcome!)).toBe('failed');
    } finally {
      vi.useRealTimers();
    }
  });
});
