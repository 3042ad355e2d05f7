/**
 * The floor the catalogue's reads are measured against: a bare `node:https` + `pg` server
 * answering `GET /properties?limit=N&cursor=…` with the service's query on the same database,
 * the same certificate and TLS options, and the same bytes per record (the stored text spliced).
 * No authentication, no rate limit, no framework, no signed cursor (the position in plain).
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { serverTlsOptions, type TlsMaterial } from '../infra/tls.ts';

interface Row {
  external_id: string;
  status: string;
  version: string;
  updated_at: Date;
  /** `updated_at` as text, to the microsecond: the plain cursor. */
  position: string;
  body: string;
}

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

export async function startBareCatalogue(
  databaseUrl: string,
  tls: TlsMaterial,
  channelId: string,
): Promise<BareServer> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const server = https.createServer(serverTlsOptions(tls), (req, res) => {
    const url = new URL(req.url ?? '/', 'https://bare.test');
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const cursor = url.searchParams.get('cursor');
    const after = cursor
      ? (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { u: string; i: string })
      : null;
    const sql = `select external_id, status, version, updated_at, updated_at::text as position, body::text as body from channel_resource
      where channel_id = $1 and kind = 'property' and status in ('active', 'inactive') ${after ? 'and (updated_at, external_id) > ($3::timestamptz, $4)' : ''}
      order by updated_at, external_id limit $2`;
    pool
      .query<Row>(sql, after ? [channelId, limit + 1, after.u, after.i] : [channelId, limit + 1])
      .then(({ rows }) => {
        const page = rows.slice(0, limit);
        const items = page.map((row) => {
          const opening = JSON.stringify({ id: row.external_id, status: row.status }).slice(0, -1);
          return `${opening},"version":${Number(row.version)},"updated_at":${JSON.stringify(`${row.updated_at.toISOString().slice(0, 19)}Z`)}${row.body.slice(opening.length)}`;
        });
        const last = page.at(-1);
        const next =
          rows.length > limit && last
            ? Buffer.from(JSON.stringify({ u: last.position, i: last.external_id })).toString('base64url')
            : null;
        const body = `{"data":[${items.join(',')}],"next_cursor":${JSON.stringify(next)}}`;
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      })
      .catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
  });
  return listenBare(server, pool);
}

/** A bare server listening on a port of loopback the system hands out; closing it ends its pool too. */
export async function listenBare(server: https.Server, pool: pg.Pool): Promise<BareServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

export interface Throughput {
  pages: number;
  seconds: number;
  latencies: number[];
  /** This process's CPU over the run, in ms: the server's and the clients' (they share it). */
  processCpuMs: number;
}

/**
 * `clients` keep-alive clients, each on its own connection, walk the property list from its start
 * through its cursors, over and over, for `seconds`. The cursor is cut from the answer's tail, so
 * the client spends the same on either server whatever the page holds.
 */
export async function readPages(
  target: { url: string; headers: Record<string, string> },
  ca: string,
  clients: number,
  seconds: number,
  limit = 100,
): Promise<Throughput> {
  const latencies: number[] = [];
  let pages = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const walk = async () => {
    const agent = new https.Agent({ keepAlive: true, ca, maxSockets: 1 });
    let cursor: string | null = null;
    try {
      while (performance.now() < deadline) {
        const began = performance.now();
        const text = await fetchText(
          agent,
          `${target.url}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          target.headers,
        );
        latencies.push(performance.now() - began);
        pages += 1;
        const tail = text.slice(text.lastIndexOf('"next_cursor":') + '"next_cursor":'.length, -1);
        cursor = JSON.parse(tail) as string | null;
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: clients }, walk));
  const used = process.cpuUsage(cpu);
  return {
    pages,
    seconds: (performance.now() - start) / 1000,
    latencies,
    processCpuMs: (used.user + used.system) / 1000,
  };
}

function fetchText(agent: https.Agent, url: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks).toString('utf8'))
            : reject(new Error(`${url} answered ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}
