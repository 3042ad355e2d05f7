/**
 * `npm run fuzz`: Schemathesis against the three served descriptions a client can reach: the
 * distribution interface (a channel key), the platform write interface (the platform token) and
 * the integration interface (an installed app's token).
 *
 * A scratch database (on DATABASE_URL, else an embedded PostgreSQL), a Temporal dev server, the
 * worker and the API in this process on an ephemeral loopback port, the demo catalogue seeded, a
 * key holding every grantable scope on the demo channel, an installation of the demo app with a
 * `guests.read` token and a second installation the platform run may change; then `schemathesis
 * run` (from .tools/venv, installed by scripts/tools.sh) once per description, one after the other
 * against the same service, each bounded in examples and in its share of the time budget, with
 * positive and negative (schema-invalid) input and the checks: no server error, status codes,
 * content types, headers and bodies as described, schema-invalid input refused; and it fails when
 * schema-valid input is mostly refused (Schemathesis's "schema validation mismatch": the
 * description is looser than the validators). Seeded ids, refs and dates are bound to the
 * parameters no schema can pin (scripts/fuzz-test-data.ts). The distribution interface goes first
 * (the platform run may delete the records it reads), the integration interface last (it then
 * reads guests the platform run wrote). Exits 0 only when every run passed.
 *
 * Confinement: the fuzzer registers webhook endpoints and pings them with URLs of its choosing.
 * WEBHOOK_ALLOW_LOCAL stays unset, so only public https URLs on port 443 are registered; none is
 * reached: the webhook sender resolves names through a resolver on loopback that refuses every
 * query, and every TCP connection of this process (a public address literal included) must end on
 * loopback or fails before a packet leaves (scripts/loopback-only.ts). The platform interface's
 * writes (photos' URLs, a channel's redirect) are stored, never fetched.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { outcomeLine, runSchemathesis, type FuzzOutcome, type FuzzTarget } from './fuzz-schemathesis.ts';
import { fuzzTestData, platformTestData } from './fuzz-test-data.ts';
import { confineToLoopback, startRefusingResolver } from './loopback-only.ts';

confineToLoopback();

const { createChannel } = await import('../admin/channels.ts');
const { DEMO_CHANNELS } = await import('../admin/demo-catalogue.ts');
const { issueKey } = await import('../admin/keys.ts');
const { seedDemo } = await import('../admin/seed.ts');
const { loadConfig } = await import('../app/config.ts');
const { startApiProcess, startWorkerProcess } = await import('../app/processes.ts');
const { openDatabase } = await import('../db/orm.ts');
const { createScratchDatabase } = await import('../db/scratch.ts');
const { systemClock } = await import('../domain/clock.ts');
const { GRANTABLE_SCOPES } = await import('../domain/scopes.ts');
const { startEmbeddedPostgres } = await import('../infra/embedded-postgres.ts');
const { startDevServer } = await import('../infra/embedded-temporal.ts');
const { createLogger } = await import('../infra/logger.ts');
const { loadSecrets } = await import('../infra/secrets.ts');
const { connectTemporalClient } = await import('../infra/temporal.ts');
const { serviceDeps } = await import('../services/deps.ts');
const { createInstallation } = await import('../services/integration.ts');
const { SEARCH_ATTRIBUTES } = await import('../workflows/search-attributes.ts');

/** Test cases per operation and phase, and the time budget of the three Schemathesis runs together. */
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 30);
const MAX_SECONDS = Number(process.env.FUZZ_MAX_SECONDS ?? 200);
/**
 * Each interface's share of MAX_SECONDS, by its number of operations and what they take (the
 * integration interface has one operation without parameters and is done long before its share).
 */
const SHARES = { distribution: 0.55, platform: 0.35, integration: 0.1 } as const;
/** FUZZ_ONLY=platform,integration: some of the interfaces, e.g. to replay a finding with its seed. */
const ONLY = process.env.FUZZ_ONLY?.split(',');

const root = path.resolve(import.meta.dirname, '..');
const say = (line: string) => process.stdout.write(`fuzz: ${line}\n`);
const stops: (() => Promise<unknown>)[] = [];
const stopAll = async () => {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => say(`stop failed: ${String(error)}`));
};

const PLATFORM_TOKEN = 'svc_platform_fuzz-token-0123456789abcdefghijklmnop';

