import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { channelKey } from '../../scripts/chaos/observe.ts';
import { freePort } from '../../scripts/chaos/servers.ts';
import {
  apiClient,
  startServiceProcess,
  waitForLive,
  waitForLog,
  type ApiClient,
  type ServiceProcess,
} from '../../scripts/chaos/service.ts';
import { chaosProperty, platformWrites } from '../../scripts/chaos/writes.ts';
import { selfSignedCertificate } from '../../infra/tls.ts';
import { freshDatabase } from '../support/database.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { startReceiver, type Receiver, type ReceivedRequest } from '../support/receiver.ts';

// Tracing end to end, as deployed: real `scripts/api.ts` and `scripts/worker.ts` processes with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at a collector of the test's own (the API exporting
// http/json, the worker http/protobuf), a Temporal dev server, PostgreSQL and an HTTPS receiver
// on loopback taking two channels' webhooks.

const PLATFORM_TOKEN = 'svc_platform_trace-token-0123456789abcdefghijklmn';
/** OTLP's span kinds. */
const SERVER = 2;
const CLIENT = 3;
/** The second channel's receiver carries a token of its own in its URL's query. */
const RECEIVER_TOKEN = `rcvtok${randomBytes(12).toString('hex')}`;

let dir: string;
let otlp: OtlpReceiver;
let receiver: Receiver;
let api: ApiClient;
let orm: MikroORM;
const processes: ServiceProcess[] = [];
let apiProcess: ServiceProcess;
/** Each channel's key and endpoint: its id, path at the receiver and signing secret (shown once, at creation). */
const channels: Record<'traced' | 'other', { name: string; key: string; id: string; path: string; secret: string }> =
  {} as never;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const traceparent = (traceId: string, spanId: string, flags = '01') => `00-${traceId}-${spanId}-${flags}`;

/** Bounded wait for `pick` to find something among what the receiver got since `from`. */
async function posted<T>(from: number, pick: (received: ReceivedRequest[]) => T | undefined): Promise<T> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const found = pick(receiver.received.slice(from));
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`receiver: not found in ${JSON.stringify(receiver.received.slice(from).map((r) => r.path))}`);
}

/** Each channel's POST of an event of `type` since `from`. */
const deliveriesOf = (from: number, type: string) =>
  posted(from, (received) => {
    const of = (channel: keyof typeof channels) =>
      received.find((r) => r.path === channels[channel].path && (JSON.parse(r.body) as { type: string }).type === type);
    const traced = of('traced');
    const other = of('other');
    return traced && other ? { traced, other } : undefined;
  });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-tracing-'));
  otlp = await startOtlpReceiver();
  receiver = await startReceiver();
  const database = await freshDatabase();
  orm = database.orm;
  const pems = await selfSignedCertificate({ dns: ['localhost'], ips: ['127.0.0.1'] });
  await writeFile(path.join(dir, 'api.crt'), pems.cert);
  await writeFile(path.join(dir, 'api.key'), pems.key);
  const port = await freePort();
  const taskQueue = `e2e-tracing-${randomBytes(4).toString('hex')}`;
  const env = (name: string, protocol: string): Record<string, string> => ({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    SERVER_SECRET: 'trace-server-secret-0123456789abcdefghijklmn',
    PLATFORM_TOKEN,
    WEBHOOK_ALLOW_LOCAL: 'true',
    WEBHOOK_CA_FILE: receiver.caFile,
    TLS_CERT: path.join(dir, 'api.crt'),
    TLS_KEY: path.join(dir, 'api.key'),
    HOST: '127.0.0.1',
    PORT: String(port),
    HTTP_PORT: '0',
    DATA_DIR: path.join(dir, `data-${name}`),
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  apiProcess = startServiceProcess('api', 'scripts/api.ts', env('api', 'http/json'), dir);
  processes.push(apiProcess);
  api = apiClient(`https://127.0.0.1:${port}`, pems.cert);
  await waitForLive(apiProcess, api, 120_000);
  const worker = startServiceProcess('worker', 'scripts/worker.ts', env('worker', 'http/protobuf'), dir);
  processes.push(worker);
  await waitForLog(worker, 'worker running', 120_000);

  for (const [channel, name, suffix] of [
    ['traced', 'trace-channel', '/traced'],
    ['other', 'trace-other', `/other?token=${RECEIVER_TOKEN}`],
  ] as const) {
    const key = await channelKey(env('admin', 'http/json'), name);
    const url = `${receiver.url}${suffix}`;
    const created = await api.call('POST', '/api/v1/distribution/webhooks', key, { url, events: ['property.*'] });
    expect(created.status, created.text).toBe(201);
    const { id, secret } = created.json as { id: string; secret: string };
    channels[channel] = { name, key, id, path: new URL(url).pathname + new URL(url).search, secret };
  }
  const before = receiver.received.length;
  const writes = platformWrites({
    apis: [api],
    token: PLATFORM_TOKEN,
    channel: 'trace-channel',
    properties: 1,
    concurrency: 1,
    deadline: Date.now() + 60_000,
  });
  await writes.setUp();
  const distributed = await api.call('PUT', '/internal/v1/properties/chaos-p0/distribution', PLATFORM_TOKEN, {
    channels: ['trace-channel', 'trace-other'],
  });
  expect(distributed.status, distributed.text).toBeLessThan(300);
  // Warm: the dispatcher runs, and each channel has been sent the property.
  await deliveriesOf(before, 'property.distributed');
}, 300_000);

