/**
 * The rows the catalogue's outside pair reads (bench/catalogue-pair.ts): two channels, a
 * `read:catalog` key of the first, and `count` properties shaped as the demo's, five per location,
 * each distributed to both channels, written through the services as the platform's writes are.
 */
import { createChannel } from '../admin/channels.ts';
import { demoCatalogue, DEMO_CHANNELS } from '../admin/demo-catalogue.ts';
import { issueKey } from '../admin/keys.ts';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
} from '../domain/catalogue/source.ts';
import { putLocation, putOrganization, putOwner, putProperty } from '../services/catalogue.ts';
import { putDistribution } from '../services/distribution.ts';
import type { BenchStand } from './service-stand.ts';

/** What a reader needs of the rows: a key of the channel in each environment, and the channel's id. */
export interface CatalogueRows {
  keys: { sandbox: string; production: string };
  channelId: string;
}

export async function writeCatalogueRows(stand: BenchStand, count: number): Promise<CatalogueRows> {
  const { deps, orm } = stand;
  // A limit no bench reaches: the pair measures reading, not refusing.
  for (const name of [DEMO_CHANNELS.first, DEMO_CHANNELS.second])
    await createChannel(deps, { name, rateLimit: 1_000_000 });
  // A sandbox deployment (`npm start`'s default) and a production one each take only their own keys.
  const keyIn = async (environment: 'sandbox' | 'production') =>
    (
      await issueKey(
        { ...deps, config: { ...deps.config, environment } },
        { channel: DEMO_CHANNELS.first, scopes: 'read:catalog' },
      )
    ).key;
  const keys = { sandbox: await keyIn('sandbox'), production: await keyIn('production') };
  const demo = demoCatalogue(DEMO_CHANNELS, new Date().toISOString().slice(0, 10));
  for (const write of demo) {
    if (write.operationId === 'putOrganization')
      await putOrganization(deps, write.ref, OrganizationInput.parse(write.body));
    if (write.operationId === 'putOwner') await putOwner(deps, write.ref, OwnerInput.parse(write.body));
  }
  const locations = demo.filter((w) => w.operationId === 'putLocation');
  const properties = demo.filter((w) => w.operationId === 'putProperty');
  const created = new Set<string>();
  for (let i = 0; i < count; i += 1) {
    const body = properties[i % properties.length]!.body as { location: string };
    const locationRef = `${body.location}-${Math.floor(i / 5)}`;
    if (!created.has(locationRef)) {
      const template = locations.find((l) => l.ref === body.location)!;
      await putLocation(deps, locationRef, LocationInput.parse(template.body));
      created.add(locationRef);
    }
    await putProperty(deps, `bench-${i}`, PropertyInput.parse({ ...body, location: locationRef }));
    await putDistribution(
      deps,
      `bench-${i}`,
      DistributionInput.parse({ channels: [DEMO_CHANNELS.first, DEMO_CHANNELS.second] }),
    );
  }
  const [channel] = await orm.em
    .getConnection()
    .execute<{ id: string }[]>('select id from channel where name = ?', [DEMO_CHANNELS.first]);
  return { keys, channelId: channel!.id };
}
