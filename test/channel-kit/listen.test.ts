import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, test } from 'vitest';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import {
  listen,
  newWebhookSecret,
  verifyWebhook,
  type ChannelClient,
  type CursorStore,
  type ListenLine,
  type ListenOptions,
} from '../../clients/channel-kit/src/index.ts';
import { fetchTrusting, kitClient, startKitService } from '../support/channel-kit.ts';
import { onCleanup } from '../support/cleanup.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { runNode } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * `listen` against the real service: the channel's event log, read with its key, forwarded to an
 * HTTPS receiver on this machine, signed so that the kit's verifier accepts each event.
 */

const CLI = path.resolve(import.meta.dirname, '../../clients/channel-kit/src/cli.ts');

let service: Awaited<ReturnType<typeof startKitService>>;
let key: string;
let client: ChannelClient;
let writes = 0;

beforeAll(async () => {
  service = await startKitService('channel-kit-listen');
  const made = await channelWithKey(service.ctx, { scopes: ['read:catalog', 'read:ari'] });
  key = made.key.key;
  client = kitClient(service.api, key, { fetch: service.fetch });
  await service.host.organization('kl-org');
  await service.host.owner('kl-own', { organization: 'kl-org' });
  await service.host.location('kl-loc', { organization: 'kl-org', owner: 'kl-own' });
  await service.host.property('kl-p1', { location: 'kl-loc', owner: 'kl-own' });
  await service.host.distribute('kl-p1', [made.channel.name]);
});

/** A change the channel sees: one `property.updated` in its log. */
async function change(): Promise<void> {
  writes++;
  await service.host.property('kl-p1', {
    location: 'kl-loc',
    owner: 'kl-own',
    name: { ro: `Ascultat ${writes}`, en: `Listened ${writes}` },
  });
}

async function logEvents() {
  const events = [];
  for await (const event of client.paginate('/events')) events.push(event);
  return events;
}

class MemoryCursors implements CursorStore {
  cursor: string | undefined;
  load() {
    return Promise.resolve(this.cursor);
  }
  save(cursor: string) {
    this.cursor = cursor;
    return Promise.resolve();
  }
}

