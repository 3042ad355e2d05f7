import https from 'node:https';
import { demoCatalogue, DEMO_CHANNELS } from '../admin/demo-catalogue.ts';
import { createApp } from '../api/app.ts';
import { listen } from '../api/server.ts';
import type { AppDeps } from '../api/context.ts';
import { channelIdsByName } from '../db/catalogue/distribution.ts';
import { propertiesSeenBy } from '../db/listings.ts';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
} from '../domain/catalogue/source.ts';
import { loadTlsMaterial } from '../infra/tls.ts';
import { putLocation, putOrganization, putOwner, putProperty } from '../services/catalogue.ts';
import { putDistribution } from '../services/distribution.ts';
import { createHostLink, openHostSession } from '../services/host-sessions.ts';
import { putListingReport } from '../services/listings.ts';

/**
 * The listings overview of an organization of `count` properties (five per location, each on
 * both demo channels, each reported on by the first: published, in review or rejected), served
 * over keep-alive TLS to a host session, one page at a time.
 */

const STATES = [
  {
    status: 'published',
    public_url: 'https://demo-travel.example/stay/1',
    promoted: false,
    promoted_until: null,
    rejection: null,
  },
  { status: 'pending_review', public_url: null, promoted: false, promoted_until: null, rejection: null },
  {
    status: 'rejected',
    public_url: null,
    promoted: false,
    promoted_until: null,
    rejection: { reason: 'photos', text: 'Too dark.' },
  },
];

async function writeOrganization(deps: AppDeps, count: number): Promise<void> {
  const demo = demoCatalogue(DEMO_CHANNELS, new Date().toISOString().slice(0, 10));
  const find = (operationId: string) => demo.find((write) => write.operationId === operationId)!;
  const organization = find('putOrganization');
  const owner = demo.find(
    (write) =>
      write.operationId === 'putOwner' && (write.body as { organization: string }).organization === organization.ref,
  )!;
  const location = demo.find(
    (write) => write.operationId === 'putLocation' && (write.body as { owner: string }).owner === owner.ref,
  )!;
  const property = demo.find(
    (write) => write.operationId === 'putProperty' && (write.body as { location: string }).location === location.ref,
  )!;
  await putOrganization(deps, 'bench-org', OrganizationInput.parse(organization.body));
  await putOwner(deps, 'bench-owner', OwnerInput.parse({ ...(owner.body as object), organization: 'bench-org' }));
  for (let i = 0; i < count; i += 1) {
    const locationRef = `bench-loc-${Math.floor(i / 5)}`;
    if (i % 5 === 0)
      await putLocation(
        deps,
        locationRef,
        LocationInput.parse({ ...(location.body as object), organization: 'bench-org', owner: 'bench-owner' }),
      );
    const ref = `bench-prop-${String(i).padStart(4, '0')}`;
    await putProperty(
      deps,
      ref,
      PropertyInput.parse({ ...(property.body as object), location: locationRef, owner: 'bench-owner' }),
    );
    await putDistribution(
      deps,
      ref,
      DistributionInput.parse({ channels: [DEMO_CHANNELS.first, DEMO_CHANNELS.second] }),
    );
  }
  const channelId = (await channelIdsByName(deps.orm.em.fork(), [DEMO_CHANNELS.first])).get(DEMO_CHANNELS.first)!;
  const seen = (await propertiesSeenBy(deps.orm.em.fork(), channelId)).filter((p) => p.ref.startsWith('bench-prop-'));
  for (const [i, p] of seen.entries())
    await putListingReport(deps, channelId, p.externalId, STATES[i % STATES.length]!);
}

export async function overviewOfLargeOrganization(
  deps: AppDeps,
  dataDir: string,
  count: number,
  runs: number,
  timed: (runs: number, work: (i: number) => Promise<unknown>) => Promise<unknown>,
) {
  await writeOrganization(deps, count);
  const tls = await loadTlsMaterial({ dataDir });
  const server = await listen(createApp(deps, { publicOrigin: 'https://bench.test' }), {
    host: '127.0.0.1',
    port: 0,
    plainPort: null,
    tls,
    publicOrigin: 'https://bench.test',
  });
  const agent = new https.Agent({ keepAlive: true, ca: tls.cert, maxSockets: 1 });
  try {
    const { token } = await createHostLink(deps, { organization: 'bench-org', locale: 'ro' });
    const opened = await openHostSession(deps, token);
    if (opened.outcome !== 'opened') throw new Error(`the host link was ${opened.outcome}`);
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        https
          .get(
            new URL(path, server.url),
            { agent, headers: { cookie: `__Host-svc_host_session=${opened.cookie}` } },
            (res) => {
              let bytes = 0;
              res.on('data', (chunk: Buffer) => (bytes += chunk.length));
              res.on('end', () =>
                res.statusCode === 200 ? resolve(bytes) : reject(new Error(`GET ${path}: ${res.statusCode}`)),
              );
            },
          )
          .on('error', reject);
      });
    const pages = Math.ceil(count / 20);
    const bytes = await get('/host/listings');
    return {
      [`host overview page, ${count} properties (${pages} pages of 20, ${Math.round(bytes / 1024)} KiB), keep-alive TLS, ms`]:
        await timed(runs, (i) => get(`/host/listings?page=${(i % pages) + 1}`)),
      [`host overview page filtered (rejected on ${DEMO_CHANNELS.first}), ${count} properties, ms`]: await timed(
        runs,
        (i) =>
          get(`/host/listings?channel=${DEMO_CHANNELS.first}&status=rejected&page=${(i % Math.ceil(count / 60)) + 1}`),
      ),
    };
  } finally {
    agent.destroy();
    await server.close();
  }
}
