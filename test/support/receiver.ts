import { mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { onCleanup } from './cleanup.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  /** PEM file of the receiver's self-signed certificate: WEBHOOK_CA_FILE for the service. */
  caFile: string;
  received: ReceivedRequest[];
  /** Status the next requests get (default 204). */
  respond: (status: number) => void;
  /** While held, requests get no answer until `release`. */
  hold: () => void;
  /** Answers every held request and stops holding. */
  release: () => void;
  /** Resolves once `count` requests have arrived. */
  waitFor: (count: number, timeoutMs?: number) => Promise<ReceivedRequest[]>;
  /** Resolves once the requests received so far satisfy `done`. */
  waitUntil: (done: (received: ReceivedRequest[]) => boolean, timeoutMs?: number) => Promise<ReceivedRequest[]>;
  close: () => Promise<void>;
}

let material: Promise<{ cert: string; key: string; caFile: string }> | undefined;

async function certificate() {
  material ??= (async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 7 * 24 * 3600 * 1000),
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-receiver-'));
    const caFile = path.join(dir, 'receiver.crt');
    await writeFile(caFile, pems.cert);
    return { cert: pems.cert, key: pems.private, caFile };
  })();
  return material;
}

/**
 * A real HTTPS webhook receiver on this machine, recording every request with its raw body;
 * plain HTTP with `{ tls: false }` (a developer's local receiver, as `channel-kit listen` meets it).
 */
export async function startReceiver(options: { tls?: boolean } = {}): Promise<Receiver> {
  const { cert, key, caFile } = await certificate();
  const received: ReceivedRequest[] = [];
  let status = 204;
  let holding = false;
  const held: (() => void)[] = [];
  const waiters: { done: (r: ReceivedRequest[]) => boolean; resolve: (r: ReceivedRequest[]) => void }[] = [];
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const flat = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
      );
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: flat,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const answer = (code: number) => {
        res.statusCode = code;
        res.end(code === 204 ? undefined : `answer ${code}`);
      };
      if (holding) {
        const code = status;
        held.push(() => answer(code));
      } else answer(status);
      for (const waiter of waiters.filter((w) => w.done(received))) waiter.resolve([...received]);
    });
  };
  const server = options.tls === false ? http.createServer(handle) : https.createServer({ cert, key }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `${options.tls === false ? 'http' : 'https'}://localhost:${port}/hooks`,
    caFile,
    received,
    respond: (next) => {
      status = next;
    },
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    waitFor: (count, timeoutMs = 10_000) =>
      receiver
        .waitUntil((all) => all.length >= count, timeoutMs)
        .catch(() => {
          throw new Error(`receiver: ${received.length} of ${count} requests after ${timeoutMs} ms`);
        }),
    waitUntil: (done, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (done(received)) return resolve([...received]);
        const timer = setTimeout(
          () => reject(new Error(`receiver: ${received.length} requests after ${timeoutMs} ms, not yet as awaited`)),
          timeoutMs,
        );
        waiters.push({
          done,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  onCleanup(() => receiver.close());
  return receiver;
}