/** `listen` in this process until `stop()`; its lines, and a wait for the first of a kind. */
function listening(
  forwardTo: string,
  options: Partial<ListenOptions> & Pick<ListenOptions, 'secret' | 'forwardFetch'>,
) {
  const controller = new AbortController();
  const lines: ListenLine[] = [];
  const waiters: (() => void)[] = [];
  const running = listen({
    client,
    forwardTo,
    pollSeconds: 0.1,
    signal: controller.signal,
    onLine: (line) => {
      lines.push(line);
      for (const wake of waiters.splice(0)) wake();
    },
    ...options,
  });
  const until = async (kind: ListenLine['kind']) => {
    for (let i = 0; i < 200 && !lines.some((line) => line.kind === kind); i++) {
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    expect(lines.map((line) => line.kind)).toContain(kind);
  };
  return {
    lines,
    until,
    stop: async () => {
      controller.abort();
      return running;
    },
  };
}

async function httpsReceiver(): Promise<Receiver & { ca: string }> {
  const receiver = await startReceiver();
  onCleanup(() => receiver.close());
  return { ...receiver, ca: await readFile(receiver.caFile, 'utf8') };
}

describe('channel-kit listen', () => {
  test('from the oldest kept event, every event of the log is forwarded in order, signed so verifyWebhook accepts it', async () => {
    await change();
    const expected = await logEvents();
    expect(expected.length).toBeGreaterThanOrEqual(3);
    const receiver = await httpsReceiver();
    const secret = newWebhookSecret();
    const run = listening(receiver.url, { secret, from: 'oldest', forwardFetch: fetchTrusting(receiver.ca) });
    const received = await receiver.waitFor(expected.length);
    const result = await run.stop();
    expect(run.lines[0]).toMatchObject({ kind: 'start', from: 'oldest', cursor: null });
    const verified = received.map((request) => verifyWebhook(request.body, request.headers, secret));
    expect(verified).toEqual(expected);
    expect(received.map((request) => request.headers['webhook-id'])).toEqual(expected.map((event) => event.id));
    expect(result).toMatchObject({ forwarded: expected.length, failed: 0 });
    expect(run.lines.filter((line) => line.kind === 'forwarded')).toHaveLength(expected.length);
  });

  test('from the latest, only what comes next is forwarded; a second run resumes where the first stopped', async () => {
    const receiver = await httpsReceiver();
    const secret = newWebhookSecret();
    const cursors = new MemoryCursors();
    const options = { secret, from: 'latest' as const, cursorStore: cursors, forwardFetch: fetchTrusting(receiver.ca) };
    const first = listening(receiver.url, options);
    await first.until('start');
    expect(first.lines[0]).toMatchObject({ kind: 'skipped' });
    expect((first.lines[0] as { events: number }).events).toBeGreaterThan(0);
    await change();
    const [one] = await receiver.waitFor(1);
    await first.stop();
    expect(verifyWebhook(one!.body, one!.headers, secret)).toMatchObject({
      type: 'property.updated',
      data: { object: 'property' },
    });

    // Two changes while nothing listens: the next run forwards exactly those, nothing earlier.
    await change();
    await change();
    const second = listening(receiver.url, options);
    const all = await receiver.waitFor(3);
    await second.stop();
    expect(second.lines[0]).toMatchObject({ kind: 'start', from: 'saved' });
    expect(all).toHaveLength(3);
    const ids = all.map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(3);
  });

  test('a forward answered 500 is tried again quickly and passed over; the events after it still arrive', async () => {
    const receiver = await httpsReceiver();
    const secret = newWebhookSecret();
    receiver.respond(500);
    const run = listening(receiver.url, {
      secret,
      retryDelaysMs: [20, 20],
      forwardFetch: fetchTrusting(receiver.ca),
      events: ['property.*'],
    });
    await run.until('start');
    await change();
    await run.until('failed');
    receiver.respond(204);
    await change();
    await run.until('forwarded');
    const result = await run.stop();
    const failed = run.lines.find((line) => line.kind === 'failed');
    expect(failed).toMatchObject({ kind: 'failed', status: 500, tries: 3, event: { type: 'property.updated' } });
    const requests = receiver.received;
    expect(requests).toHaveLength(4);
    // Three tries of one event, each signed afresh, then the next event.
    expect(new Set(requests.slice(0, 3).map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(requests[3]!.headers['webhook-id']).not.toBe(requests[0]!.headers['webhook-id']);
    expect(result).toMatchObject({ forwarded: 1, failed: 1 });
  });

  test('a receiver not yet listening is waited for, not passed over: the event arrives once it starts', async () => {
    // A free port, with nothing on it until the receiver starts below.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const secret = newWebhookSecret();
    const bodies: string[] = [];
    const run = listening(`http://127.0.0.1:${port}/hooks`, {
      secret,
      forwardFetch: (request) => globalThis.fetch(request),
      retryDelaysMs: [20, 20],
    });
    await run.until('start');
    await change();
    await run.until('receiver_down');
    // Longer than all the quick tries together: a refused connection is not one of them.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const late = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => late.listen(port, '127.0.0.1', resolve));
    onCleanup(() => new Promise((resolve) => late.close(resolve)));
    await run.until('forwarded');
    const result = await run.stop();
    expect(result).toMatchObject({ forwarded: 1, failed: 0 });
    expect(run.lines.filter((line) => line.kind === 'receiver_down')).toHaveLength(1);
    expect(JSON.parse(bodies[0]!)).toMatchObject({ type: 'property.updated' });
  });

  test('the command prints its generated secret and one line per event, stops on SIGINT and resumes from its state file', async () => {
    // A developer's receiver on plain HTTP; --ca trusts the service's development certificate.
    const receiver = await startReceiver({ tls: false });
    onCleanup(() => receiver.close());
    const dir = await mkdtemp(path.join(os.tmpdir(), 'channel-kit-listen-'));
    const bundle = path.join(dir, 'localhost.crt');
    await writeFile(bundle, service.api.ca);
    const state = path.join(dir, 'listen.json');
    const args = [
      CLI,
      'listen',
      '--json',
      '--base-url',
      `${service.api.url}${DISTRIBUTION_BASE}`,
      '--forward-to',
      receiver.url,
      '--ca',
      bundle,
      '--state',
      state,
    ];

    const first = command([...args, '--from', 'oldest']);
    const secretLine = await first.next((line) => line.kind === 'secret');
    const secret = secretLine.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const expected = await logEvents();
    await first.next((line) => line.kind === 'forwarded' && (line.event as { id: string }).id === expected.at(-1)!.id);
    const firstExit = await first.interrupt();
    expect(firstExit.code).toBe(0);
    expect(firstExit.lines.at(-1)).toMatchObject({ kind: 'stopped', forwarded: expected.length, failed: 0 });
    const received = receiver.received.map((request) => verifyWebhook(request.body, request.headers, secret));
    expect(received).toEqual(expected);

    const saved = await readFile(state, 'utf8');
    expect(saved).not.toContain(key);
    expect(Object.values(JSON.parse(saved) as Record<string, { cursor: string }>)[0]!.cursor).toBeTruthy();

    // The next run, with the same secret, forwards the change made while it was stopped, and only that.
    await change();
    const second = command([...args, '--secret', secret]);
    const forwarded = await second.next((line) => line.kind === 'forwarded');
    const secondExit = await second.interrupt();
    expect(secondExit.code).toBe(0);
    expect(secondExit.lines[0]).toMatchObject({ kind: 'start', from: 'saved' });
    expect(secondExit.lines.some((line) => line.kind === 'secret')).toBe(false);
    expect(receiver.received).toHaveLength(expected.length + 1);
    expect(forwarded).toMatchObject({ status: 204, event: { type: 'property.updated' } });
  });
  test('the command refuses a base URL that is not https://, from --base-url or DISTRIBUTION_API_URL, before sending anything', async () => {
    // What a plain-HTTP address would reach: nothing may arrive here, the key least of all.
    const arrived: string[] = [];
    const plain = http.createServer((req, res) => {
      arrived.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(401, { 'content-type': 'application/problem+json' }).end('{"status":401}');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise((resolve) => plain.close(resolve)));
    const plainBase = `http://127.0.0.1:${(plain.address() as AddressInfo).port}${DISTRIBUTION_BASE}`;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'channel-kit-plain-'));
    const args = ['listen', '--json', '--forward-to', 'http://127.0.0.1:9/hooks', '--state', path.join(dir, 'l.json')];

    for (const [given, extraArgs, extraEnv] of [
      ['--base-url', ['--base-url', plainBase], {}],
      ['DISTRIBUTION_API_URL', [], { DISTRIBUTION_API_URL: plainBase }],
    ] as const) {
      const exit = await runNode(CLI, [...args, ...extraArgs], { DISTRIBUTION_API_KEY: key, ...extraEnv }, 30_000);
      expect(exit.code, given).toBe(2);
      expect(exit.stderr.split('\n')[0], given).toMatch(/^channel-kit: --base-url .*https:\/\/.*compromised/);
      expect(exit.stdout, given).toBe('');
    }
    expect(arrived).toEqual([]);
  });
});

/** The CLI as a child process with the channel's key in its environment, its stdout as JSON lines. */
function command(args: string[]) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, DISTRIBUTION_API_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onCleanup(() => child.kill('SIGKILL'));
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    lines.push(JSON.parse(text) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    next: async (match: (line: Record<string, unknown>) => boolean) => {
      for (let i = 0; i < 300; i++) {
        const found = lines.find(match);
        if (found) return found;
        if (child.exitCode !== null) break;
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      throw new Error(`no such line; the command printed ${JSON.stringify(lines)} ${stderr}`);
    },
    interrupt: async () => {
      child.kill('SIGINT');
      const code = await exited;
      return { code, lines, stderr };
    },
  };
}
