import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { updateChannel } from '../../admin/channels.ts';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { CERTIFICATION_RULES } from '../../domain/certification/rules.ts';
import { systemClock } from '../../domain/clock.ts';
import { selfSignedCertificate } from '../../infra/tls.ts';
import { apiTestBed, type ApiTestBed } from '../support/api-bed.ts';
import { BROKEN_RULE, FRONTED, startChannelVariant, type ChannelVariant } from '../support/broken-channels.ts';
import { fetchTrusting } from '../support/channel-kit.ts';
import { runNode, type Finished } from '../support/processes.ts';
import { freePort } from '../support/start-process.ts';
import { activityDeps } from '../support/worker.ts';

// `channel-kit certify` end to end, in real time: the API and its worker, the reference channel
// app (examples/channel-app) over HTTPS on loopback with its redirect URL registered and an
// endpoint subscribed to `*`, and the command run as a developer runs it. The reference app passes;
// each of four channels broken around it (test/support/broken-channels.ts) fails on its rule. The
// five run at once, each a channel of its own.

const CLI = path.resolve(import.meta.dirname, '../../clients/channel-kit/src/cli.ts');
const VARIANTS: ChannelVariant[] = [
  'reference',
  'accepts_any_signature',
  'answers_late',
  'ignores_retry_after',
  'never_rereads_availability',
];

interface Certified {
  kit: Finished;
  /** The report's rows as the command's table prints them: rule → outcome. */
  table: Map<string, string>;
  /** The run as the API keeps it. */
  run: { state: string; rules: { rule: string; outcome: string; evidence: string }[] };
  appLog: string[];
}

let bed: ApiTestBed<typeof systemClock>;
/** The `iss` of the tokens the run hands off: the public origin of the worker that issues them. */
let issuer: string;
const runs = new Map<ChannelVariant, Promise<Certified>>();

beforeAll(async () => {
  // A common name of its own: beside the API's (`localhost`) in one trust bundle, OpenSSL looks
  // an issuer up by name, and two certificates of one name would hide each other.
  const tls = await selfSignedCertificate({ dns: ['channel-app.localhost', 'localhost'], ips: ['127.0.0.1'] });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-certify-'));
  const caFile = path.join(dir, 'channel.crt');
  await writeFile(caFile, tls.cert);
  bed = await apiTestBed({ clock: systemClock, receiver: { caFile }, taskQueue: 'e2e-certify', worker: true });
  issuer = activityDeps(bed.orm, { client: bed.temporal, taskQueue: bed.taskQueue! }).config!.publicOrigin;
  // The command trusts the API's certificate and the app's (the hand-off goes to the app).
  const bundle = path.join(dir, 'trusted.pem');
  await writeFile(bundle, `${bed.api.ca.trim()}\n${tls.cert.trim()}\n`);
  for (const variant of VARIANTS) {
    const run = certifyChannel(variant, tls, bundle);
    // Awaited by its test; a failure before then is not an unhandled rejection.
    run.catch(() => undefined);
    runs.set(variant, run);
  }
}, 180_000);

const table = (stdout: string) =>
  new Map(
    [...stdout.matchAll(/^([a-z_]+) {2,}(passed|FAILED|self-declared|pending) {2,}.*$/gm)].map(
      ([, rule, outcome]) => [rule!, outcome!] as const,
    ),
  );

