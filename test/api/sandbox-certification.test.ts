import { mkdtemp, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { insertCertificationRun } from '../../db/certification-runs.ts';
import { CERTIFICATION_RULES, SELF_DECLARED_RULES, type CertificationRule } from '../../domain/certification/rules.ts';
import { newCertificationId, pendingRows } from '../../domain/certification/runs.ts';
import { systemClock } from '../../domain/clock.ts';
import { verifyWebhook, type WebhookHeaders } from '../../domain/webhooks/signing.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { onCleanup } from '../support/cleanup.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';
import { runNode } from '../support/processes.ts';

// A certification run over the real API and worker, in real time, of a small receiver written
// here as a channel writes one: it verifies each delivery's signature, answers at once, then
// reads what the event names, pages and resumes a list, waits out a 429 as Retry-After says and
// reads nothing below a withdrawn property. The test confirms the owner connection handed off.

const BASE = '/api/v1/distribution';
const SCOPES = ['read:catalog', 'read:ari', 'manage:webhooks'] as const;
let api: TestApi;
let ctx: AdminContext;
let admin: (...args: string[]) => ReturnType<typeof runNode>;
let caFile: string;
let serverOptions: { cert: string; key: string };

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 24 * 3600 * 1000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
  });
  caFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'svc-certify-')), 'receiver.crt');
  await writeFile(caFile, pems.cert);
  serverOptions = { cert: pems.cert, key: pems.private };
  const bed = await apiTestBed({ clock: systemClock, receiver: { caFile }, taskQueue: 'certification', worker: true });
  ({ api, ctx } = bed);
  const env = {
    DATABASE_URL: bed.databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: bed.taskQueue!,
    LOG_LEVEL: 'silent',
  };
  admin = (...args) => runNode('scripts/admin.ts', args, env);
}, 120_000);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until when the channel sends nothing: a 429's Retry-After holds every read, not only the refused one. */
let quietUntil = 0;
/** The reads, one at a time as a sync loop makes them: two at once could both be refused 429. */
let reading: Promise<unknown> = Promise.resolve();

/** A GET as a well-behaved channel makes it: after a 429, nothing until its Retry-After, then asked again. */
function read(key: string, route: string) {
  const next = reading.then(async () => {
    for (;;) {
      while (Date.now() < quietUntil) await pause(quietUntil - Date.now());
      const res = await api.call('GET', `${BASE}${route}`, { key });
      if (res.status !== 429) return res;
      quietUntil = Math.max(quietUntil, Date.now() + Number(res.headers['retry-after']) * 1000 + 250);
    }
  });
  reading = next.catch(() => undefined);
  return next;
}

type Event = { id: string; type: string; data: { id?: string; from?: string; to?: string } };

