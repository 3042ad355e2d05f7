import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, expect, inject, test } from 'vitest';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { uniqueChannelName } from '../support/fixtures.ts';
import { runNode } from '../support/processes.ts';

// `key revoke <id> --leaked` against a real SMTP server on loopback (plain SMTP, no AUTH).

let env: Record<string, string>;
let api: TestApi;
let server: SMTPServer;
let received: { rcptTo: string[]; raw: string }[] = [];

const admin = (...args: string[]) => runNode('scripts/admin.ts', args, env);

beforeAll(async () => {
  server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const bed = await apiTestBed({ clock: systemClock });
  api = bed.api;
  env = {
    DATABASE_URL: bed.databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: 'cli-leaked-test',
    LOG_LEVEL: 'silent',
    SMTP_URL: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    // A relay on loopback without STARTTLS: plain SMTP is allowed only when said so.
    SMTP_ALLOW_PLAIN: 'true',
  };
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
});

/** The message body with quoted-printable soft breaks and escapes undone. */
const bodyOf = (raw: string) =>
  raw
    .slice(raw.indexOf('\r\n\r\n') + 4)
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\r\n/g, '\n');

async function channelAndKey(contact?: string) {
  const name = uniqueChannelName('leak');
  expect((await admin('channel', 'create', name, ...(contact ? ['--contact', contact] : []))).code).toBe(0);
  const issued = await admin('key', 'issue', name, '--scopes', 'read:catalog');
  expect(issued.code, issued.stderr).toBe(0);
  return { name, key: JSON.parse(issued.stdout) as { key: string; id: string; last4: string } };
}

test("key revoke --leaked revokes at once and e-mails the channel's technical contact, without the key", async () => {
  const { name, key } = await channelAndKey('tech@partner.example');
  const revoked = await admin('key', 'revoke', key.id, '--leaked');
  expect(revoked.code, revoked.stderr).toBe(0);
  expect(JSON.parse(revoked.stdout)).toMatchObject({
    id: key.id,
    state: 'revoked',
    leak_notice: { to: 'tech@partner.example', sent: true },
  });
  expect((await api.call('GET', '/api/v1/distribution/channel', { key: key.key })).json.code).toBe('api_key_revoked');

  expect(received).toHaveLength(1);
  expect(received[0]!.rcptTo).toEqual(['tech@partner.example']);
  const body = bodyOf(received[0]!.raw);
  for (const expected of [name, key.id, key.last4, 'sandbox', 'revoked', 'public']) expect(body).toContain(expected);
  expect(received[0]!.raw).not.toContain(key.key);
  expect(received[0]!.raw).not.toContain(key.key.slice(9, 30));
});

test('a plain revoke e-mails nobody; --leaked on a channel without a contact still revokes and says nobody was told', async () => {
  const plain = await channelAndKey('tech@partner.example');
  const revoked = await admin('key', 'revoke', plain.key.id);
  expect(revoked.code, revoked.stderr).toBe(0);
  expect(JSON.parse(revoked.stdout)).not.toHaveProperty('leak_notice');
  expect(received).toEqual([]);

  const uncontacted = await channelAndKey();
  const leaked = await admin('key', 'revoke', uncontacted.key.id, '--leaked');
  expect(leaked.code, leaked.stderr).toBe(0);
  expect(JSON.parse(leaked.stdout)).toMatchObject({
    state: 'revoked',
    leak_notice: { to: null, sent: false, error: expect.stringMatching(/no technical contact/) },
  });
  expect(received).toEqual([]);
  expect((await api.call('GET', '/api/v1/distribution/channel', { key: uncontacted.key.key })).json.code).toBe(
    'api_key_revoked',
  );
});
