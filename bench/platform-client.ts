// The JSON client `bench:push` and `bench:webhooks` drive the service with, and the one place
// and property they write through the platform interface.
import https from 'node:https';
import { sampleApartment } from '../admin/sample-apartment.ts';

export interface BenchClient {
  /** One request with a bearer token; the answer's status and JSON body (`{}` when empty). */
  call: (
    method: string,
    route: string,
    token: string,
    body?: unknown,
  ) => Promise<{ status: number; json: Record<string, unknown> }>;
  /** A platform write under `/internal/v1`; throws on anything but success. */
  put: (route: string, body: unknown) => Promise<void>;
  /** A platform request under `/internal/v1`, its answer as it comes. */
  platform: (method: string, route: string, body?: unknown) => ReturnType<BenchClient['call']>;
}

export function benchClient(origin: string, agent: https.Agent, platformToken: string): BenchClient {
  const call: BenchClient['call'] = (method, route, token, body) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(route, origin),
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  };
  const platform: BenchClient['platform'] = (method, route, body) =>
    call(method, `/internal/v1${route}`, platformToken, body);
  const put: BenchClient['put'] = async (route, body) => {
    const res = await platform('PUT', route, body);
    if (res.status >= 300) throw new Error(`PUT ${route} answered ${res.status}: ${JSON.stringify(res.json)}`);
  };
  return { call, put, platform };
}

/** The organization, owner and location every bench property stands in. */
export async function putBenchPlace(put: BenchClient['put']): Promise<void> {
  await put('/organizations/bench-org', { name: 'Bench', country: 'RO' });
  await put('/owners/bench-own', { organization: 'bench-org', type: 'individual', display_name: 'Bench Owner' });
  await put('/locations/bench-loc', {
    organization: 'bench-org',
    owner: 'bench-own',
    name: 'Bench',
    category: 'house',
    address: { country: 'RO', city: 'Brașov' },
    geo: { lat: 45.65, lng: 25.6 },
    timezone: 'Europe/Bucharest',
  });
}

/** A publishable apartment of `units` units at the bench place (a change of `units` is one `property.updated`). */
export const benchProperty = (units: number) => sampleApartment('bench', units);
