import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { checkReceiver, newWebhookSecret } from '../../clients/channel-kit/src/index.ts';
import { startChannelApp, type ChannelApp } from '../../examples/channel-app/server.ts';
import { startKitService } from '../support/channel-kit.ts';
import { onCleanup } from '../support/cleanup.ts';
import { channelWithKey } from '../support/fixtures.ts';

/**
 * The channel guide's path, as a newcomer walks it: the reference channel app receives webhooks,
 * `channel-kit listen` forwards the channel's event log to it without a tunnel, the app verifies
 * each event and its sync helper reads what the event names. And the app's receiver passes
 * `check-receiver`.
 */

const CLI = path.resolve(import.meta.dirname, '../../clients/channel-kit/src/cli.ts');

let service: Awaited<ReturnType<typeof startKitService>>;
let app: ChannelApp;
let key: string;
const secret = newWebhookSecret();
const appLog: string[] = [];

beforeAll(async () => {
  service = await startKitService('channel-app-webhooks');
  const made = await channelWithKey(service.ctx, { scopes: ['read:catalog', 'read:ari'] });
  key = made.key.key;
  app = await startChannelApp({
    apiBaseUrl: `${service.api.url}${DISTRIBUTION_BASE}`,
    apiKey: key,
    channel: made.channel.name,
    fetch: service.fetch,
    webhookSecrets: [secret],
    log: (line) => appLog.push(line),
  });
  onCleanup(() => app.close());
  await service.host.organization('caw-org');
  await service.host.owner('caw-own', { organization: 'caw-org' });
  await service.host.location('caw-loc', { organization: 'caw-org', owner: 'caw-own' });
  await service.host.property('caw-p1', { location: 'caw-loc', owner: 'caw-own' });
  await service.host.distribute('caw-p1', [made.channel.name]);
});

async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 150 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(predicate(), what).toBe(true);
}

test('listen forwards a change to the reference app, which verifies it and reads the property at its new version', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'channel-app-listen-'));
  await writeFile(path.join(dir, 'localhost.crt'), service.api.ca);
  const child = spawn(
    process.execPath,
    [
      CLI,
      'listen',
      '--base-url',
      `${service.api.url}${DISTRIBUTION_BASE}`,
      '--forward-to',
      `${app.url}/webhooks`,
      '--secret',
      secret,
      '--state',
      path.join(dir, 'listen.json'),
    ],
    // As the guide has it: the service's development certificate trusted by Node itself.
    { env: { ...process.env, DISTRIBUTION_API_KEY: key, NODE_EXTRA_CA_CERTS: path.join(dir, 'localhost.crt') } },
  );
  onCleanup(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until(() => output.includes("from the log's end"), `listen started: ${output}`);

  await service.host.property('caw-p1', {
    location: 'caw-loc',
    owner: 'caw-own',
    name: { ro: 'Casa din vale', en: 'The house in the valley' },
  });
  await until(() => appLog.some((line) => line.endsWith(': read')), `the app read the property: ${appLog.join(' | ')}`);
  child.kill('SIGINT');

  expect(output).toMatch(/property\.updated +evt_[0-9a-z]{26} +-> 204 in \d+ ms/);
  expect(appLog).toContainEqual(expect.stringMatching(/^webhook verified: property\.updated evt_/));
  const held = [...app.catalogue!.visible('properties').values()];
  expect(held).toHaveLength(1);
  expect(held[0]).toMatchObject({ name: { en: 'The house in the valley' } });
});

test("the reference app's receiver passes check-receiver", async () => {
  const report = await checkReceiver({ url: `${app.url}/webhooks`, secret });
  expect(report.checks.filter((check) => !check.passed)).toEqual([]);
  expect(report.passed).toBe(true);
});
