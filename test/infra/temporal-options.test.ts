import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { temporalConnectionOptions } from '../../infra/temporal.ts';

test('Temporal connection options: plain by default; client pair, CA, server name and API key as configured', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-temporal-tls-'));
  for (const name of ['client.crt', 'client.key', 'ca.crt']) await writeFile(path.join(dir, name), `PEM of ${name}`);
  expect(temporalConnectionOptions({ address: 'temporal:7233' })).toEqual({ address: 'temporal:7233' });
  const options = temporalConnectionOptions({
    address: 'ns.tmprl.cloud:7233',
    tls: {
      certFile: path.join(dir, 'client.crt'),
      keyFile: path.join(dir, 'client.key'),
      caFile: path.join(dir, 'ca.crt'),
      serverName: 'temporal.internal',
    },
    apiKey: 'key',
  });
  expect(options).toEqual({
    address: 'ns.tmprl.cloud:7233',
    tls: {
      clientCertPair: { crt: Buffer.from('PEM of client.crt'), key: Buffer.from('PEM of client.key') },
      serverRootCACertificate: Buffer.from('PEM of ca.crt'),
      serverNameOverride: 'temporal.internal',
    },
    apiKey: 'key',
  });
  expect(temporalConnectionOptions({ address: 'ns.tmprl.cloud:7233', tls: {}, apiKey: 'key' })).toEqual({
    address: 'ns.tmprl.cloud:7233',
    tls: {},
    apiKey: 'key',
  });
});