async function certifyChannel(
  variant: ChannelVariant,
  tls: { cert: string; key: string },
  bundle: string,
): Promise<Certified> {
  const { api, ctx } = bed;
  const made = await bed.channel({ scopes: ['read:catalog', 'read:ari', 'manage:webhooks'] });
  const key = made.key.key;
  const appPort = await freePort();
  const frontPort = await freePort();
  const url = `https://localhost:${FRONTED.includes(variant) ? frontPort : appPort}/webhooks`;
  // Registered first, so that the app starts knowing the endpoint's secret.
  const created = await api.call('POST', `${DISTRIBUTION_BASE}/webhooks`, { key, body: { url, events: ['*'] } });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const appLog: string[] = [];
  const channel = await startChannelVariant(variant, {
    apiBaseUrl: `${api.url}${DISTRIBUTION_BASE}`,
    apiKey: key,
    channel: made.channel.name,
    issuer,
    fetch: fetchTrusting(api.ca),
    webhookSecrets: [created.json.secret as string],
    tls,
    ca: tls.cert,
    port: appPort,
    frontPort,
    // Small pages: within the run, reads page with cursors and resume. A pass every 30 s: a pass
    // that lists a property's new version just before its event is worked leaves the event
    // nothing to read again (up to date), which rereads_named_resource cannot tell from not reading.
    syncIntervalMs: 30_000,
    syncPageSize: 2,
    log: (line) => appLog.push(`${new Date().toISOString()} ${line}`),
  });
  expect(channel.webhookUrl).toBe(url);
  await updateChannel(ctx, { name: made.channel.name, redirectUrl: channel.redirectUrl });

  const kit = await runNode(
    CLI,
    // A shorter wait for the owner connection than the service's 300 s: a failed hand-off ends the run sooner.
    [
      'certify',
      '--webhook',
      created.json.id as string,
      '--base-url',
      `${api.url}${DISTRIBUTION_BASE}`,
      '--ca',
      bundle,
      '--connect-wait',
      '60',
    ],
    { DISTRIBUTION_API_KEY: key },
    330_000,
  );
  const listed = await api.call('GET', `${DISTRIBUTION_BASE}/sandbox/certifications?limit=1`, { key });
  return { kit, table: table(kit.stdout), run: listed.json.data[0], appLog };
}

/** Everything to read when a verdict is not the expected one. */
const story = (certified: Certified) =>
  [certified.kit.stdout, certified.kit.stderr, ...certified.appLog.slice(-80)].join('\n');

test('the reference app passes: exit 0, every rule passed or self-declared, in the table and in the kept report', async () => {
  const certified = await runs.get('reference')!;
  expect(certified.kit.code, story(certified)).toBe(0);
  expect(certified.run.state, story(certified)).toBe('passed');
  expect(certified.run.rules.map((row) => row.rule)).toEqual([...CERTIFICATION_RULES]);
  expect(certified.run.rules.filter((row) => !['passed', 'self_declared'].includes(row.outcome))).toEqual([]);
  expect([...certified.table.keys()]).toEqual([...CERTIFICATION_RULES]);
  expect([...certified.table.values()].every((outcome) => outcome === 'passed' || outcome === 'self-declared')).toBe(
    true,
  );
  expect(certified.kit.stdout).toMatch(/^Certification crt_\S+ passed\.$/m);
  // The hand-off was made as the host's browser makes it, and the app confirmed the owner.
  expect(certified.kit.stdout).toMatch(
    /owner connect: confirmed as a browser would \(POST https:\/\/localhost:\d+\/owner-connect 200, POST https:\/\/localhost:\d+\/owner-connect\/confirm 200\)/,
  );
  expect(certified.appLog).toContainEqual(expect.stringMatching(/ owner own_\S+ connected to /));
}, 330_000);

describe.each(Object.entries(BROKEN_RULE) as [Exclude<ChannelVariant, 'reference'>, string][])(
  'the channel that %s',
  (variant, rule) => {
    test(`fails on ${rule}: exit 1, that row failed in the table and in the kept report`, async () => {
      const certified = await runs.get(variant)!;
      expect(certified.kit.code, story(certified)).toBe(1);
      expect(certified.run.state).toBe('failed');
      expect(certified.run.rules.find((row) => row.rule === rule)?.outcome, story(certified)).toBe('failed');
      expect(certified.table.get(rule)).toBe('FAILED');
      expect(certified.kit.stdout).toMatch(/^Certification crt_\S+ failed: \d+ rules? failed\.$/m);
    }, 330_000);
  },
);