async function main(): Promise<FuzzOutcome[]> {
  if (!existsSync(path.join(root, '.tools/venv/bin/schemathesis')))
    throw new Error('.tools/venv/bin/schemathesis is missing: source scripts/tools.sh first');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-fuzz-'));
  stops.push(() => rm(dataDir, { recursive: true, force: true }));

  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const pg = await startEmbeddedPostgres(path.join(dataDir, 'pg'));
    stops.push(pg.stop);
    serverUrl = pg.serverUrl;
  }
  const database = await createScratchDatabase(serverUrl, 'fuzz');
  stops.push(database.drop);
  const temporal = await startDevServer({ searchAttributes: SEARCH_ATTRIBUTES });
  stops.push(temporal.stop);
  const resolver = await startRefusingResolver();
  stops.push(resolver.close);

  const loaded = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    HTTP_PORT: '0',
    LOG_LEVEL: process.env.FUZZ_LOG_LEVEL ?? 'error',
    SERVER_SECRET: 'fuzz-server-secret-0123456789abcdef0123456789',
    PLATFORM_TOKEN,
    TEMPORAL_TASK_QUEUE: 'distribution-fuzz',
    // The fuzzer authenticates on purpose with a key it then breaks; it must not lock itself out.
    AUTH_FAILURE_LIMIT: '1000000',
  });
  const webhooks = { ...loaded.webhooks, dnsServers: [resolver.server] };
  const config = { ...loaded, webhooks };
  const log = createLogger(config.logLevel, { process: 'fuzz' });
  const endpoints = { databaseUrl: database.url, temporalAddress: temporal.address };

  const worker = await startWorkerProcess(config, endpoints, log, { prebuilt: false });
  stops.push(worker.stop);
  const api = await startApiProcess(config, endpoints, log);
  stops.push(api.stop);

  // Seed through the services, as `npm run admin -- seed demo` does; the first demo channel is
  // created first with a rate limit the fuzzer does not reach, so it tests more than 429s.
  const orm = await openDatabase(database.url);
  stops.push(() => orm.close());
  const client = await connectTemporalClient(
    { ...config.temporal, address: temporal.address },
    config.temporal.namespace,
  );
  stops.push(client.close);
  const ctx = serviceDeps({
    orm,
    temporal: client.client,
    config,
    clock: systemClock,
    log,
    secrets: await loadSecrets(config),
  });
  await createChannel(ctx, {
    name: DEMO_CHANNELS.first,
    rateLimit: 1_000_000,
    redirectUrl: `https://${DEMO_CHANNELS.first}.example/owner-connect`,
  });
  const seeded = await seedDemo(ctx);
  const { key } = await issueKey(ctx, { channel: DEMO_CHANNELS.first, scopes: GRANTABLE_SCOPES.join(',') });
  const appToken = seeded.integration.installation.token;
  if (!appToken) throw new Error('the scratch database already held the demo installation');
  // The platform run patches and re-issues the token of an installation it is given: not the one
  // whose token the integration run holds.
  const organization = seeded.organizations[0]!;
  const spare = await createInstallation(ctx, organization, { app: 'fuzz-platform', scopes: ['guests.read'] });
  say(
    `API at ${api.url}; seeded ${seeded.properties.length} properties, ${seeded.integration.guests.length} guests; key on ${DEMO_CHANNELS.first} with ${GRANTABLE_SCOPES.join(', ')}`,
  );

  const platformSeeds = {
    organization,
    owner: seeded.owners[0]!,
    location: seeded.locations[0]!,
    property: seeded.properties[0]!,
    spare_property: seeded.properties.at(-1)!,
    guest: seeded.integration.guests[0]!,
    spare_guest: seeded.integration.guests.at(-1)!,
    installation: spare.id,
    channel: DEMO_CHANNELS.second,
    country: 'RO',
    zone: 'Europe/Bucharest',
  };
  const targets: FuzzTarget[] = [
    {
      name: 'distribution',
      descriptionUrl: `${api.url}/api/v1/distribution/openapi.json`,
      token: key,
      testData: await fuzzTestData(api.url, key, api.tls.certPath),
      maxSeconds: 0,
    },
    {
      name: 'platform',
      descriptionUrl: `${api.url}/internal/v1/openapi.json`,
      token: PLATFORM_TOKEN,
      testData: platformTestData(platformSeeds),
      maxSeconds: 0,
    },
    // An installation may send 120 requests a minute (the contract's limit, not configurable): paced
    // below it, every request reaches the operation instead of most being 429.
    {
      name: 'integration',
      descriptionUrl: `${api.url}/api/v1/integration/openapi.json`,
      token: appToken,
      testData: '',
      maxSeconds: 0,
      rateLimit: '110/m',
    },
  ]
    .filter((target) => !ONLY || ONLY.includes(target.name))
    .map((target) => ({
      ...target,
      maxSeconds: Math.max(10, Math.round(MAX_SECONDS * SHARES[target.name as keyof typeof SHARES])),
    }));

  const options = {
    root,
    workDir: dataDir,
    caPath: api.tls.certPath,
    maxExamples: MAX_EXAMPLES,
    seed: process.env.FUZZ_SEED ?? '20261122',
    say,
  };
  const outcomes = [];
  for (const target of targets) {
    const outcome = await runSchemathesis(target, options);
    say(outcomeLine(outcome));
    outcomes.push(outcome);
  }
  return outcomes;
}

/** The closing line, read by CI: every interface's counts and the verdict of the whole run. */
function closingLine(outcomes: FuzzOutcome[]): string {
  const failed = outcomes.filter((outcome) => outcome.code !== 0);
  const counts = outcomes.map((o) => `${o.name} ${o.operations} operations, ${o.cases}`).join('; ');
  return `${counts}; ${failed.length === 0 ? 'no failure' : `failed: ${failed.map((o) => `${o.name} (Schemathesis exited with ${o.code})`).join(', ')}`}`;
}

let exitCode = 1;
let closing = 'no run finished';
try {
  const outcomes = await main();
  closing = closingLine(outcomes);
  exitCode = outcomes.length > 0 && outcomes.every((outcome) => outcome.code === 0) ? 0 : 1;
} catch (error) {
  say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  await stopAll();
}
// After the shutdown, whose worker logs would otherwise follow it: CI reads the last line.
say(closing);
process.exit(exitCode);
