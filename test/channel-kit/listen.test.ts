import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  listen,
  newWebhookSecret,
  verifyWebhook,
  type ChannelClient,
  type CursorStore,
  type ListenLine,
  type ListenOptions,
} from '../../clients/channel-kit/src/index.ts';
import { fetchTrusting, startListenBed } from '../support/channel-kit.ts';
import { onCleanup } from '../support/cleanup.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * `listen` against the real service: the channel's event log, read with its key, forwarded to an
 * HTTPS receiver on this machine, signed so that the kit's verifier accepts each event. The
 * command around it is listen-command.test.ts.
 */

let bed: Awaited<ReturnType<typeof startListenBed>>;
let client: ChannelClient;

beforeAll(async () => {
  bed = await startListenBed('channel-kit-listen', 'kl');
  client = bed.client;
});

const change = () => bed.change();
const logEvents = () => bed.logEvents();

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

  test('with no position saved and no from, only what comes next is forwarded; a second run resumes where the first stopped', async () => {
    const receiver = await httpsReceiver();
    const secret = newWebhookSecret();
    const cursors = new MemoryCursors();
    const options = { secret, cursorStore: cursors, forwardFetch: fetchTrusting(receiver.ca) };
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

  test('an explicit from or cursor wins over a saved position, naming the one it replaces; without either the saved one is resumed', async () => {
    await change();
    const expected = await logEvents();
    const receiver = await httpsReceiver();
    const secret = newWebhookSecret();
    const forwardFetch = fetchTrusting(receiver.ca);
    // A run that stopped at the log's end saved its position there.
    const cursors = new MemoryCursors();
    const saved = await bed.logEnd();
    cursors.cursor = saved;

    const oldest = listening(receiver.url, { secret, from: 'oldest', cursorStore: cursors, forwardFetch });
    const received = await receiver.waitFor(expected.length);
    await oldest.stop();
    expect(oldest.lines[0]).toEqual({
      kind: 'start',
      from: 'oldest',
      cursor: null,
      forwardTo: receiver.url,
      replaced: saved,
    });
    expect(received.map((request) => request.headers['webhook-id'])).toEqual(expected.map((event) => event.id));

    // No flag: the position this run saved is resumed, and only what comes next is forwarded.
    const position = cursors.cursor;
    const resumed = listening(receiver.url, { secret, cursorStore: cursors, forwardFetch });
    await resumed.until('start');
    await change();
    const all = await receiver.waitFor(expected.length + 1);
    await resumed.stop();
    expect(resumed.lines[0]).toMatchObject({ kind: 'start', from: 'saved', cursor: position, replaced: null });
    expect(all).toHaveLength(expected.length + 1);
    expect(verifyWebhook(all.at(-1)!.body, all.at(-1)!.headers, secret)).toMatchObject({ type: 'property.updated' });

    // A cursor given wins too, naming the saved position it sets aside.
    const advanced = cursors.cursor;
    expect(advanced).not.toBe(saved);
    const given = listening(receiver.url, { secret, cursor: saved, cursorStore: cursors, forwardFetch });
    await given.until('start');
    await given.stop();
    expect(given.lines[0]).toMatchObject({ kind: 'start', from: 'cursor', cursor: saved, replaced: advanced });
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
});
