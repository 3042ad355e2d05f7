import { findReport, listingSubjects, propertiesSeenBy } from '../db/listings.ts';
import { channelIdsByName } from '../db/catalogue/distribution.ts';
import type { ReportedState } from '../domain/listings/report.ts';
import { addDays, localDate } from '../domain/time.ts';
import { postListingStats, putListingReport, type StatsEntry } from '../services/listings.ts';
import type { AdminContext } from './context.ts';

/**
 * The demo's listing reports and statistics, as the two demo channels would send them, so the
 * host's dashboard shows live, promoted, pending, rejected and unpublished listings with a
 * history and 30 days of figures. Reports are written only where a channel has none yet (a
 * re-run keeps them); statistics are deterministic, so a re-run stores the same figures.
 */

const DAY_MS = 86_400_000;

type Step = { daysAgo: number; state: Omit<ReportedState, 'public_url'> & { live?: boolean } };

const published = (extra: Partial<ReportedState> = {}) => ({
  status: 'published',
  live: true,
  promoted: false,
  promoted_until: null,
  rejection: null,
  ...extra,
});
const plain = (status: string, rejection: ReportedState['rejection'] = null) => ({
  status,
  promoted: false,
  promoted_until: null,
  rejection,
});

/** Each channel's story per property (by the end of the platform's reference); others are simply published a month ago. */
function story(channel: 'first' | 'second', ref: string, now: Date): Step[] {
  const promotedUntil = `${new Date(now.getTime() + 14 * DAY_MS).toISOString().slice(0, 10)}T22:00:00Z`;
  const stories: Record<'first' | 'second', Record<string, Step[]>> = {
    first: {
      'brasov-schei-apartment': [
        { daysAgo: 20, state: plain('pending_review') },
        { daysAgo: 18, state: published({ promoted: true, promoted_until: promotedUntil }) },
      ],
      'casa-bran-attic': [
        { daysAgo: 10, state: plain('pending_review') },
        {
          daysAgo: 8,
          state: plain('rejected', {
            reason: 'photos',
            text: 'The attic photos are too dark to show the room; please add brighter ones.',
          }),
        },
      ],
      'casa-bran-double': [
        { daysAgo: 25, state: plain('pending_review') },
        { daysAgo: 24, state: published() },
      ],
      'casa-bran-family': [{ daysAgo: 2, state: plain('pending_review') }],
    },
    second: {
      'casa-bran-double': [
        { daysAgo: 28, state: published() },
        { daysAgo: 5, state: plain('unpublished') },
      ],
      'casa-bran-family': [{ daysAgo: 21, state: published({ promoted: true }) }],
    },
  };
  const entry = Object.entries(stories[channel]).find(([suffix]) => ref.endsWith(suffix));
  return entry ? entry[1] : [{ daysAgo: 30, state: published() }];
}

/** A stable figure in [0, 1) from a text: the demo's numbers do not change between runs. */
function unit(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return (hash >>> 0) / 2 ** 32;
}

export async function seedDemoListings(
  ctx: AdminContext,
  channels: { first: string; second: string },
): Promise<{ reports_written: number; days: number }> {
  const now = ctx.clock.now();
  const ids = await channelIdsByName(ctx.orm.em.fork(), [channels.first, channels.second]);
  let reports = 0;
  let days = 0;
  for (const which of ['first', 'second'] as const) {
    const name = channels[which];
    const channelId = ids.get(name);
    if (!channelId) continue;
    const properties = await propertiesSeenBy(ctx.orm.em.fork(), channelId);
    const stats: StatsEntry[] = [];
    const zones = new Map(
      (
        await listingSubjects(
          ctx.orm.em.fork(),
          channelId,
          properties.map((p) => p.externalId),
        )
      ).map((s) => [s.externalId, s.timezone]),
    );
    for (const property of properties) {
      const steps = story(which, property.ref, now);
      if (!(await findReport(ctx.orm.em.fork(), channelId, property.internalId))) {
        for (const { daysAgo, state } of steps) {
          const { live, ...reported } = state;
          const clock = { now: () => new Date(now.getTime() - daysAgo * DAY_MS) };
          await putListingReport({ orm: ctx.orm, clock }, channelId, property.externalId, {
            ...reported,
            public_url: live ? `https://${name}.example/stay/${property.externalId}` : null,
          });
          reports += 1;
        }
      }
      const today = localDate(now, zones.get(property.externalId) ?? 'UTC');
      const live = steps.at(-1)!.state.live === true;
      for (let back = 29; back >= 0; back -= 1) {
        const date = addDays(today, -back);
        const weekend = [0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay()) ? 1.6 : 1;
        const views = Math.round(
          (live
            ? 60 + 240 * unit(`${name}|${property.ref}|${date}|v`)
            : 8 * unit(`${name}|${property.ref}|${date}|v`)) * weekend,
        );
        const clicks = Math.floor(views * (0.02 + 0.08 * unit(`${name}|${property.ref}|${date}|c`)));
        stats.push({ property_id: property.externalId, date, views, clicks_to_booking: clicks });
      }
    }
    if (stats.length > 0) days += (await postListingStats(ctx, channelId, stats)).accepted;
  }
  return { reports_written: reports, days };
}
