import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { API_REVISION } from '../../api/openapi/info.ts';
import { EVENT_TYPES, type EventType } from '../../domain/events.ts';

// The event types of the distribution description (its `webhooks` section and the `Event` enum,
// both built from EVENT_TYPES), written down at each revision that changed them; a revision without
// a row lists what the latest row before it lists. A row never changes once written: an event type
// added to domain/events.ts fails the first test until a new revision's entry heads
// api/openapi/CHANGELOG.md (API_REVISION reads it) and its row is here, and the last until that
// entry names the type.
const REVISION_EVENT_TYPES: Record<string, readonly EventType[]> = {
  '1.6.0': [
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
};

const CHANGELOG = readFileSync(path.resolve(import.meta.dirname, '../../api/openapi/CHANGELOG.md'), 'utf8');

/** The text of a revision's entry in the changelog, from its `## x.y.z` heading to the next. */
function changelogEntry(revision: string): string | undefined {
  const sections = CHANGELOG.split(/^## /m).slice(1);
  return sections.find((section) => section.split('\n')[0]!.trim() === revision);
}

/** `a` before `b`, as revisions `x.y.z` order. */
const byRevision = (a: string, b: string) => {
  const [x, y] = [a, b].map((revision) => revision.split('.').map(Number));
  return x!.map((part, i) => part - y![i]!).find((difference) => difference !== 0) ?? 0;
};
const revisions = Object.keys(REVISION_EVENT_TYPES).sort(byRevision);

describe('event types by revision of the description', () => {
  test('the current revision lists the event types written down for it: a new type needs a new revision', () => {
    const current = revisions.filter((revision) => byRevision(revision, API_REVISION) <= 0).at(-1);
    expect(
      current,
      `no row here at or before revision ${API_REVISION} (the newest entry of api/openapi/CHANGELOG.md)`,
    ).toBeDefined();
    expect(
      [...EVENT_TYPES],
      `domain/events.ts differs from what revision ${current} lists: write a new revision's entry at the top of api/openapi/CHANGELOG.md naming the change, and add the new revision's row here`,
    ).toEqual(REVISION_EVENT_TYPES[current!]);
  });

  test('revisions only add event types, each named in the changelog entry of the revision that adds it', () => {
    for (const [previous, revision] of revisions.slice(1).map((revision, i) => [revisions[i]!, revision] as const)) {
      const before = REVISION_EVENT_TYPES[previous]!;
      const after = REVISION_EVENT_TYPES[revision]!;
      expect(
        before.filter((type) => !after.includes(type)),
        `${revision} removes event types`,
      ).toEqual([]);
      const entry = changelogEntry(revision);
      expect(entry, `api/openapi/CHANGELOG.md has no entry "## ${revision}"`).toBeDefined();
      const unnamed = after.filter((type) => !before.includes(type) && !entry!.includes(`\`${type}\``));
      expect(unnamed, `the CHANGELOG entry of ${revision} does not name these new event types`).toEqual([]);
    }
  });
});
