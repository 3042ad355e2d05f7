import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { generate } from 'selfsigned';
import { Webhook } from 'standardwebhooks';

/** One request as the receiver saw it; `endpoint` is the last segment of the path it was sent to. */
export interface Arrival {
  endpoint: string;
  webhookId: string;
  eventId: string;
  type: string;
  /** The signature checked with the endpoint's secret (Standard Webhooks reference library). */
  verified: boolean;
  at: number;
  /** The process whose connection carried it (`unknown` when no candidate owned it). */
  by: string;
}

export interface ChaosReceiver {
  /** `https://localhost:<port>/hooks/`: an endpoint's URL is this plus its name. */
  baseUrl: string;
  port: number;
  caFile: string;
  arrivals: Arrival[];
  /** Secret of each endpoint (by name), for the signature check. */
  secrets: Map<string, string>;
  /** Answers every request (204) only after `ms`: attempts stay in flight that long. */
  setDelay: (ms: number) => void;
  /** Client ports of the requests received and not yet answered. */
  inFlightPorts: () => number[];
  /** The processes a new connection is looked up among (the running workers). */
  setSenders: (list: () => { name: string; pid: number }[]) => void;
  close: () => Promise<void>;
}

/** A real HTTPS receiver on loopback with a certificate of its own (WEBHOOK_CA_FILE for the service). */
export async function startChaosReceiver(dir: string): Promise<ChaosReceiver> {
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
  const caFile = path.join(dir, 'receiver.crt');
  await writeFile(caFile, pems.cert);
  const arrivals: Arrival[] = [];
  const secrets = new Map<string, string>();
  const inFlight = new Set<number>();
  let delay = 0;
  let senders: () => { name: string; pid: number }[] = () => [];
  const owners = new WeakMap<object, string>();
  const server = https.createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const endpoint = (req.url ?? '').split('/').at(-1) ?? '';
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
      );
      let event: { id?: string; type?: string } = {};
      let verified = false;
      try {
        event = new Webhook(secrets.get(endpoint) ?? '').verify(body, headers) as typeof event;
        verified = true;
      } catch {
        try {
          event = JSON.parse(body) as typeof event;
        } catch {
          // recorded as it came: no event id
        }
      }
      arrivals.push({
        endpoint,
        webhookId: headers['webhook-id'] ?? '',
        eventId: event.id ?? '',
        type: event.type ?? '',
        verified,
        at: Date.now(),
        by: owners.get(req.socket) ?? 'unknown',
      });
      const port = req.socket.remotePort ?? 0;
      inFlight.add(port);
      const answer = () => {
        inFlight.delete(port);
        res.statusCode = 204;
        res.end();
      };
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
  });
  // Which worker opened a connection, looked up once as it opens (it may be kept alive for many requests).
  server.on('secureConnection', (socket) => {
    const port = socket.remotePort ?? 0;
    const { port: own } = server.address() as AddressInfo;
    const owner = senders().find((sender) => ownsConnection(sender.pid, [port], own));
    if (owner) owners.set(socket, owner.name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `https://localhost:${port}/hooks/`,
    port,
    caFile,
    arrivals,
    secrets,
    setDelay: (ms) => {
      delay = ms;
    },
    inFlightPorts: () => [...inFlight],
    setSenders: (list) => {
      senders = list;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Whether the process `pid` owns one of the TCP connections from these local ports to `remotePort`
 * on loopback (Linux: /proc/net/tcp names each socket's inode, /proc/<pid>/fd links to them).
 * This is how the run knows a worker has attempts in flight before killing it.
 */
export function ownsConnection(pid: number, localPorts: number[], remotePort: number): boolean {
  if (localPorts.length === 0) return false;
  const wanted = new Set(localPorts);
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const local = parseInt(fields[1]!.split(':')[1]!, 16);
      const remote = parseInt(fields[2]!.split(':')[1]!, 16);
      if (remote === remotePort && wanted.has(local)) inodes.add(fields[9]!);
    }
  }
  if (inodes.size === 0) return false;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      return match !== null && inodes.has(match[1]!);
    } catch {
      return false;
    }
  });
}
