import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import express from 'express';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { listen } from '../../api/server.ts';
import { loadConfig } from '../../app/config.ts';
import { serveMetrics } from '../../app/observability.ts';
import { systemClock } from '../../domain/clock.ts';
import { createLogger } from '../../infra/logger.ts';
import { registry } from '../../infra/metrics.ts';
import { loadTlsMaterial } from '../../infra/tls.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi, TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { onCleanup } from '../support/cleanup.ts';
import { count } from '../support/metrics.ts';

// Raw sockets against the listeners as the service opens them (startTestApi: config, then
// `listen`), on loopback, with timeouts small enough that each test waits about a second.

const HANDSHAKE_MS = 300;
const HEADERS_MS = 300;
const REQUEST_MS = 1500;
const KEEP_ALIVE_MS = 300;
/** The longest any test waits for a close it expects: far below Node's defaults (60 s and more). */
const WAIT_MS = 5000;
/** Retries of a step that waits on the server seeing a client's close: bounded. */
const WAIT_FOR = { timeout: 2000, interval: 50 };

let api: TestApi;
let orm: MikroORM;
let temporal: Client;

beforeAll(async () => {
  ({ api, orm, temporal } = await apiTestBed({
    clock: systemClock,
    env: {
      INTERNAL_PORT: '0',
      TLS_HANDSHAKE_TIMEOUT_MS: String(HANDSHAKE_MS),
      HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
    },
  }));
});

const opened: net.Socket[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) socket.destroy();
});

const portOf = (url: string) => Number(new URL(url).port);

/** A socket whose every byte received is kept, and which never throws its errors. */
function watched<S extends net.Socket>(socket: S): S & { received: () => string } {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  opened.push(socket);
  return Object.assign(socket, { received: () => Buffer.concat(chunks).toString('latin1') });
}

/** A TLS connection that completed its handshake, from `localAddress` (any 127.x.y.z) when given. */
function tlsConnection(url: string, localAddress?: string) {
  const socket = watched(
    tls.connect({
      host: '127.0.0.1',
      port: portOf(url),
      ca: api.ca,
      servername: 'localhost',
      ...(localAddress ? { localAddress } : {}),
    }),
  );
  return new Promise<typeof socket>((resolve, reject) => {
    socket.once('secureConnect', () => resolve(socket));
    socket.once('close', () => reject(new Error('closed before the handshake completed')));
  });
}

/** Whether a TLS connection from `localAddress` gets through its handshake or is closed first. */
async function attempt(url: string, localAddress?: string): Promise<'connected' | 'refused'> {
  return tlsConnection(url, localAddress).then(
    () => 'connected',
    () => 'refused',
  );
}

/** Milliseconds from `since` to the socket's close; undefined when it is still open after WAIT_MS. */
function closeOf(socket: net.Socket, since: number): Promise<number | undefined> {
  if (socket.closed) return Promise.resolve(Date.now() - since);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), WAIT_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - since);
    });
  });
}

/** Writes `piece` every `everyMs` until the socket closes (at most `limit` times). */
function trickle(socket: net.Socket, piece: string, everyMs: number, limit: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || sent++ >= limit) clearInterval(timer);
    else socket.write(piece);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