/** The channel's receiver: HTTPS on loopback, the signature checked, the answer first, then the reads. */
async function startChannelReceiver(key: string, secret: () => string) {
  const seen = new Set<string>();
  let listed = false;
  const withdrawn = new Set<string>();
  const react = async (event: Event) => {
    const id = event.data.id;
    if (event.type === 'property.withdrawn' && id) withdrawn.add(id);
    if ((event.type === 'property.updated' || event.type === 'property.distributed') && id) {
      withdrawn.delete(id);
      await read(key, `/properties/${id}`);
      if (listed) return;
      listed = true;
      // The amenities: more than one page at one a page, whatever the channel is shown.
      const first = await read(key, '/amenities?limit=1');
      if (first.json.next_cursor)
        await read(key, `/amenities?limit=1&cursor=${encodeURIComponent(first.json.next_cursor)}`);
      await read(
        key,
        `/properties?updated_since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`,
      );
    }
    if (event.type === 'availability.updated' && id && !withdrawn.has(id))
      await read(key, `/availability?property_id=${id}&from=${event.data.from}&to=${event.data.to}`);
  };
  const server = https.createServer(serverOptions, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(req.headers[name] ?? '')]),
      ) as WebhookHeaders;
      void verifyWebhook({ headers, body, secret: secret(), nowSeconds: Math.floor(Date.now() / 1000) }).then(
        (valid) => {
          res.statusCode = valid ? 204 : 401;
          res.end();
          if (!valid || seen.has(headers['webhook-id'])) return;
          seen.add(headers['webhook-id']);
          void react(JSON.parse(body) as Event).catch(() => undefined);
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `https://localhost:${(server.address() as AddressInfo).port}/hooks`;
}

async function endpointOf(key: string, url: string, events = ['*']) {
  const created = await api.call('POST', `${BASE}/webhooks`, { key, body: { url, events } });
  expect(created.status, created.text).toBe(201);
  return created.json as { id: string; secret: string };
}

type Run = {
  certification_id: string;
  state: string;
  step: string | null;
  hand_off: { owner_id: string; token: string; redirect_url: string; window_ends_at: string } | null;
  rules: { rule: string; title: string; outcome: string; evidence: string }[];
};

describe('a certification run over HTTP', () => {
  test('runs to its end with every rule judged, the owner connection confirmed, and the report readable by the operator', async () => {
    const { channel, key } = await channelWithKey(ctx, { scopes: [...SCOPES] });
    let secret = '';
    const url = await startChannelReceiver(key.key, () => secret);
    const endpoint = await endpointOf(key.key, url);
    secret = endpoint.secret;

    const started = await api.call('POST', `${BASE}/sandbox/certifications`, {
      key: key.key,
      body: { webhook_id: endpoint.id },
    });
    expect(started.status, started.text).toBe(202);
    expectMatchesDescription('POST', `${BASE}/sandbox/certifications`, started);
    const run = started.json as Run;
    expect(run.certification_id).toMatch(/^crt_[0-9a-z]{26}$/);
    expect(run.state).toBe('running');
    expect(run.rules.map((row) => row.rule)).toEqual([...CERTIFICATION_RULES]);
    expect(run.rules.every((row) => row.outcome === 'pending')).toBe(true);

    // A second start while it runs is refused.
    const again = await api.call('POST', `${BASE}/sandbox/certifications`, {
      key: key.key,
      body: { webhook_id: endpoint.id },
    });
    expectProblem(again, 409, 'certification_not_possible');

    const runPath = `/sandbox/certifications/${run.certification_id}`;
    const steps = new Set<string>();
    let confirmed: number | null = null;
    let now = run;
    const deadline = Date.now() + 140_000;
    while (now.state === 'running' && Date.now() < deadline) {
      await pause(1_000);
      // The kit's poll, apart from the receiver (another process): a 429 only delays the next one.
      const res = await api.call('GET', `${BASE}${runPath}`, { key: key.key });
      if (res.status === 429) continue;
      expect(res.status, res.text).toBe(200);
      now = res.json as Run;
      if (now.step) steps.add(now.step);
      if (now.hand_off && confirmed === null) {
        expectMatchesDescription('GET', `${BASE}${runPath}`, res);
        const answer = await api.call('PUT', `${BASE}/owners/${now.hand_off.owner_id}/connection`, {
          key: key.key,
          body: { token: now.hand_off.token },
        });
        expect(answer.status, answer.text).toBe(200);
        confirmed = Date.now();
      }
    }
    expect(now.state, JSON.stringify(now, null, 2)).not.toBe('running');
    expect(confirmed).not.toBeNull();
    expect(now.hand_off).toBeNull();
    expect(now.step).toBeNull();
    expect(steps).toContain('Waiting for you to confirm the owner connection handed off');
    expect(now.rules.map((row) => row.rule)).toEqual([...CERTIFICATION_RULES]);
    for (const row of now.rules) expect(row.outcome, `${row.rule}: ${row.evidence}`).not.toBe('pending');
    // This receiver follows every rule the service can observe; the other two are the channel's word.
    for (const row of now.rules)
      expect(row.outcome, `${row.rule}: ${row.evidence}`).toBe(
        SELF_DECLARED_RULES.includes(row.rule as CertificationRule) ? 'self_declared' : 'passed',
      );
    expect(now.state).toBe('passed');

    const listed = await api.call('GET', `${BASE}/sandbox/certifications?limit=5`, { key: key.key });
    expect(listed.status).toBe(200);
    expectMatchesDescription('GET', `${BASE}/sandbox/certifications?limit=5`, listed);
    expect(listed.json.data.map((item: Run) => item.certification_id)).toEqual([run.certification_id]);

    const shown = await admin('certification', 'show', run.certification_id);
    expect(shown.code, shown.stderr).toBe(0);
    const report = JSON.parse(shown.stdout);
    expect(report.state).toBe(now.state);
    expect(report.rules).toEqual(
      now.rules.map(({ rule, outcome, title, evidence }) => ({ rule, outcome, title, evidence })),
    );
    expect(shown.stdout).not.toContain('"token"');
    const operatorList = await admin('certification', 'list', '--channel', channel.name);
    expect(operatorList.code, operatorList.stderr).toBe(0);
    expect(
      JSON.parse(operatorList.stdout).runs.map((item: { certification_id: string }) => item.certification_id),
    ).toEqual([run.certification_id]);
  }, 150_000);

  test("refused: another channel's endpoint, one not subscribed to every type, another channel's run", async () => {
    const { key } = await channelWithKey(ctx, { scopes: [...SCOPES] });
    const { key: other } = await channelWithKey(ctx, { scopes: [...SCOPES] });
    const url = await startChannelReceiver(key.key, () => '');
    const narrow = await endpointOf(key.key, url, ['property.*']);
    const start = (who: string, webhookId: string) =>
      api.call('POST', `${BASE}/sandbox/certifications`, { key: who, body: { webhook_id: webhookId } });
    expectProblem(await start(other.key, narrow.id), 404, 'not_found');
    expectProblem(await start(key.key, narrow.id), 409, 'certification_not_possible');
    expectProblem(await start(key.key, 'whk_nonsense'), 404, 'not_found');
    const unknown = await api.call('GET', `${BASE}/sandbox/certifications/crt_00000000000000000000000000`, {
      key: key.key,
    });
    expectProblem(unknown, 404, 'not_found');
    const none = await api.call('GET', `${BASE}/sandbox/certifications`, { key: other.key });
    expect(none.json).toEqual({ data: [] });
  });

  test('a run left running without its workflow is ended failed by the next start, which goes ahead', async () => {
    const { channel, key } = await channelWithKey(ctx, { scopes: [...SCOPES] });
    const endpoint = await endpointOf(key.key, await startChannelReceiver(key.key, () => ''));
    const lost = newCertificationId(Date.now() - 120_000);
    await insertCertificationRun(ctx.orm.em.fork(), {
      id: lost,
      channelId: channel.id,
      webhookId: endpoint.id,
      step: 'Starting',
      rows: pendingRows(),
      startedAt: new Date(Date.now() - 120_000),
    });
    const started = await api.call('POST', `${BASE}/sandbox/certifications`, {
      key: key.key,
      body: { webhook_id: endpoint.id },
    });
    expect(started.status, started.text).toBe(202);
    const ended = (await api.call('GET', `${BASE}/sandbox/certifications/${lost}`, { key: key.key })).json as Run;
    expect(ended.state).toBe('failed');
    expect(ended.step).toBe('The run stopped: its workflow ended without a report');
    expect(ended.rules.every((row) => row.outcome === 'pending')).toBe(true);
  });
});
