import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { DEMO_CHANNELS, demoCatalogue } from '../../admin/demo-catalogue.ts';
import { PROJECTION_REVISION } from '../../domain/catalogue/projection-revision.ts';
import {
  canonicalJson,
  projectLocation,
  projectOwner,
  projectProperty,
  publishedPlace,
} from '../../domain/catalogue/projection.ts';
import { LocationInput, OwnerInput, PropertyInput } from '../../domain/catalogue/source.ts';

// What channels are shown of unchanged sources changes only with PROJECTION_REVISION: each
// revision's digest of the demo catalogue's projections (every property, location and owner, for
// both demo channels, on a fixed day with a fixed secret) is written down here. A field added to a
// projection, or a text worded otherwise, fails the first test until the revision is bumped and
// its row added with the digest the failure prints; the bump is what makes the next worker start
// re-project the records channels already hold (workflows/catalogue-reprojection.ts).
const PROJECTION_DIGESTS: Record<number, string> = {
  1: '3df1d80d6fb55b0f552b8801f3c0a46ba1cb29259498d9200da801d384544694',
};

const TODAY = '2026-11-22';
const SECRET = new Uint8Array(32).fill(7);

async function projectionsDigest(): Promise<string> {
  const writes = demoCatalogue(DEMO_CHANNELS, TODAY);
  const owners = new Map<string, OwnerInput>();
  const locations = new Map<string, LocationInput>();
  const projected: unknown[] = [];
  for (const write of writes) {
    if (write.operationId === 'putOwner') {
      const owner = OwnerInput.parse(write.body);
      owners.set(write.ref, owner);
      projected.push(projectOwner(owner, `own_${write.ref}`, 'active', null));
    }
    if (write.operationId === 'putLocation') {
      const location = LocationInput.parse(write.body);
      locations.set(write.ref, location);
      const ownerType = owners.get(location.owner)?.type ?? 'individual';
      const place = await publishedPlace(location, ownerType, SECRET, write.ref);
      projected.push(projectLocation(location, place, `loc_${write.ref}`, 'active'));
    }
    if (write.operationId === 'putProperty') {
      const property = PropertyInput.parse(write.body);
      const location = locations.get(property.location)!;
      for (const channel of Object.values(DEMO_CHANNELS)) {
        projected.push(
          projectProperty(property, {
            channel,
            ids: {
              property: `prop_${write.ref}`,
              location: `loc_${property.location}`,
              owner: `own_${property.owner}`,
              photos: new Map(property.photos.map((photo) => [photo.key, `pho_${photo.key}`])),
              ratePlans: new Map(property.rate_plans.map((plan) => [plan.key, `rpl_${plan.key}`])),
            },
            country: location.address.country,
            timezone: location.timezone,
            today: TODAY,
          }),
        );
      }
    }
  }
  return createHash('sha256').update(canonicalJson(projected)).digest('hex');
}

describe('projection revisions', () => {
  test('the projections of the demo catalogue have the digest written down for PROJECTION_REVISION', async () => {
    const digest = await projectionsDigest();
    expect(
      PROJECTION_DIGESTS[PROJECTION_REVISION],
      `the projection changed: bump PROJECTION_REVISION (domain/catalogue/projection-revision.ts) and add its row: ${digest}`,
    ).toBe(digest);
  });

  test('the revisions written down run from 1 to PROJECTION_REVISION, each with its own digest', () => {
    const revisions = Object.keys(PROJECTION_DIGESTS).map(Number);
    expect(revisions).toEqual(Array.from({ length: PROJECTION_REVISION }, (_, index) => index + 1));
    expect(new Set(Object.values(PROJECTION_DIGESTS)).size).toBe(revisions.length);
  });
});
