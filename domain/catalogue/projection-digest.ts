import { generateSandboxCatalogue } from '../sandbox/catalogue-generator.ts';
import { canonicalJson, projectLocation, projectOwner, projectProperty, publishedPlace } from './projection.ts';
import { LocationInput, OwnerInput, PropertyInput } from './source.ts';

/**
 * What identifies how this code turns sources into what channels read: the digest of its
 * projections (`projectProperty`, `projectLocation`, `projectOwner`, `publishedPlace`) of a
 * generated catalogue that carries every case the contract names, on a fixed day with a fixed
 * secret. A change that moves what a channel is shown of an unchanged source (a field added, a
 * text worded otherwise) moves it; nothing is bumped by hand. A worker that starts with a digest
 * the database has not re-projected for starts the catalogue's re-projection
 * (workflows/catalogue-reprojection.ts), so records channels already hold catch up, each with a
 * higher `version` and its event. A projection of a field only sources the generator never writes
 * carry does not move it: give the generator (domain/sandbox/) the field.
 */

export interface Projectors {
  projectProperty: typeof projectProperty;
  projectLocation: typeof projectLocation;
  projectOwner: typeof projectOwner;
}

const REAL: Projectors = { projectProperty, projectLocation, projectOwner };
const SEED = 1;
const PROPERTIES = 100;
const CHANNELS = ['digest-first', 'digest-second'] as const;
const ANCHOR = new Date('2026-06-01T12:00:00Z');
const TODAY = '2026-06-01';
const SECRET = new Uint8Array(32).fill(7);

/** Every body the projectors make of the generated catalogue, in the catalogue's order. */
export async function projectedSample(projectors: Projectors = REAL): Promise<unknown[]> {
  const { writes } = generateSandboxCatalogue({
    seed: SEED,
    properties: PROPERTIES,
    channels: CHANNELS,
    anchor: ANCHOR,
  });
  const owners = new Map<string, OwnerInput>();
  const locations = new Map<string, LocationInput>();
  const bodies: unknown[] = [];
  for (const write of writes) {
    if (write.operationId === 'putOwner') {
      const owner = OwnerInput.parse(write.body);
      owners.set(write.ref, owner);
      bodies.push(projectors.projectOwner(owner, `own_${write.ref}`, 'active', null));
    } else if (write.operationId === 'putLocation') {
      const location = LocationInput.parse(write.body);
      locations.set(write.ref, location);
      const place = await publishedPlace(location, owners.get(location.owner)?.type ?? 'individual', SECRET, write.ref);
      bodies.push(projectors.projectLocation(location, place, `loc_${write.ref}`, 'active'));
    } else if (write.operationId === 'putProperty') {
      const property = PropertyInput.parse(write.body);
      const location = locations.get(property.location)!;
      for (const channel of CHANNELS) {
        const projection = projectors.projectProperty(property, {
          channel,
          ids: {
            property: `prp_${write.ref}`,
            location: `loc_${property.location}`,
            owner: `own_${property.owner}`,
            photos: new Map(property.photos.map((photo) => [photo.key, `pho_${photo.key}`])),
            ratePlans: new Map(property.rate_plans.map((plan) => [plan.key, `rpl_${plan.key}`])),
          },
          country: location.address.country,
          timezone: location.timezone,
          today: TODAY,
        });
        // A property the legal rules refuse is shown as a tombstone: its reason is what moves.
        bodies.push(projection.publishable ? projection.body : projection);
      }
    }
  }
  return bodies;
}

/** The digest (hex SHA-256) of {@link projectedSample}: this code's projection revision. */
export async function projectionDigest(projectors: Projectors = REAL): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(await projectedSample(projectors)));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Properties a re-projection visits per second when the operator sets no other rate. */
export const REPROJECTION_RATE_DEFAULT = 50;
