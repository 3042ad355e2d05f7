import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { internalOperations } from '../../api/internal/catalogue.ts';
import { PLATFORM_REVISION } from '../../api/internal/info.ts';
import { platformDocument } from '../../api/internal/openapi.ts';
import { API_REVISION, openApiDocument } from '../../api/openapi/document.ts';
import { EVENT_TYPES, type EventType } from '../../domain/events.ts';

// A served description changes only with its revision. Each description's digest (its JSON as
// served under one origin) is written down for the revision that serves it: a change of a schema,
// an operation or a sentence fails the first tests until a new revision's entry heads its
// CHANGELOG (the revision constants read it: api/openapi/changelog-revision.ts) and its row is added here
// with the digests the failure prints (it prints the whole row when there is none). The platform's
// rows also list its operations: an operation a revision adds is named (by its path) in that
// revision's entry, and in docs/platform.md.
const ORIGIN = 'https://svc.example';

// One row per revision of the distribution description. `production` and `sandbox` are its
// digests (written down from 1.8.0 on). A revision that changes only the sandbox's operations
// names, in `productionAsOf`, the revision whose production description it serves unchanged but
// for the revision it states. `eventTypes` are the event types of the description (its `webhooks`
// section and the `Event` enum, both built from EVENT_TYPES), in a row of each revision that changed
// them; a revision without them lists what the latest row before it lists. Rows never change once
// written: an event type added to domain/events.ts fails until a new revision's entry heads
// api/openapi/CHANGELOG.md and names the type, and the new revision's row lists it.
const DISTRIBUTION_REVISIONS: Record<
  string,
  { production?: string; sandbox?: string; productionAsOf?: string; eventTypes?: readonly EventType[] }
> = {
  '1.6.0': {
    eventTypes: [
      'property.updated',
      'property.withdrawn',
      'property.distributed',
      'property.deleted',
      'location.updated',
      'location.deleted',
      'owner.updated',
      'owner.deleted',
      'amenity.updated',
      'amenity.deleted',
      'availability.updated',
    ],
  },
  '1.8.0': {
    production: 'c8ee37376534273976359e878f941842366d998184fa870ba1ba47b5445f9ab3',
    sandbox: '0da48ada1bc6d432ac7252ec199db4f385383201cd479de6c6247ef611b9b140',
  },
  '1.9.0': {
    production: '764ebe00a61dc3b2b49d63ffadfc316c21149dec3800b934d9e2dfbb9d99f9ef',
    sandbox: 'fdffb93199e0cfe6021cb870e92c3a5aca23281516a954dc4af2f70f67bb2e1d',
    productionAsOf: '1.8.0',
  },
  '1.10.0': {
    production: 'dfd22069adcbc2f0e72eed2fd3a1cc68cd3396d06b37b97bebba8265400a29f5',
    sandbox: '51143165b4003c1f1b17f0b11e867909516357e85a20e937ace5bf2e39d8f33e',
    productionAsOf: '1.8.0',
  },
};

const PLATFORM_REVISIONS: Record<string, { digest: string; operations: readonly string[] }> = {
  '1.2.0': {
    digest: '60bb8c71d2ac4221a6be7a41a55648d9b6354cf63589842e547a6be51815f15e',
    operations: [
      'PUT /organizations/{ref}',
      'GET /organizations/{ref}',
      'DELETE /organizations/{ref}',
      'PUT /owners/{ref}',
      'GET /owners/{ref}',
      'DELETE /owners/{ref}',
      'PUT /locations/{ref}',
      'GET /locations/{ref}',
      'DELETE /locations/{ref}',
      'PUT /properties/{ref}',
      'GET /properties/{ref}',
      'DELETE /properties/{ref}',
      'PUT /properties/{ref}/distribution',
      'GET /properties/{ref}/distribution',
      'POST /availability',
      'POST /owners/{ref}/owner-connect',
      'POST /organizations/{ref}/installations',
      'GET /installations/{id}',
      'PATCH /installations/{id}',
      'POST /installations/{id}/token',
      'PUT /guests/{ref}',
      'GET /guests/{ref}',
      'DELETE /guests/{ref}',
      'PUT /vat-rates/{country}',
      'GET /vat-rates/{country}',
      'GET /properties/{ref}/listings',
      'GET /properties/{ref}/stats',
      'POST /host-sessions',
    ],
  },
};

const digest = (document: unknown) => createHash('sha256').update(JSON.stringify(document)).digest('hex');
const read = (file: string) => readFileSync(path.resolve(import.meta.dirname, '../..', file), 'utf8');