afterAll(async () => {
  for (const p of processes) await p.kill('SIGTERM');
  api?.close();
  await otlp?.close();
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const byId = (spans: ReceivedSpan[]) => new Map(spans.map((span) => [span.spanId, span]));

/** The span and its ancestors as far as they were exported, nearest first. */
function ancestry(spans: ReceivedSpan[], from: ReceivedSpan): ReceivedSpan[] {
  const index = byId(spans);
  const chain = [from];
  for (let next = index.get(from.parentSpanId); next; next = index.get(next.parentSpanId)) chain.push(next);
  return chain;
}

/** A POST's `traceparent`, in parts. */
function sentTrace(request: ReceivedRequest) {
  const [version, traceId, spanId, flags] = (request.headers.traceparent ?? '').split('-');
  return { version, traceId: traceId ?? '', spanId: spanId ?? '', flags };
}

/** The exported span a POST's `traceparent` names, once it and the span it links to have arrived. */
const postSpanOf = (spans: ReceivedSpan[], request: ReceivedRequest) => {
  const { traceId, spanId } = sentTrace(request);
  const span = spans.find((s) => s.traceId === traceId && s.spanId === spanId);
  return span && spans.some((s) => s.spanId === span.links[0]?.spanId) ? span : undefined;
};

test("a platform write's trace (its incoming traceparent honoured) runs through the API, the dispatcher's start and each channel's delivery attempt; each POST names a span of a trace of its own, linked both ways to its attempt", async () => {
  const traceId = hex(16);
  const callerSpan = hex(8);
  const before = receiver.received.length;
  const written = await api.call('PUT', '/internal/v1/properties/chaos-p0', PLATFORM_TOKEN, chaosProperty(7), {
    traceparent: traceparent(traceId, callerSpan),
    tracestate: 'platform=1',
  });
  expect(written.status, written.text).toBeLessThan(300);

  const posts = await deliveriesOf(before, 'property.updated');
  const sent = { traced: sentTrace(posts.traced), other: sentTrace(posts.other) };
  // Each POST names a trace of its own: not the write's, not the other channel's; no tracestate.
  for (const { version, traceId: sentId, spanId, flags } of Object.values(sent)) {
    expect(version).toBe('00');
    expect(sentId).toMatch(/^[0-9a-f]{32}$/);
    expect(spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(sentId).not.toBe(traceId);
    expect(flags).toBe('01');
  }
  expect(sent.traced.traceId).not.toBe(sent.other.traceId);
  expect(posts.traced.headers.tracestate).toBeUndefined();
  expect(posts.other.headers.tracestate).toBeUndefined();
  // The trace header sits beside the three Standard Webhooks headers, which still verify.
  expect(new Webhook(channels.traced.secret).verify(posts.traced.body, posts.traced.headers)).toMatchObject({
    type: 'property.updated',
  });

  const spans = await otlp.waitFor(
    (all) =>
      [posts.traced, posts.other].every((post) => {
        const span = postSpanOf(all, post);
        const attempt = span && all.find((s) => s.spanId === span.links[0]!.spanId);
        return attempt !== undefined && ancestry(all, attempt).at(-1)?.parentSpanId === callerSpan;
      }),
    30_000,
  );

  for (const channel of ['traced', 'other'] as const) {
    // The POST's span: the root of the trace the receiver was given, linked to its attempt.
    const post = postSpanOf(spans, posts[channel])!;
    expect(post).toMatchObject({
      name: 'webhook POST',
      kind: CLIENT,
      parentSpanId: '',
      service: 'distribution-service-worker',
      traceState: '',
    });
    expect(post.attributes).toMatchObject({
      'webhook.endpoint_id': channels[channel].id,
      'webhook.event_id': JSON.parse(posts[channel].body).id,
      'http.response.status_code': 204,
    });
    expect(post.links).toHaveLength(1);
    const attempt = spans.find((s) => s.spanId === post.links[0]!.spanId)!;
    expect(post.links[0]!.traceId).toBe(traceId);
    // The attempt, in the write's trace, leads on to the POST's.
    expect(attempt).toMatchObject({ name: 'RunActivity:attemptDelivery', service: 'distribution-service-worker' });
    expect(attempt.links).toContainEqual(expect.objectContaining({ traceId: post.traceId, spanId: post.spanId }));

    const chain = ancestry(spans, attempt);
    const names = chain.map((s) => `${s.service.replace('distribution-service-', '')} ${s.name}`);
    // The attempt's workflow, started by the dispatcher under the write's span, in the API's request.
    expect(names.slice(0, 5), names.join(' <- ')).toEqual([
      'worker RunActivity:attemptDelivery',
      'worker StartActivity:attemptDelivery',
      'worker RunWorkflow:webhookDelivery',
      'worker StartWorkflow:webhookDelivery',
      'worker webhook dispatch',
    ]);
    expect(chain.every((s) => s.traceId === traceId)).toBe(true);
    const dispatch = chain[4]!;
    expect(dispatch.attributes).toMatchObject({
      'webhook.event_type': 'property.updated',
      'webhook.channel': channels[channel].name,
    });
    // Linked to the dispatcher's own run (another trace: the dispatcher outlives any write).
    expect(dispatch.links).toHaveLength(1);
    expect(dispatch.links[0]!.traceId).not.toBe(traceId);
    const apiPart = chain.slice(5);
    expect(apiPart.length).toBeGreaterThan(0);
    expect(apiPart.every((s) => s.service === 'distribution-service-api')).toBe(true);
    const root = chain.at(-1)!;
    expect(root).toMatchObject({
      kind: SERVER,
      parentSpanId: callerSpan,
      scope: '@opentelemetry/instrumentation-http',
      traceState: 'platform=1',
    });
    expect(root.attributes['http.route']).toBe('/internal/v1/properties/:ref');
  }

  const inTrace = spans.filter((span) => span.traceId === traceId);
  // The request's Express handler and its statements are in the trace too.
  const apiSpans = inTrace.filter((s) => s.service === 'distribution-service-api');
  expect(apiSpans.some((s) => s.scope === '@opentelemetry/instrumentation-express')).toBe(true);
  const statements = apiSpans
    .filter((s) => s.scope === '@opentelemetry/instrumentation-pg')
    .map((s) => s.attributes['db.query.text'] ?? s.attributes['db.statement'])
    .filter((text) => typeof text === 'string');
  // The statement's text, its values replaced by `?`.
  expect(statements.find((text) => text.startsWith('insert into event '))).toMatch(/ values \(\?, \?, \?, [^']*$/);
  expect(new Set(apiSpans.map((s) => s.encoding))).toEqual(new Set(['http/json']));
  expect(new Set(inTrace.filter((s) => s.service === 'distribution-service-worker').map((s) => s.encoding))).toEqual(
    new Set(['http/protobuf']),
  );
  expect(otlp.refused).toEqual([]);

  // The API's log line of the request carries the trace.
  const line = apiLines().find((l) => l.message === 'request' && l.method === 'PUT' && l.trace_id === traceId);
  expect(line).toMatchObject({
    path: '/internal/v1/properties/chaos-p0',
    span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
  });
});

function apiLines(): Record<string, unknown>[] {
  return apiProcess
    .log()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test("a channel's traceparent decides neither its request's trace nor its sampling: the request starts a trace of its own linked to the caller's span, and the ping it sends names a third", async () => {
  const callerTrace = hex(16);
  const callerSpan = hex(8);
  const before = receiver.received.length;
  // Flags 00: the caller says "not sampled"; the request is traced all the same.
  const pinged = await api.call(
    'POST',
    `/api/v1/distribution/webhooks/${channels.traced.id}/test`,
    channels.traced.key,
    undefined,
    { traceparent: traceparent(callerTrace, callerSpan, '00'), tracestate: 'channel=1' },
  );
  expect(pinged.status, pinged.text).toBe(200);
  const ping = await posted(before, (received) =>
    received.find((r) => (JSON.parse(r.body) as { type: string }).type === 'webhook.ping'),
  );

  const spans = await otlp.waitFor(
    (all) => all.some((s) => s.links.some((l) => l.traceId === callerTrace)) && postSpanOf(all, ping) !== undefined,
    30_000,
  );
  const server = spans.find((s) => s.links.some((l) => l.traceId === callerTrace))!;
  expect(server).toMatchObject({
    kind: SERVER,
    parentSpanId: '',
    scope: '@opentelemetry/instrumentation-http',
    traceState: '',
    links: [{ traceId: callerTrace, spanId: callerSpan, traceState: '', attributes: {} }],
  });
  expect(server.traceId).not.toBe(callerTrace);
  expect(server.attributes['http.route']).toBe('/api/v1/distribution/webhooks/:webhook_id/test');
  expect(spans.some((s) => s.traceId === callerTrace)).toBe(false);
  // The ping's POST: a trace of its own, linked to a span of the request's.
  const post = postSpanOf(spans, ping)!;
  expect(post.traceId).not.toBe(server.traceId);
  expect(post.traceId).not.toBe(callerTrace);
  expect(spans.find((s) => s.spanId === post.links[0]!.spanId)!.traceId).toBe(server.traceId);
  // The log line of the request names the service's trace, not the caller's.
  const line = apiLines().find((l) => l.message === 'request' && l.trace_id === server.traceId);
  expect(line).toMatchObject({ method: 'POST', operation: 'testWebhook' });
  expect(apiLines().some((l) => l.trace_id === callerTrace)).toBe(false);
});

test("no exported span's name, attributes, events, status, links or resource carries a guest's e-mail or phone, a receiver URL's token, a signing secret sealed or not, a key, a query string's value, a request's header or body value, or a property's text", async () => {
  // Letters only: a run of digits in a property's description reads as a phone number and is refused.
  const tag = hex(6).replace(/\d/g, (digit) => 'ghijklmnop'[Number(digit)]!);
  const guest = { email: `guest.${tag}@trace.example`, phone: `+4072${randomInt(100_000, 1_000_000)}` };
  const secretText = { description: `Priveliste spre lacul ${tag}x`, channel: `nochannel${tag}` };
  const query = { cursor: `curs${tag}`, hostToken: `hosttok${tag}` };
  const userAgent = `agent-${tag}`;
  const platformTrace = hex(16);
  const before = receiver.received.length;
  const platform = (method: string, route: string, body?: unknown) =>
    api.call(method, route, PLATFORM_TOKEN, body, {
      traceparent: traceparent(platformTrace, hex(8)),
      'user-agent': userAgent,
    });

  const written = await platform('PUT', '/internal/v1/guests/trace-guest', {
    organization: 'chaos-org',
    first_name: 'Ana',
    last_name: 'Popescu',
    ...guest,
  });
  expect(written.status, written.text).toBe(201);
  expect((await platform('GET', '/internal/v1/guests/trace-guest')).status).toBe(200);
  // Refused with a detail naming the value sent: the handler's error is recorded on its span.
  const refused = await platform('POST', '/internal/v1/owners/chaos-own/owner-connect', {
    channel: secretText.channel,
  });
  expect(refused.status).toBe(404);
  expect(refused.text).toContain(secretText.channel);
  const property = { ...chaosProperty(9), description: { ro: secretText.description } };
  expect((await platform('PUT', '/internal/v1/properties/chaos-p0', property)).status).toBeLessThan(300);
  const read = await api.call(
    'GET',
    `/api/v1/distribution/events?cursor=${query.cursor}`,
    channels.other.key,
    undefined,
    { 'user-agent': userAgent },
  );
  expect(read.status).toBeGreaterThanOrEqual(400);
  await api.call('GET', `/host/open?token=${query.hostToken}`, '');

  const posts = await deliveriesOf(before, 'property.updated');
  // Everything of these requests and deliveries has been exported.
  const named = (all: ReceivedSpan[], post: ReceivedRequest) =>
    all.some((s) => s.traceId === sentTrace(post).traceId && s.spanId === sentTrace(post).spanId);
  const served = (all: ReceivedSpan[], route: string) =>
    all.some((s) => s.kind === SERVER && s.attributes['http.route'] === route);
  const spans = await otlp.waitFor(
    (all) =>
      named(all, posts.traced) &&
      named(all, posts.other) &&
      all.filter((s) => s.traceId === platformTrace && s.kind === SERVER).length === 4 &&
      served(all, '/api/v1/distribution/events') &&
      served(all, '/host/open'),
    30_000,
  );
  const sealed = await orm.em
    .fork()
    .execute<{ secret: string }[]>('select secret from webhook_endpoint where secret is not null');
  expect(sealed).toHaveLength(2);

  const values: Record<string, string> = {
    'guest e-mail': guest.email,
    'guest phone': guest.phone,
    "receiver URL's token": RECEIVER_TOKEN,
    ...Object.fromEntries(sealed.map(({ secret }, i) => [`sealed secret ${i}`, secret])),
    'signing secret (traced)': channels.traced.secret,
    'signing secret (other)': channels.other.secret,
    'signing secret (traced, key part)': channels.traced.secret.replace(/^whsec_/, ''),
    'channel key': channels.other.key,
    'platform token': PLATFORM_TOKEN,
    "property's text": secretText.description,
    "a refused body's value": secretText.channel,
    'query value (cursor)': query.cursor,
    'query value (host link)': query.hostToken,
    'user agent': userAgent,
  };
  const leaks: string[] = [];
  for (const [label, value] of Object.entries(values)) {
    for (const span of spans)
      if (JSON.stringify(span).includes(value))
        leaks.push(`${label} in ${span.service} "${span.name}": ${where(span, value)}`);
    if (otlp.bodies.some((body) => body.includes(value))) leaks.push(`${label} in an export's body`);
  }
  expect(leaks).toEqual([]);
});

/** Which part of a span holds `value`, for the failure's message. */
function where(span: ReceivedSpan, value: string): string {
  const parts: Record<string, unknown> = {
    name: span.name,
    traceState: span.traceState,
    status: span.status,
    resource: span.resource,
    ...Object.fromEntries(Object.entries(span.attributes).map(([key, v]) => [`attribute ${key}`, v])),
    ...Object.fromEntries(span.events.map((event, i) => [`event ${i} ${event.name}`, event])),
    ...Object.fromEntries(span.links.map((link, i) => [`link ${i}`, link])),
  };
  return Object.entries(parts)
    .filter(([, part]) => JSON.stringify(part).includes(value))
    .map(([name]) => name)
    .join(', ');
}