/** One whole answer read off a kept-alive connection: its status line, once its body is in. */
async function get(socket: net.Socket & { received: () => string }, path: string): Promise<string> {
  const start = socket.received().length;
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  for (let i = 0; i < 100; i++) {
    const text = socket.received().slice(start);
    const headEnd = text.indexOf('\r\n\r\n');
    const length = /\r\ncontent-length: *(\d+)/i.exec(text);
    if (headEnd >= 0 && length && text.length >= headEnd + 4 + Number(length[1])) return text.split('\r\n')[0]!;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no whole answer to GET ${path} in 2 s: ${JSON.stringify(socket.received().slice(start))}`);
}

const refusals = async (listener: string, reason: string) =>
  count(await registry.metrics(), 'svc_api_connections_refused_total', { listener, reason });

describe('timeouts', () => {
  test('a TCP connection that never starts its TLS handshake is closed at TLS_HANDSHAKE_TIMEOUT_MS', async () => {
    const socket = watched(net.connect(portOf(api.url), '127.0.0.1'));
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = await closeOf(socket, Date.now());
    expect(closed).toBeGreaterThanOrEqual(HANDSHAKE_MS - 50);
    expect(closed).toBeLessThan(REQUEST_MS);
  });

  test('a connection silent after the handshake is answered 408 and closed at HEADERS_TIMEOUT_MS, on each listener', async () => {
    const connections = [
      ['public', await tlsConnection(api.url)],
      ['internal', await tlsConnection(api.internalUrl!)],
      ['plain', watched(net.connect(portOf(api.plainUrl), '127.0.0.1'))],
    ] as const;
    const since = Date.now();
    const outcomes = await Promise.all(
      connections.map(async ([listener, socket]) => ({
        listener,
        closed: await closeOf(socket, since),
        answer: socket.received().split('\r\n')[0],
      })),
    );
    for (const outcome of outcomes) {
      expect(outcome).toEqual({
        listener: outcome.listener,
        closed: expect.any(Number),
        answer: 'HTTP/1.1 408 Request Timeout',
      });
      expect(outcome.closed).toBeLessThan(REQUEST_MS);
    }
  });

  test('the metrics listener closes a silent connection at HEADERS_TIMEOUT_MS too', async () => {
    const config = loadConfig({ METRICS_PORT: '0', HEADERS_TIMEOUT_MS: String(HEADERS_MS) });
    const metrics = (await serveMetrics(config, createLogger('silent')))!;
    onCleanup(metrics.close);
    const socket = watched(net.connect(portOf(metrics.url), '127.0.0.1'));
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = await closeOf(socket, Date.now());
    expect(socket.received().split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(closed).toBeLessThan(REQUEST_MS);
  });

  test('headers trickled a line at a time are cut at HEADERS_TIMEOUT_MS with a 408, though bytes keep coming', async () => {
    const socket = await tlsConnection(api.url);
    const since = Date.now();
    socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n');
    trickle(socket, 'X-Slow: 1\r\n', 50, 100);
    const closed = await closeOf(socket, since);
    expect(socket.received().split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(closed).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(closed).toBeLessThan(REQUEST_MS);
  });

  test('a body trickled a byte at a time is cut at REQUEST_TIMEOUT_MS with a 408, though bytes keep coming', async () => {
    const socket = await tlsConnection(api.internalUrl!);
    const since = Date.now();
    socket.write(
      'PUT /internal/v1/organizations/slow-body HTTP/1.1\r\nHost: localhost\r\n' +
        `Authorization: Bearer ${TEST_PLATFORM_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    trickle(socket, ' ', 50, 200);
    const closed = await closeOf(socket, since);
    expect(socket.received().split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(closed).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(closed).toBeLessThan(WAIT_MS);
  });

  test('an idle kept-alive connection is closed at KEEP_ALIVE_TIMEOUT_MS (plus Node’s 1 s buffer) after its last answer', async () => {
    const socket = await tlsConnection(api.url);
    expect(await get(socket, '/health/live')).toBe('HTTP/1.1 200 OK');
    const answered = Date.now();
    const closed = await closeOf(socket, answered);
    expect(closed).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
    expect(closed).toBeLessThan(KEEP_ALIVE_MS + 1000 + 1500);
  });

  test('an answer read slowly is not cut by the request timeout, which covers receiving the request only', async () => {
    const LARGE = Buffer.alloc(8 * 1024 * 1024, 'a');
    let finishedAfter: number | undefined;
    const app = express().get('/large', (_req, res) => {
      const start = Date.now();
      res.on('finish', () => (finishedAfter = Date.now() - start));
      res.type('text/plain').send(LARGE);
    });
    const limits = { ...api.config.http.limits, headersTimeout: 300, requestTimeout: 300 };
    const server = await listen(app, {
      host: '127.0.0.1',
      port: 0,
      plainPort: null,
      tls: await loadTlsMaterial({ dataDir: api.config.dataDir }),
      publicOrigin: 'https://distribution.test',
      limits,
    });
    onCleanup(server.close);
    const socket = await tlsConnection(server.url);
    let read = 0;
    // About 3 MB/s: 16 KiB records with a pause after each, several times the request timeout in all.
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
      socket.pause();
      setTimeout(() => socket.resume(), 5);
    });
    socket.write('GET /large HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await closeOf(socket, Date.now());
    expect(socket.received().split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(read).toBeGreaterThan(LARGE.length);
    // The server was still writing long after a request timeout would have fired.
    expect(finishedAfter).toBeGreaterThan(3 * limits.requestTimeout);
  });
});

