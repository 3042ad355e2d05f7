import { describe, expect, test } from 'vitest';
import { projectedSample, projectionDigest, type Projectors } from '../../domain/catalogue/projection-digest.ts';
import { projectLocation, projectOwner, projectProperty } from '../../domain/catalogue/projection.ts';
import { Property } from '../../api/schemas/catalogue.ts';

// The projection revision is the digest of this code's projections of a generated catalogue: what
// a worker start compares with the database's last re-projection (services/catalogue-reprojection.ts).
// It must be the same on every run, move when what a channel is shown moves, and see every field.

const REAL: Projectors = { projectProperty, projectLocation, projectOwner };

describe('projectionDigest', () => {
  test('is the same on every call: the sample is generated from a fixed seed, day and secret', async () => {
    expect(await projectionDigest()).toBe(await projectionDigest());
    expect(await projectionDigest()).toMatch(/^[0-9a-f]{64}$/);
  });

  test('moves when a projection adds a field to what a channel is shown', async () => {
    const withField: Projectors = {
      ...REAL,
      projectProperty: (source, context) => {
        const projected = projectProperty(source, context);
        return projected.publishable ? { ...projected, body: { ...projected.body, digest_probe: true } } : projected;
      },
    };
    expect(await projectionDigest(withField)).not.toBe(await projectionDigest());
  });

  test('moves when a location is worded otherwise', async () => {
    const otherwise: Projectors = {
      ...REAL,
      projectLocation: (location, place, id, status) => ({
        ...projectLocation(location, place, id, status),
        name: 'Elsewhere',
      }),
    };
    expect(await projectionDigest(otherwise)).not.toBe(await projectionDigest());
  });

  test("the sample shows every field of the description's Property: a change to any of them moves the digest", async () => {
    const shown = new Set<string>();
    for (const body of await projectedSample()) for (const key of Object.keys(body as object)) shown.add(key);
    const described = Object.keys(Property.shape).filter((key) => !['version', 'updated_at'].includes(key));
    expect(described.filter((key) => !shown.has(key))).toEqual([]);
  });
});
