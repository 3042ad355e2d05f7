import { spawn } from 'node:child_process';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newId, newWebhookSecret, signedHeaders } from '../../clients/channel-kit/src/index.ts';
import { startChannelApp } from '../../examples/channel-app/server.ts';
import { selfSignedCertificate } from '../../infra/tls.ts';
import { onCleanup } from '../support/cleanup.ts';

/**
 * The reference app as the guide starts it (`node examples/channel-app/server.ts`), in a shell
 * that also runs the service: the service's `PORT` and `HOST` exported there name the service's
 * listener, and the app listens where its own `CHANNEL_APP_PORT` and `CHANNEL_APP_HOST` say. It
 * prints where it listens and which API it calls, and a call to the API that gets no answer is
 * logged with its URL, its cause and what to change. No service runs here: the API's address is
 * a port nothing listens on, or a server whose certificate Node does not trust.
 */

const SERVER = path.resolve(import.meta.dirname, '../../examples/channel-app/server.ts');
const secret = newWebhookSecret();
/** A listener holding a port, as the service holds its own. */
let service: net.Server;
let servicePort: number;
/** A port nothing listens on. */
let closedPort: number;

async function listening(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

beforeAll(async () => {
  service = net.createServer((socket) => socket.destroy());
  servicePort = await listening(service);
  const spare = net.createServer();
  closedPort = await listening(spare);
  await new Promise((resolve) => spare.close(resolve));
});
afterAll(() => new Promise((resolve) => service.close(resolve)));

async function until(predicate: () => boolean, what: () => string): Promise<void> {
  for (let i = 0; i < 150 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(predicate(), what()).toBe(true);
}

test("with the service's PORT and HOST exported, the app listens on its own CHANNEL_APP_PORT and CHANNEL_APP_HOST, prints them and its API, and logs a failed read with its cause", async () => {
  const api = `https://127.0.0.1:${closedPort}/api/v1/distribution`;
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      // The service's, exported in the same shell: a port it holds, an address this machine lacks.
      PORT: String(servicePort),
      HOST: '192.0.2.1',
      CHANNEL_APP_HOST: '127.0.0.1',
      CHANNEL_APP_PORT: '0',
      DISTRIBUTION_API_URL: api,
      DISTRIBUTION_API_KEY: 'svc_test_0123456789abcdefghijklmnopqrstuv',
      CHANNEL_NAME: 'process-test',
      WEBHOOK_SECRET: secret,
    },
  });
  onCleanup(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

  // At start: where it listens, and the API it calls, reached or not and why.
  await until(
    () => output.includes('API not reached'),
    () => output,
  );
  const started = /listening on 127\.0\.0\.1:(\d+): http:\/\/localhost:(\d+)\n/.exec(output);
  expect(started, output).not.toBeNull();
  const port = Number(started![1]);
  expect(port).not.toBe(servicePort);
  expect(Number(started![2])).toBe(port);
  expect(output).toContain(`distribution API: ${api}\n`);
  expect(output).toContain(
    `API not reached: GET ${api}/channel: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:${closedPort}): nothing listens there: set DISTRIBUTION_API_URL`,
  );
  expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);

  // A verified event whose read gets no answer: the log names the read and its cause.
  const event = { id: newId('evt_'), property: newId('prp_') };
  const body = JSON.stringify({
    id: event.id,
    type: 'property.updated',
    created_at: new Date().toISOString(),
    data: { id: event.property, version: 2 },
  });
  const id = newId('msg_');
  const delivered = await fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signedHeaders([secret], id, new Date(), body) },
    body,
  });
  expect(delivered.status).toBe(204);
  await until(
    () => output.includes(`webhook ${event.id} failed`),
    () => output,
  );
  expect(output).toContain(
    `webhook ${event.id} failed: GET ${api}/properties/${event.property}: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:${closedPort}): nothing listens there: set DISTRIBUTION_API_URL`,
  );

  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});

test("a hand-off whose key set cannot be read for an untrusted certificate is logged with the URL and the certificate's error, and the host is told in its browser's language", async () => {
  const pems = await selfSignedCertificate({ dns: ['localhost'], ips: ['127.0.0.1'] });
  const untrusted = https.createServer({ cert: pems.cert, key: pems.key }, (_req, res) => res.end('{}'));
  const port = await listening(untrusted);
  onCleanup(() => new Promise((resolve) => untrusted.close(resolve)));
  const api = `https://localhost:${port}/api/v1/distribution`;
  const log: string[] = [];
  // Node's own fetch, which trusts no development certificate unless NODE_EXTRA_CA_CERTS names it.
  const app = await startChannelApp({ apiBaseUrl: api, apiKey: 'svc_test_x', channel: 'ch', log: (l) => log.push(l) });
  onCleanup(() => app.close());
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const token = `${encode({ alg: 'ES256', typ: 'owner-connect+jwt', kid: 'k1' })}.${encode({ sub: 'own_1' })}.AAAA`;

  const res = await fetch(app.redirectUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'it' },
    body: new URLSearchParams({ token }),
  });
  expect(res.status).toBe(502);
  expect(await res.text()).toContain('Non è stato possibile raggiungere il servizio di distribuzione. Riprovi.');
  expect(log).toEqual([
    expect.stringMatching(
      new RegExp(
        `^POST /owner-connect failed: GET ${api}/owner-connect/keys: DEPTH_ZERO_SELF_SIGNED_CERT \\(self[- ]signed certificate[^)]*\\): Node does not trust the service's certificate: start the app with NODE_EXTRA_CA_CERTS=<`,
      ),
    ),
  ]);
});
