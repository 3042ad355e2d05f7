import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DELIVERY_ERRORS } from '../../domain/webhooks/delivery-errors.ts';
import { postWebhook } from '../../infra/webhook-http.ts';

// A name server on loopback that reads every query and never answers, as a hostile or broken
// resolver of a channel's domain does; and a receiver reached by its literal address.
let blackhole: UdpSocket;
let queries = 0;
let receiver: Server;
let cert: string;

beforeAll(async () => {
  blackhole = createSocket('udp4');
  blackhole.on('message', () => {
    queries += 1;
  });
  await new Promise<void>((resolve) => blackhole.bind(0, '127.0.0.1', resolve));
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  cert = pems.cert;
  receiver = createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  blackhole.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('name resolution of webhook targets', () => {
  test('names whose resolver never answers fail inside the time limit with a reason only, and a delivery beside them is not held', async () => {
    const dnsServers = [`127.0.0.1:${blackhole.address().port}`];
    const stuck = Array.from({ length: 6 }, (_, i) =>
      postWebhook(`https://stuck-${i}.example.com/hook`, {}, '{}', { allowLocal: false, dnsServers, timeoutMs: 3_000 }),
    );
    const beside = postWebhook(`https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, {}, '{}', {
      allowLocal: true,
      ca: cert,
      timeoutMs: 3_000,
    });

    expect(await beside).toMatchObject({ statusCode: 204, error: null });
    for (const outcome of await Promise.all(stuck)) {
      expect(outcome.statusCode).toBeNull();
      expect(['dns_failure', 'timeout']).toContain(outcome.error);
      expect(Object.keys(DELIVERY_ERRORS)).toContain(outcome.error);
    }
    // The resolver asked was the one given, not the system's.
    expect(queries).toBeGreaterThanOrEqual(6);
  });
});
