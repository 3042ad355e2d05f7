/**
 * The rows `bench:scale` copies, written by the service itself over HTTPS, as the platform and a
 * channel write them: the demo catalogue's Casa Bran double room (two rate plans, photos, a
 * classification certificate with an end date) with its organization, owner and location, shown
 * to the bench's channel, a year of its prices, then one change of it; and the channel's webhook
 * endpoint for the catalogue's events, whose deliveries a receiver on this machine answers (the
 * first one 503 once, so that a failed attempt and its retry are there to copy).
 */
import { demoCatalogue, DEMO_CHANNELS } from '../admin/demo-catalogue.ts';
import { horizonEnd } from '../domain/availability/nights.ts';
import { localDate } from '../domain/time.ts';
import { yearOfPrices } from './availability-setup.ts';
import type { BenchClient } from './platform-client.ts';
import type { Receiver } from './push-support.ts';

/** The demo's room every property of a size is a copy of. */
export const TEMPLATE_REF = 'demo-prop-casa-bran-double';
/** What the channel's endpoint subscribes to: every catalogue event. */
export const ENDPOINT_EVENTS = ['property.*', 'location.*', 'owner.*'];
/** The receiver's path of the endpoint. */
export const HOOK_PATH = '/hooks';

interface DemoProperty {
  location: string;
  units: number;
  name: Record<string, string>;
}

/** The template's body, its English name marked with `variant` (a visible change, nothing re-rendered). */
export function templateBody(variant: number): Record<string, unknown> {
  const write = demoCatalogue(DEMO_CHANNELS, '2026-01-01').find((w) => w.ref === TEMPLATE_REF)!;
  const body = write.body as DemoProperty & Record<string, unknown>;
  return variant === 0 ? body : { ...body, name: { ...body.name, en: `${body.name.en} (${variant})` } };
}

/**
 * Registers the endpoint and writes the template through the service; answers the endpoint's id.
 * `channel` names the bench's channel, `key` one of its keys with `manage:webhooks`.
 */
export async function writeTemplate(
  client: BenchClient,
  receiver: Receiver,
  channel: string,
  key: string,
): Promise<{ endpointId: string }> {
  receiver.failNext(HOOK_PATH, 1);
  const created = await client.call('POST', '/api/v1/distribution/webhooks', key, {
    url: `${receiver.origin}${HOOK_PATH}`,
    events: ENDPOINT_EVENTS,
  });
  if (created.status !== 201) throw new Error(`the endpoint's registration answered ${created.status}`);

  const demo = demoCatalogue(DEMO_CHANNELS, new Date().toISOString().slice(0, 10));
  const property = templateBody(0) as unknown as DemoProperty;
  const location = demo.find((w) => w.operationId === 'putLocation' && w.ref === property.location)!;
  const { owner, organization, timezone } = location.body as { owner: string; organization: string; timezone: string };
  const ownerWrite = demo.find((w) => w.operationId === 'putOwner' && w.ref === owner)!;
  const organizationWrite = demo.find((w) => w.operationId === 'putOrganization' && w.ref === organization)!;
  await client.put(`/organizations/${organization}`, organizationWrite.body);
  await client.put(`/owners/${owner}`, ownerWrite.body);
  await client.put(`/locations/${location.ref}`, location.body);
  await client.put(`/properties/${TEMPLATE_REF}`, property);
  await client.put(`/properties/${TEMPLATE_REF}/distribution`, { channels: [channel] });
  const today = localDate(new Date(), timezone);
  const prices = await client.platform('POST', '/availability', {
    updates: yearOfPrices(TEMPLATE_REF, today, horizonEnd(today), property.units),
  });
  if (prices.status !== 200) throw new Error(`the template's prices answered ${prices.status}`);
  // The log's last write is the catalogue's: a reader of only `read:catalog` stands at its end.
  await client.put(`/properties/${TEMPLATE_REF}`, templateBody(1));
  return { endpointId: (created.json as { id: string }).id };
}