/** The text of a revision's entry in a changelog, from its `## x.y.z` heading to the next. */
function changelogEntry(changelog: string, revision: string): string | undefined {
  return changelog
    .split(/^## /m)
    .slice(1)
    .find((section) => section.split('\n')[0]!.trim() === revision);
}

const platformOperations = internalOperations.map((op) => `${op.method.toUpperCase()} ${op.path}`);

/** `a` before `b`, as revisions `x.y.z` order. */
const byRevision = (a: string, b: string) => {
  const [x, y] = [a, b].map((revision) => revision.split('.').map(Number));
  return x!.map((part, i) => part - y![i]!).find((difference) => difference !== 0) ?? 0;
};

describe('the distribution description changes only with its revision', () => {
  const fresh = {
    production: digest(openApiDocument(ORIGIN, 'production')),
    sandbox: digest(openApiDocument(ORIGIN, 'sandbox')),
  };

  test.each(['production', 'sandbox'] as const)('%s: its digest is the one written down for API_REVISION', (env) => {
    const row = DISTRIBUTION_REVISIONS[API_REVISION];
    expect(
      row?.production !== undefined && row.sandbox !== undefined,
      `revision ${API_REVISION} (the newest entry of api/openapi/CHANGELOG.md) has no digests here: add its row ` +
        `'${API_REVISION}': { production: '${fresh.production}', sandbox: '${fresh.sandbox}' },`,
    ).toBe(true);
    expect(
      fresh[env],
      `the description differs from revision ${API_REVISION}'s: write a new revision's entry at the top of api/openapi/CHANGELOG.md and add its row here with this digest`,
    ).toBe(row![env]);
  });

  test('a revision of sandbox operations only serves production the description it had, but for its revision', () => {
    const asOf = DISTRIBUTION_REVISIONS[API_REVISION]?.productionAsOf;
    const served = JSON.stringify(openApiDocument(ORIGIN, 'production'));
    const asBefore = asOf === undefined ? null : digest(JSON.parse(served.replaceAll(API_REVISION, asOf)));
    expect(asBefore, `production's description differs from ${asOf ?? 'its previous revision'}'s`).toBe(
      asOf === undefined ? null : DISTRIBUTION_REVISIONS[asOf]!.production,
    );
  });

  test('API_REVISION has its entry in api/openapi/CHANGELOG.md', () => {
    expect(
      changelogEntry(read('api/openapi/CHANGELOG.md'), API_REVISION),
      `api/openapi/CHANGELOG.md has no ## ${API_REVISION}`,
    ).toBeDefined();
  });
});

describe('event types by revision of the description', () => {
  const listing = Object.keys(DISTRIBUTION_REVISIONS)
    .filter((revision) => DISTRIBUTION_REVISIONS[revision]!.eventTypes !== undefined)
    .sort(byRevision);
  const typesOf = (revision: string) => DISTRIBUTION_REVISIONS[revision]!.eventTypes!;

  test('the current revision lists the event types written down for it: a new type needs a new revision', () => {
    const current = listing.filter((revision) => byRevision(revision, API_REVISION) <= 0).at(-1);
    expect(
      current,
      `no row lists event types at or before revision ${API_REVISION} (the newest entry of api/openapi/CHANGELOG.md)`,
    ).toBeDefined();
    expect(
      [...EVENT_TYPES],
      `domain/events.ts differs from what revision ${current} lists: write a new revision's entry at the top of ` +
        `api/openapi/CHANGELOG.md naming the change, and give the new revision's row ` +
        `eventTypes: [${EVENT_TYPES.map((type) => `'${type}'`).join(', ')}]`,
    ).toEqual(typesOf(current!));
  });

  test('revisions only add event types, each named in the changelog entry of the revision that adds it', () => {
    const changelog = read('api/openapi/CHANGELOG.md');
    for (const [previous, revision] of listing.slice(1).map((revision, i) => [listing[i]!, revision] as const)) {
      const [before, after] = [typesOf(previous), typesOf(revision)];
      expect(
        before.filter((type) => !after.includes(type)),
        `${revision} removes event types`,
      ).toEqual([]);
      const entry = changelogEntry(changelog, revision);
      expect(entry, `api/openapi/CHANGELOG.md has no entry "## ${revision}"`).toBeDefined();
      const unnamed = after.filter((type) => !before.includes(type) && !entry!.includes(`\`${type}\``));
      expect(unnamed, `the CHANGELOG entry of ${revision} does not name these new event types`).toEqual([]);
    }
  });
});

describe('the platform description changes only with its revision', () => {
  const row = PLATFORM_REVISIONS[PLATFORM_REVISION];

  test('its digest is the one written down for PLATFORM_REVISION', () => {
    const fresh = digest(platformDocument(ORIGIN));
    expect(
      row,
      `revision ${PLATFORM_REVISION} (the newest entry of api/internal/CHANGELOG.md) has no row here: add ` +
        `'${PLATFORM_REVISION}': { digest: '${fresh}', operations: [...] } with the operations the next test prints`,
    ).toBeDefined();
    expect(
      fresh,
      `the description differs from revision ${PLATFORM_REVISION}'s: write a new revision's entry at the top of api/internal/CHANGELOG.md and add its row here with this digest`,
    ).toBe(row!.digest);
  });

  test('its operations are the ones written down for PLATFORM_REVISION', () => {
    expect(
      [...platformOperations].sort(),
      `the platform's operations differ from revision ${PLATFORM_REVISION}'s: write a new revision's entry in api/internal/CHANGELOG.md and add its row here`,
    ).toEqual([...(row?.operations ?? [])].sort());
  });

  test("each revision's changelog entry names the operations it adds", () => {
    const changelog = read('api/internal/CHANGELOG.md');
    const revisions = Object.keys(PLATFORM_REVISIONS);
    expect(
      changelogEntry(changelog, PLATFORM_REVISION),
      `api/internal/CHANGELOG.md has no ## ${PLATFORM_REVISION}`,
    ).toBeDefined();
    for (const [i, revision] of revisions.entries()) {
      if (i === 0) continue;
      const before = new Set(PLATFORM_REVISIONS[revisions[i - 1]!]!.operations);
      const entry = changelogEntry(changelog, revision) ?? '';
      for (const added of PLATFORM_REVISIONS[revision]!.operations.filter((op) => !before.has(op)))
        expect(entry, `the ${revision} entry of api/internal/CHANGELOG.md names ${added}`).toContain(
          added.split(' ')[1],
        );
    }
  });

  test('docs/platform.md names every operation, as `METHOD /path` (methods may share a path: `PUT/GET /x`)', () => {
    const named = new Set<string>();
    for (const [, methods, opPath] of read('docs/platform.md').matchAll(/`([A-Z]+(?:\/[A-Z]+)*) (\/[^`?\s]*)/g))
      for (const method of methods!.split('/')) named.add(`${method} ${opPath}`);
    expect(platformOperations.filter((op) => !named.has(op))).toEqual([]);
  });
});