describe('connection caps', () => {
  const apiWith = (env: Record<string, string>) => startTestApi({ orm, temporal, clock: systemClock, env });

  test('past MAX_CONNECTIONS a new connection is closed before its handshake, while those open still work', async () => {
    const capped = await apiWith({ MAX_CONNECTIONS: '2', MAX_CONNECTIONS_PER_ADDRESS: '0' });
    const before = await refusals('public', 'max_connections');
    const first = await tlsConnection(capped.url);
    await tlsConnection(capped.url, '127.0.0.2');
    expect(await attempt(capped.url, '127.0.0.3')).toBe('refused');
    expect(await refusals('public', 'max_connections')).toBe(before + 1);
    expect(await get(first, '/health/live')).toBe('HTTP/1.1 200 OK');
    // A closed connection gives its place back (once the server has seen the close).
    first.destroy();
    await vi.waitFor(async () => expect(await attempt(capped.url, '127.0.0.3')).toBe('connected'), WAIT_FOR);
  });

  test('past MAX_CONNECTIONS_PER_ADDRESS an address’s new connection is closed, other addresses still connect', async () => {
    const capped = await apiWith({ MAX_CONNECTIONS_PER_ADDRESS: '2' });
    const before = await refusals('public', 'per_address');
    const first = await tlsConnection(capped.url, '127.0.0.1');
    await tlsConnection(capped.url, '127.0.0.1');
    expect(await attempt(capped.url, '127.0.0.1')).toBe('refused');
    expect(await refusals('public', 'per_address')).toBe(before + 1);
    expect(await attempt(capped.url, '127.0.0.2')).toBe('connected');
    expect(await get(first, '/health/live')).toBe('HTTP/1.1 200 OK');
    // A closed connection gives its place back (once the server has seen the close).
    first.destroy();
    await vi.waitFor(async () => expect(await attempt(capped.url, '127.0.0.1')).toBe('connected'), WAIT_FOR);
  });

  test('the per-address cap holds on the plain-HTTP listener too', async () => {
    const capped = await apiWith({ MAX_CONNECTIONS_PER_ADDRESS: '1' });
    const first = watched(net.connect(portOf(capped.plainUrl), '127.0.0.1'));
    await new Promise((resolve) => first.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = watched(net.connect(portOf(capped.plainUrl), '127.0.0.1'));
    second.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(await closeOf(second, Date.now())).toBeLessThan(WAIT_MS);
    expect(second.received()).toBe('');
    expect(await get(first, '/')).toBe('HTTP/1.1 403 Forbidden');
  });

  test('the internal listener, whose one caller is the platform, has no per-address cap', async () => {
    const capped = await apiWith({ MAX_CONNECTIONS_PER_ADDRESS: '1', INTERNAL_PORT: '0' });
    for (let i = 0; i < 3; i++) expect(await attempt(capped.internalUrl!, '127.0.0.1')).toBe('connected');
  });

  test('0 turns both caps off', async () => {
    const uncapped = await apiWith({ MAX_CONNECTIONS: '0', MAX_CONNECTIONS_PER_ADDRESS: '0' });
    for (let i = 0; i < 4; i++) expect(await attempt(uncapped.url, '127.0.0.1')).toBe('connected');
  });
});
