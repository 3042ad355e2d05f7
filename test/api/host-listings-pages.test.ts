import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { addDays, localDate } from '../../domain/time.ts';
import { attentionCandidates } from '../../db/host-attention.ts';
import { ATTENTION_LIMIT, OVERVIEW_PAGE_SIZE } from '../../services/host-dashboard-model.ts';
import { listingsOverview } from '../../services/host-dashboard.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { platform } from '../support/catalogue.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { classification, dashboardScene } from '../support/host-dashboard.ts';
import { hostRequest, openSession } from '../support/host-pages.ts';

// The listings overview in pages: a page of properties at a time, a total, links to the pages
// before and after that keep the host's filter, and what to act on across every page, its first
// items only.

const MANY = 2 * OVERVIEW_PAGE_SIZE + 5;
/** Listings one channel rejects in the organization `lp-rej`: more than "to act on" lists. */
const REJECTED = ATTENTION_LIMIT + 5;
let api: TestApi;
let ctx: AdminContext;
let clock: TestClock;
let scene: Awaited<ReturnType<typeof dashboardScene>>;
let channel: string;
/** The channels that reject: the first every listing of `lp-rej`, the second its last one. */
let rejecting: [string, string];
const ids: Record<string, string> = {};
const rejectedRef = (i: number) => `lp-rej-${String(i).padStart(3, '0')}`;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: new TestClock('2026-11-22T08:00:00Z') });
  const { host, orm } = bed;
  ({ api, ctx, clock } = bed);
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
  const reporters = [
    await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] }),
    await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] }),
  ];
  rejecting = reporters.map((r) => r.channel.name) as [string, string];
  await host.organization('lp-rej');
  await host.owner('lp-rej-own', { organization: 'lp-rej', display_name: 'Rejected Rooms SRL' });
  await host.location('lp-rej-loc', { organization: 'lp-rej', owner: 'lp-rej-own' });
  for (let i = 0; i < REJECTED; i += 1) {
    await host.property(rejectedRef(i), { location: 'lp-rej-loc', owner: 'lp-rej-own' });
    await host.distribute(rejectedRef(i), rejecting);
  }
  const reject = async (reporter: (typeof reporters)[number], ref: string) => {
    const [seen] = await orm.em.fork().execute<{ external_id: string }[]>(
      `select cr.external_id from channel_resource cr join property p on p.id = cr.internal_id
        where cr.kind = 'property' and p.ref = ? and cr.channel_id = ?`,
      [ref, reporter.channel.id],
    );
    const res = await api.call('PUT', `/api/v1/distribution/properties/${seen!.external_id}/listing`, {
      key: reporter.key.key,
      body: { status: 'rejected', rejection: { reason: 'photos', text: 'Too dark.' } },
    });
    expect(res.status, res.text).toBe(200);
  };
  for (let i = 0; i < REJECTED; i += 1) await reject(reporters[0]!, rejectedRef(i));
  await reject(reporters[1]!, rejectedRef(REJECTED - 1));
  for (const ref of ['lp-many', 'lp-rej', scene.org]) {
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
    [{ channel: null, status: null, withdrawn: true }, ['old']],
    [{ channel: 'b', status: null, withdrawn: true }, ['old']],
    [{ channel: 'a', status: 'published', withdrawn: true }, ['old']],
    [{ channel: 'b', status: 'none' }, ['lower', 'old']],
    [{ channel: 'a', status: 'published' }, ['old', 'upper']],
    [{ channel: 'a', status: 'rejected' }, []],
    [{ channel: 'b', status: null }, ['lower', 'old', 'upper']],
  ] as const)('filtered by %j: %j', async (asked, expected) => {
    const channelName = asked.channel === null ? null : scene.channels[asked.channel];
    const overview = await listingsOverview(ctx, ids[scene.org]!, {
      filter: { channel: channelName, status: asked.status, withdrawn: 'withdrawn' in asked },
    });
    expect(overview.properties.map((p) => p.ref)).toEqual(expected.map((which) => scene.refs[which]).sort());
    expect(overview.total).toBe(expected.length);
    // What to act on does not follow the filter: two withdrawals, a rejection, a lapse, two owners not connected.
    expect(overview.attention).toHaveLength(6);
  });

  test(`what to act on lists its first ${ATTENTION_LIMIT} items in order, and counts the rest with where they are`, async () => {
    const overview = await listingsOverview(ctx, ids['lp-rej']!);
    const [first, second] = rejecting;
    // In the list's order: the first channel's rejections by reference, then the second's (on the
    // last property, so after them), then the owner not connected to either channel.
    expect(overview.attention).toHaveLength(ATTENTION_LIMIT);
    expect(overview.attention.map((item) => item.kind === 'rejected' && [item.property, item.channel])).toEqual(
      Array.from({ length: ATTENTION_LIMIT }, (_, i) => [rejectedRef(i), first]),
    );
    // REJECTED + 1 rejections and two owners not connected, less those listed.
    expect(overview.attentionMore).toEqual({
      count: REJECTED + 1 + 2 - ATTENTION_LIMIT,
      withdrawn: false,
      rejectedBy: [first, second].sort(),
      notConnected: true,
    });
  });

  test('what to act on reads whole only the properties of the items it lists, and counts the rest', async () => {
    const candidates = await attentionCandidates(ctx.orm.em.fork(), ids['lp-rej']!, [], ATTENTION_LIMIT);
    expect(candidates.properties.map((p) => p.ref)).toEqual(
      Array.from({ length: ATTENTION_LIMIT }, (_, i) => rejectedRef(i)),
    );
    expect(candidates).toMatchObject({ withdrawn: 0, rejected: { [rejecting[0]]: REJECTED, [rejecting[1]]: 1 } });
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

  test(`"to act on" lists ${ATTENTION_LIMIT} items, says how many more, and links to where the host sees them`, async () => {
    const [first, second] = rejecting;
    const more = REJECTED + 1 + 2 - ATTENTION_LIMIT;
    const cookie = await openSession(api, 'lp-rej');
    const page = await hostRequest(api, 'GET', '/host/listings', { cookie });
    expect(page.status, page.text).toBe(200);
    const section = /<section class="card attention"[\s\S]*?<\/section>/.exec(page.text)![0];
    expect(section.match(/<li data-attention="/g)).toHaveLength(ATTENTION_LIMIT);
    expect(section.match(/<li data-attention="rejected"/g)).toHaveLength(ATTENTION_LIMIT);
    expect(section).toContain(`href="/host/listings/${rejectedRef(ATTENTION_LIMIT - 1)}"`);
    expect(section).not.toContain(`href="/host/listings/${rejectedRef(ATTENTION_LIMIT)}"`);
    const link = (channelName: string) =>
      `<a href="/host/listings?channel=${channelName}&#38;status=rejected" data-attention-more-rejected="${channelName}">Every listing ${channelName} rejected</a>`;
    const [one, two] = [first, second].sort() as [string, string];
    expect(section).toContain(
      `<p class="more" data-attention-more="${more}">${more} more items to act on are not listed here. ${link(one)}<span aria-hidden="true"> · </span>${link(two)}<span aria-hidden="true"> · </span><a href="/host/">Owners and channels</a></p>`,
    );
    // The link's page shows every listing the channel rejected, each with its reason.
    const all = await hostRequest(api, 'GET', `/host/listings?channel=${first}&status=rejected&page=2`, { cookie });
    expect(all.text).toContain(`Properties 21–${REJECTED} of ${REJECTED}`);
    expect(all.text).toContain(`data-property="${rejectedRef(REJECTED - 1)}"`);
    const ro = await hostRequest(api, 'GET', '/host/listings', { cookie: await openSession(api, 'lp-rej', 'ro') });
    expect(ro.text).toContain(`Încă ${more} elemente de rezolvat nu sunt afișate aici.`);
    expect(ro.text).toContain(`>Toate anunțurile respinse de ${first}</a>`);
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

describe('withdrawals past the first items of "to act on"', () => {
  /** Properties of the organization `lp-wd`, each withdrawn from the one channel it is distributed to. */
  const WITHDRAWN = ATTENTION_LIMIT + 3;
  const withdrawnRef = (i: number) => `lp-wd-${String(i).padStart(3, '0')}`;
  let wdChannel: string;

  beforeAll(async () => {
    const host = platform(api);
    const today = localDate(clock.now(), 'Europe/Bucharest');
    wdChannel = (await channelWithKey(ctx)).channel.name;
    await host.organization('lp-wd');
    await host.owner('lp-wd-own', { organization: 'lp-wd', display_name: 'Withdrawn Rooms SRL' });
    await host.location('lp-wd-loc', { organization: 'lp-wd', owner: 'lp-wd-own' });
    const legal = (validUntil: string) => ({ classification: classification(validUntil) });
    for (let i = 0; i < WITHDRAWN; i += 1) {
      const ref = withdrawnRef(i);
      await host.property(ref, { location: 'lp-wd-loc', owner: 'lp-wd-own', legal: legal(addDays(today, 2000)) });
      await host.distribute(ref, [wdChannel]);
      // Found expired: withdrawn from the channel.
      await host.property(ref, { location: 'lp-wd-loc', owner: 'lp-wd-own', legal: legal(addDays(today, -1)) });
    }
    const [row] = await ctx.orm.em
      .fork()
      .execute<{ id: string }[]>('select id from organization where ref = ?', ['lp-wd']);
    ids['lp-wd'] = row!.id;
  }, 180_000);

  test('are counted, and the overview filtered on withdrawals shows every one of them', async () => {
    const overview = await listingsOverview(ctx, ids['lp-wd']!);
    expect(overview.attention.map((item) => item.kind === 'withdrawn' && [item.property, item.channel])).toEqual(
      Array.from({ length: ATTENTION_LIMIT }, (_, i) => [withdrawnRef(i), wdChannel]),
    );
    expect(overview.attentionMore).toEqual({ count: 3, withdrawn: true, rejectedBy: [], notConnected: false });
    const filtered = await listingsOverview(ctx, ids['lp-wd']!, {
      filter: { channel: null, status: null, withdrawn: true },
      page: 2,
    });
    expect(filtered.total).toBe(WITHDRAWN);
    expect(filtered.properties.map((p) => p.ref)).toEqual([withdrawnRef(20), withdrawnRef(21), withdrawnRef(22)]);
  });

  test('the page links to them, and its filter form keeps the choice', async () => {
    const cookie = await openSession(api, 'lp-wd');
    const page = await hostRequest(api, 'GET', '/host/listings', { cookie });
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain(
      '<p class="more" data-attention-more="3">3 more items to act on are not listed here. <a href="/host/listings?withdrawn=1" data-attention-more-withdrawn>Every property a channel withdrew</a></p>',
    );
    const all = await hostRequest(api, 'GET', '/host/listings?withdrawn=1&page=2', { cookie });
    expect(all.text).toContain(`Properties 21–${WITHDRAWN} of ${WITHDRAWN}`);
    expect(all.text).toContain('<input type="checkbox" id="filter-withdrawn" name="withdrawn" value="1" checked>');
    expect(all.text).toContain('<a rel="prev" href="/host/listings?withdrawn=1">Previous page</a>');
    // Another organization's withdrawals are not this one's: lp-many has none.
    const none = await hostRequest(api, 'GET', '/host/listings?withdrawn=1', {
      cookie: await openSession(api, 'lp-many'),
    });
    expect(none.text).toContain('No property matches these filters.');
    const ro = await hostRequest(api, 'GET', '/host/listings', { cookie: await openSession(api, 'lp-wd', 'ro') });
    expect(ro.text).toContain('>Toate proprietățile retrase de un canal</a>');
  });
});
