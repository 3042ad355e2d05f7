/**
 * The floor the availability pull is measured against: a bare `node:https` + `pg` server answering
 * `GET …/availability?limit=N&cursor=…` from the service's tables with the obvious queries, the
 * same certificate and TLS options, and the same page (the same records, nights and rate plan
 * ids, a page ending at 5,000 nights with the cut property continued on the next). No
 * authentication, no rate limit, no framework, no signed cursor (the position in plain), no
 * query parameters but `limit` and `cursor`, one window (`today` up to each horizon's end), no
 * content coding: the work of serving the nights and nothing else.
 *
 * The obvious queries: the page's properties in stamp order, then their nights one row each and
 * their rate plans' ids, and each night's placeholders replaced by a regular expression.
 */
import https from 'node:https';
import pg from 'pg';
import { MAX_PAGE_NIGHTS, MAX_WINDOW_NIGHTS, daysBetween } from '../domain/availability/nights.ts';
import { addDays } from '../domain/time.ts';
import { serverTlsOptions, type TlsMaterial } from '../infra/tls.ts';
import { listenBare, type BareServer } from './bare-catalogue.ts';

interface Candidate {
  external_id: string;
  property_id: string;
  currency: string;
  version: string;
  updated_at: Date;
  /** `updated_at` as text, to the microsecond: the plain cursor. */
  stamp: string;
  horizon_end: string;
}

/** Where the previous page ended: the last property's stamp and id, and the night it continues from ('' if whole). */
interface Position {
  u: string;
  p: string;
  d: string;
}

const PLACEHOLDER = /"\\u0001([A-Za-z0-9._:-]+)"/g;

export async function startBareAvailability(
  databaseUrl: string,
  tls: TlsMaterial,
  channelId: string,
  today: string,
): Promise<BareServer> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // An idle connection ended by the server (the bench dropping its database after a failure)
  // must not end the process before the failure is reported.
  pool.on('error', () => undefined);

  async function page(limit: number, after: Position | null): Promise<{ body: string; next: string | null }> {
    const want = Math.min(limit, Math.ceil(MAX_PAGE_NIGHTS / MAX_WINDOW_NIGHTS) + 1) + 1;
    const { rows: candidates } = await pool.query<Candidate>(
      `select cr.external_id, a.property_id, a.currency, a.version, a.updated_at, a.updated_at::text as stamp,
              to_char(a.horizon_end, 'YYYY-MM-DD') as horizon_end
         from ari_property a join channel_resource cr on cr.channel_id = $1 and cr.kind = 'property' and cr.internal_id = a.property_id
        where cr.status in ('active', 'inactive') ${after ? `and (a.updated_at, a.property_id) ${after.d ? '>=' : '>'} ($3::timestamptz, $4::uuid)` : ''}
        order by a.updated_at, a.property_id limit $2`,
      after ? [channelId, want, after.u, after.p] : [channelId, want],
    );
    const slices: { candidate: Candidate; from: string; to: string; take: number }[] = [];
    let planned = 0;
    for (const candidate of candidates) {
      if (slices.length >= limit || planned >= MAX_PAGE_NIGHTS) break;
      const resumed = slices.length === 0 && after?.d && after.p === candidate.property_id ? after.d : null;
      const from = resumed ?? today;
      const to =
        candidate.horizon_end < addDays(today, MAX_WINDOW_NIGHTS)
          ? candidate.horizon_end
          : addDays(today, MAX_WINDOW_NIGHTS);
      const take = Math.min(daysBetween(from, to), MAX_PAGE_NIGHTS - planned);
      slices.push({ candidate, from, to, take });
      planned += take;
    }
    const ids = slices.map((s) => s.candidate.property_id);
    const [nights, plans] = await Promise.all([
      pool.query<{ i: string; body: string }>(
        `select p.i, n.body from unnest($1::uuid[], $2::date[], $3::date[]) with ordinality as p(pid, start, stop, i)
           join ari_night n on n.property_id = p.pid and n.night >= p.start and n.night < p.stop
          order by p.i, n.night`,
        [ids, slices.map((s) => s.from), slices.map((s) => addDays(s.from, s.take))],
      ),
      pool.query<{ internal_key: string; external_id: string }>(
        `select c.internal_key, c.external_id from unnest($2::text[]) as p(pid)
           join channel_id c on c.channel_id = $1 and c.kind = 'rate_plan' and c.internal_key > p.pid || '/' and c.internal_key < p.pid || '0'`,
        [channelId, ids],
      ),
    ]);
    const planIds = new Map(plans.rows.map((row) => [row.internal_key, JSON.stringify(row.external_id)]));
    const bodies: string[][] = slices.map(() => []);
    for (const row of nights.rows) bodies[Number(row.i) - 1]!.push(row.body);
    const records = slices.map(({ candidate, from }, s) => {
      const nightsOf = bodies[s]!;
      const to = addDays(from, nightsOf.length);
      const swap = (_: string, key: string) => planIds.get(`${candidate.property_id}/${key}`) ?? 'null';
      return (
        `{"property_id":${JSON.stringify(candidate.external_id)},"currency":${JSON.stringify(candidate.currency)},"version":${Number(candidate.version)},` +
        `"updated_at":"${candidate.updated_at.toISOString().slice(0, 19)}Z","from":"${from}","to":"${to}","horizon_end":"${candidate.horizon_end}",` +
        `"data":[${nightsOf.map((body) => body.replace(PLACEHOLDER, swap)).join(',')}]}`
      );
    });
    const last = slices.at(-1);
    const cut = last !== undefined && planned >= MAX_PAGE_NIGHTS && addDays(last.from, last.take) < last.to;
    const more = cut || candidates.length > slices.length;
    const next =
      last && more
        ? Buffer.from(
            JSON.stringify({
              u: last.candidate.stamp,
              p: last.candidate.property_id,
              d: cut ? addDays(last.from, last.take) : '',
            }),
          ).toString('base64url')
        : null;
    return { body: `{"data":[${records.join(',')}],"next_cursor":${JSON.stringify(next)}}`, next };
  }

  const server = https.createServer(serverTlsOptions(tls), (req, res) => {
    const url = new URL(req.url ?? '/', 'https://bare.test');
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const cursor = url.searchParams.get('cursor');
    const after = cursor ? (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Position) : null;
    page(limit, after)
      .then(({ body, next }) => {
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          ...(next ? { link: `<${url.pathname}?limit=${limit}&cursor=${next}>; rel="next"` } : {}),
        });
        res.end(body);
      })
      .catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
  });
  return listenBare(server, pool);
}
