import { sampleApartment } from '../../admin/sample-apartment.ts';
import { writeUntilAccepted, type ApiClient } from './service.ts';

/** A property of the run's location with `units` units, as the platform writes it. */
export const chaosProperty = (units: number) => sampleApartment('chaos', units);

/**
 * The platform's side of the run: one organization, owner and location, `properties` properties
 * distributed to the channel, then numbered changes written alternately through each API process:
 * change i sets property (i mod properties) to 2 + (i mod 998) units, and every tenth renames the location, so
 * each change is visible to the channel and makes one event.
 */
export function platformWrites(options: {
  apis: ApiClient[];
  token: string;
  channel: string;
  properties: number;
  concurrency: number;
  deadline: number;
}) {
  const { apis, token, deadline } = options;
  let retries = 0;
  const put = async (index: number, route: string, body: unknown) => {
    const result = await writeUntilAccepted(
      apis[index % apis.length]!,
      'PUT',
      `/internal/v1${route}`,
      token,
      body,
      deadline,
    );
    retries += result.retries;
  };
  const location = (name: string) => ({
    organization: 'chaos-org',
    owner: 'chaos-own',
    name,
    category: 'house',
    address: { country: 'RO', city: 'Brașov' },
    geo: { lat: 45.65, lng: 25.6 },
    timezone: 'Europe/Bucharest',
  });
  return {
    retries: () => retries,
    setUp: async () => {
      await put(0, '/organizations/chaos-org', { name: 'Chaos', country: 'RO' });
      await put(1, '/owners/chaos-own', { organization: 'chaos-org', type: 'individual', display_name: 'Chaos Owner' });
      await put(0, '/locations/chaos-loc', location('Casa 0'));
      for (let p = 0; p < options.properties; p += 1) {
        await put(p, `/properties/chaos-p${p}`, chaosProperty(1));
        await put(p + 1, `/properties/chaos-p${p}/distribution`, { channels: [options.channel] });
      }
    },
    /** Writes changes [from, to) with `concurrency` writers; each retried until accepted. */
    changes: async (from: number, to: number) => {
      let next = from;
      const writer = async () => {
        while (next < to) {
          const i = next;
          next += 1;
          if (i % 10 === 9) await put(i, '/locations/chaos-loc', location(`Casa ${i}`));
          else await put(i, `/properties/chaos-p${i % options.properties}`, chaosProperty(2 + (i % 998)));
        }
      };
      await Promise.all(Array.from({ length: options.concurrency }, writer));
    },
  };
}
