import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { OVERVIEW_PAGE_SIZE } from '../../services/host-dashboard-model.ts';
import { listingsOverview } from '../../services/host-dashboard.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { dashboardScene } from '../support/host-dashboard.ts';
import { hostRequest, openSession } from '../support/host-pages.ts';

// The listings overview in pages: a page of properties at a time, a total, links to the pages
// before and after that keep the host's filter, and what to act on across every page.

const MANY = 2 * OVERVIEW_PAGE_SIZE + 5;
let api: TestApi;
let ctx: AdminContext;
let scene: Awaited<ReturnType<typeof dashboardScene>>;
let channel: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  const bed = await apiTestBed({ clock: new TestClock('2026-11-22T08:00:00Z') });
  const { clock, host, orm } = bed;
  ({ api, ctx } = bed);
  scene = await dashboardScene(api, ctx, clock, 'lp');
  channel = (await channelWithKey(ctx)).channel.name;
  await host.organization('lp-many');
  await host.owner('lp-many-own', { organization: 'lp-many', display_name: 'Many Rooms SRL' });
  await host.location('lp-many-loc', { organization: 'lp-many', owner: 'lp-many-own' });
  for (let i = 0; i < MANY; i += 1) {
    const ref = `lp-many-${String(i).padStart(3, '0')}`;
    await host.property(ref, { location: 'lp-many-loc', owner: 'lp-many-own' });
    await host.distribute(ref, [channel]);
  }
  for (const ref of ['lp-many', scene.org]) {
    const [row] = await orm.em.fork().execute<{ id: string }[]>('select id from organization where ref = ?', [ref]);
    ids[ref] = row!.id;
  }
}, 180_000);

describe('the overview model', () => {
  test(`${MANY} properties are ${OVERVIEW_PAGE_SIZE} a page by reference, with the total; a page past the end is the last`, async () => {
    const first = await listingsOverview(ctx, ids['lp-many']!);
    expect(first).toMatchObject({ total: MANY, page: 1, pages: 3, pageSize: OVERVIEW_PAGE_SIZE, channels: [channel] });
    expect(first.properties.map((p) => p.ref)).toEqual(
      Array.from({ length: OVERVIEW_PAGE_SIZE }, (_, i) => `lp-many-${String(i).padStart(3, '0')}`),
    );
    const last = await listingsOverview(ctx, ids['lp-many']!, { page: 3 });
    expect(last.properties.map((p) => p.ref)).toEqual([
      'lp-many-040',
      'lp-many-041',
      'lp-many-042',
      'lp-many-043',
      'lp-many-044',
    ]);
    const past = await listingsOverview(ctx, ids['lp-many']!, { page: 9 });
    expect(past.page).toBe(3);
    expect(past.properties.map((p) => p.ref)).toEqual(last.properties.map((p) => p.ref));
  });

  test('what to act on covers every page: the owner not connected is counted over all its properties', async () => {
    const { attention } = await listingsOverview(ctx, ids['lp-many']!, { page: 2 });
    expect(attention.filter((item) => item.kind === 'not_connected')).toEqual([
      expect.objectContaining({ channel, ownerName: 'Many Rooms SRL', properties: MANY }),
    ]);
  });

  test.each([
    [{ channel: null, status: 'rejected' }, ['upper']],
    [{ channel: 'b', status: 'none' }, ['lower', 'old']],
    [{ channel: 'a', status: 'published' }, ['old', 'upper']],
    [{ channel: 'a', status: 'rejected' }, []],
    [{ channel: 'b', status: null }, ['lower', 'old', 'upper']],
  ] as const)('filtered by %j: %j', async (asked, expected) => {
    const channelName = asked.channel === null ? null : scene.channels[asked.channel];
    const overview = await listingsOverview(ctx, ids[scene.org]!, {
      filter: { channel: channelName, status: asked.status },
    });
    expect(overview.properties.map((p) => p.ref)).toEqual(expected.map((which) => scene.refs[which]).sort());
    expect(overview.total).toBe(expected.length);
    // What to act on does not follow the filter: two withdrawals, a rejection, a lapse, two owners not connected.
    expect(overview.attention).toHaveLength(6);
  });

  test('a channel the organization has nothing on is no filter', async () => {
    const overview = await listingsOverview(ctx, ids[scene.org]!, { filter: { channel: channel, status: null } });
    expect(overview.filter.channel).toBeNull();
    expect(overview.total).toBe(3);
  });
});

describe('the overview page', () => {
  test('shows the total and links to the next and previous pages, which keep the filter', async () => {
    const cookie = await openSession(api, 'lp-many');
    const first = await hostRequest(api, 'GET', `/host/listings?channel=${channel}`, { cookie });
    expect(first.status, first.text).toBe(200);
    expect(first.text).toContain(`Properties 1–20 of 45`);
    expect(first.text.match(/data-property="/g)).toHaveLength(OVERVIEW_PAGE_SIZE);
    expect(first.text).toContain(`<a rel="next" href="/host/listings?channel=${channel}&#38;page=2">Next page</a>`);
    expect(first.text).not.toContain('rel="prev"');
    expect(first.text).toContain(`<option value="${channel}" selected>`);
    const second = await hostRequest(api, 'GET', `/host/listings?channel=${channel}&page=2`, { cookie });
    expect(second.text).toContain('Properties 21–40 of 45');
    expect(second.text).toContain(`<a rel="prev" href="/host/listings?channel=${channel}">Previous page</a>`);
    expect(second.text).toContain(`<a rel="next" href="/host/listings?channel=${channel}&#38;page=3">Next page</a>`);
    expect(second.text).toContain('Page 2 of 3');
    expect(second.text).toContain('data-property="lp-many-020"');
  });

  test('in Romanian the total is counted with "de", and a filter nothing passes says so', async () => {
    const cookie = await openSession(api, 'lp-many', 'ro');
    const page = await hostRequest(api, 'GET', '/host/listings?page=3', { cookie });
    expect(page.text).toContain('Proprietățile 41–45 din 45');
    const none = await hostRequest(api, 'GET', '/host/listings?status=rejected', { cookie });
    expect(none.text).toContain('Nicio proprietate nu corespunde acestor filtre.');
    expect(none.text).toContain('<option value="rejected" selected>');
  });

  test('a hand-edited address the form could not send shows the first page unfiltered, not an error', async () => {
    const cookie = await openSession(api, 'lp-many');
    for (const query of ['page=0', 'page=-2', 'page=abc', 'page=1e3', 'status=gone', 'page=2&page=3']) {
      const page = await hostRequest(api, 'GET', `/host/listings?${query}`, { cookie });
      expect(page.status, query).toBe(200);
      expect(page.text, query).toContain('Properties 1–20 of 45');
    }
  });
});
