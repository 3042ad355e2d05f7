import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { listingsOverview, propertyDashboard } from '../../services/host-dashboard.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { TestClock } from '../support/clock.ts';
import { dashboardScene } from '../support/host-dashboard.ts';
import { hostRequest, openSession } from '../support/host-pages.ts';

const BASE = '/api/v1/distribution';

// The listings dashboard: its model (services/host-dashboard.ts) and its pages over real TLS.

let api: TestApi;
let clock: TestClock;
let ctx: AdminContext;
let scene: Awaited<ReturnType<typeof dashboardScene>>;
let organizationId: string;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: new TestClock('2026-11-22T08:00:00Z') });
  const { orm } = bed;
  ({ api, clock, ctx } = bed);
  scene = await dashboardScene(api, ctx, clock, 'hl');
  const [row] = await orm.em.fork().execute<{ id: string }[]>('select id from organization where ref = ?', [scene.org]);
  organizationId = row!.id;
});

describe('the dashboard model', () => {
  test("each property with each channel's last report and what to act on", async () => {
    const { properties, attention } = await listingsOverview(ctx, organizationId);
    const { a, b } = scene.channels;
    const byRef = Object.fromEntries(properties.map((p) => [p.ref, p]));
    const upper = byRef[scene.refs.upper]!;
    expect(upper.channels.map((c) => [c.name, c.visibility, c.report?.status ?? null])).toEqual(
      [
        [a, 'shown', 'published'],
        [b, 'shown', 'rejected'],
      ].sort(),
    );
    expect(upper.channels.find((c) => c.name === a)!.report).toMatchObject({
      public_url: 'https://a.example/stay/upper',
      promoted: true,
      promoted_until: '2026-12-06T22:00:00Z',
      updated_at: '2026-11-22T08:01:00Z',
    });
    expect(byRef[scene.refs.lower]!.channels.find((c) => c.name === b)!.report).toBeNull();
    expect(attention).toEqual([
      expect.objectContaining({
        kind: 'withdrawn',
        property: scene.refs.old,
        channel: [a, b].sort()[0],
        reason: 'certificate',
      }),
      expect.objectContaining({
        kind: 'withdrawn',
        property: scene.refs.old,
        channel: [a, b].sort()[1],
        reason: 'certificate',
      }),
      // A lapse has a day of its own, so it comes before a rejection.
      expect.objectContaining({ kind: 'expiring', property: scene.refs.lower, on: '2026-12-02', days: 10 }),
      // Channel B rejected the upper house: the one thing a channel asks the host to fix.
      expect.objectContaining({
        kind: 'rejected',
        property: scene.refs.upper,
        channel: b,
        reason: 'photos',
        text: 'The photos show another house.',
      }),
      expect.objectContaining({
        kind: 'not_connected',
        ownerName: 'Ana Popescu',
        channel: [a, b].sort()[0],
        properties: 2,
      }),
      expect.objectContaining({
        kind: 'not_connected',
        ownerName: 'Ana Popescu',
        channel: [a, b].sort()[1],
        properties: 2,
      }),
    ]);
  });

  test("a property page: 30 days per channel ending on its today, the history newest first; another organization's property is null", async () => {
    const model = (await propertyDashboard(ctx, organizationId, scene.refs.upper))!;
    expect(model.chart).toMatchObject({ from: '2026-10-24', to: '2026-11-23' });
    const series = Object.fromEntries(model.chart.series.map((s) => [s.channel, s.days]));
    expect(series[scene.channels.a]).toHaveLength(30);
    expect(series[scene.channels.a]!.filter((d) => d.views !== null)).toHaveLength(30);
    expect(series[scene.channels.b]!.filter((d) => d.views !== null)).toHaveLength(12);
    expect(series[scene.channels.a]!.at(-1)).toEqual({ date: '2026-11-22', views: 100, clicks_to_booking: 0 });
    expect(model.listings.get(scene.channels.a)!.history.map((h) => h.status)).toEqual(['published', 'pending_review']);
    const host = platform(api);
    await host.organization('hl-other');
    const [other] = await ctx.orm.em
      .fork()
      .execute<{ id: string }[]>('select id from organization where ref = ?', ['hl-other']);
    expect(await propertyDashboard(ctx, other!.id, scene.refs.upper)).toBeNull();
    expect(await propertyDashboard(ctx, organizationId, 'no-such-ref')).toBeNull();
  });
});

describe('the dashboard pages', () => {
  test('the overview shows badges with text, links, promotion, rejection, empty states and the bookings note', async () => {
    const cookie = await openSession(api, scene.org);
    const page = await hostRequest(api, 'GET', '/host/listings', { cookie });
    expect(page.status, page.text).toBe(200);
    const { a, b } = scene.channels;
    expect(page.text).toMatch(
      new RegExp(`data-channel="${a}">[\\s\\S]*?data-status="published"><span aria-hidden="true">✓</span>Published`),
    );
    expect(page.text).toContain('href="https://a.example/stay/upper"');
    expect(page.text).toContain('data-rejection-reason="photos">Reason: Photos</span>');
    expect(page.text).toContain('The photos show another house.');
    expect(page.text).toContain(`No report from ${b} yet.`);
    expect(page.text).toContain('Bookings from channels are not part of this service yet.');
    expect(page.text).toContain('data-attention="expiring"');
    expect(page.text).toMatch(
      new RegExp(
        `<li data-attention="rejected" data-rejection-reason="photos"><strong>${b}</strong> rejected the listing of <a href="/host/listings/${scene.refs.upper}">Upper House</a>\\. Reason: <strong>Photos</strong>\\. Correct it on your platform\\. <q>The photos show another house\\.</q></li>`,
      ),
    );
    expect(page.text).toContain('Withdrawn from this channel');
    // No script, no asset from elsewhere.
    expect(page.text).not.toMatch(/<script|src="http/);
  });

  test('in Romanian', async () => {
    const cookie = await openSession(api, scene.org, 'ro');
    const page = await hostRequest(api, 'GET', '/host/listings', { cookie });
    expect(page.text).toContain('<html lang="ro">');
    expect(page.text).toContain('Publicat');
    expect(page.text).toContain('Rezervările venite de pe canale nu fac încă parte din acest serviciu.');
    expect(page.text).toContain('data-rejection-reason="photos">Motiv: Fotografii</span>');
    expect(page.text).toContain(
      `<strong>${scene.channels.b}</strong> a respins anunțul proprietății <a href="/host/listings/${scene.refs.upper}">Casa de Sus</a>. Motiv: <strong>Fotografii</strong>.`,
    );
    // The owner is named after the connection it lacks, never as a subject that would agree.
    expect(page.text).toContain('Nu există încă o conexiune între <strong>Ana Popescu</strong> și');
  });

  test.each([
    [
      'it-IT',
      'it',
      'Annunci sui canali',
      'Pubblicato',
      'Le prenotazioni dai canali non fanno ancora parte di questo servizio.',
      '3435 visualizzazioni e 85 clic verso la prenotazione in 30 giorni con dati',
    ],
    [
      'es-ES',
      'es',
      'Anuncios en los canales',
      'Publicado',
      'Las reservas procedentes de los canales todavía no forman parte de este servicio.',
      '3435 visualizaciones y 85 clics hacia la reserva en 30 días con datos',
    ],
  ])(
    "in the language of %s, the property page's counts included",
    async (tag, lang, title, published, bookings, summary) => {
      const cookie = await openSession(api, scene.org, tag);
      const page = await hostRequest(api, 'GET', '/host/listings', { cookie });
      expect(page.text).toContain(`<html lang="${lang}">`);
      expect(page.text).toContain(`<h1>${title}</h1>`);
      expect(page.text).toContain(published);
      expect(page.text).toContain(bookings);
      expect(page.text).toMatch(new RegExp(`<option value="${lang}" lang="${lang}" selected>`));
      const property = await hostRequest(api, 'GET', `/host/listings/${scene.refs.upper}`, { cookie });
      expect(property.text).toContain(summary);
    },
  );

  test('a page without a session follows Accept-Language, Italian and Spanish included', async () => {
    for (const [header, lang, title] of [
      ['it-IT,it;q=0.9', 'it', 'La sessione è terminata'],
      ['es-ES,es;q=0.9,en;q=0.5', 'es', 'Su sesión ha terminado'],
    ]) {
      const page = await hostRequest(api, 'GET', '/host/listings', { headers: { 'accept-language': header! } });
      expect(page.status).toBe(401);
      expect(page.text).toContain(`<html lang="${lang}">`);
      expect(page.text).toContain(`<h1>${title}</h1>`);
    }
  });

  test('the property page draws 30 bars of views and of clicks for a channel with 30 days, and says what is missing', async () => {
    const cookie = await openSession(api, scene.org);
    const page = await hostRequest(api, 'GET', `/host/listings/${scene.refs.upper}`, { cookie });
    expect(page.status, page.text).toBe(200);
    const chartOf = (channel: string) =>
      new RegExp(`data-chart="${channel}">([\\s\\S]*?)</figure>`).exec(page.text)?.[1] ?? '';
    expect(chartOf(scene.channels.a).match(/data-series="views"/g)).toHaveLength(30);
    expect(chartOf(scene.channels.a).match(/data-series="clicks"/g)).toHaveLength(30);
    expect(chartOf(scene.channels.b).match(/data-series="views"/g)).toHaveLength(12);
    expect(page.text).toContain('role="img"');
    const lower = await hostRequest(api, 'GET', `/host/listings/${scene.refs.lower}`, { cookie });
    expect(lower.text).toContain(`No statistics from ${scene.channels.a} in the last 30 days.`);
  });

  test("the chart's summary counts by the language's plural rules and number format", async () => {
    const summaries = async (locale: string) => {
      const cookie = await openSession(api, scene.org, locale);
      const page = await hostRequest(api, 'GET', `/host/listings/${scene.refs.upper}`, { cookie });
      return [...page.text.matchAll(/<figcaption[^>]*>([^<]*)<\/figcaption>/g)].map((m) => m[1]);
    };
    // Channel A reported 30 days (3,435 views, 85 clicks), channel B 12 days (1,266 views, 31 clicks).
    const en = await summaries('en');
    expect(en).toContain('3,435 views and 85 clicks to booking over 30 reported days; most views in a day: 129.');
    expect(en).toContain('1,266 views and 31 clicks to booking over 12 reported days; most views in a day: 111.');
    const ro = await summaries('ro');
    expect(ro).toContain(
      '3.435 de vizualizări și 85 de clicuri spre rezervare în 30 de zile raportate; cele mai multe vizualizări într-o zi: 129.',
    );
    expect(ro).toContain(
      '1.266 de vizualizări și 31 de clicuri spre rezervare în 12 zile raportate; cele mai multe vizualizări într-o zi: 111.',
    );
  });

  test("times are on the property's clock with its zone named, the machine-readable instant in UTC", async () => {
    const cookie = await openSession(api, scene.org);
    const page = await hostRequest(api, 'GET', `/host/listings/${scene.refs.upper}`, { cookie });
    // Channel A's report came at 08:01 UTC: 10:01 in Bucharest.
    expect(page.text).toContain('<time datetime="2026-11-22T08:01:00Z">22 Nov 2026, 10:01 (Europe/Bucharest)</time>');
    expect(page.text).not.toMatch(/\d UTC</);
  });

  test("a reason of the channel's own shows as its code, said to be one; the history says each reason in words", async () => {
    const listed = await api.call('GET', `${BASE}/properties?limit=10`, { key: scene.keys.b });
    const upper = (listed.json.data as { id: string; name: { en: string } }[]).find((p) => p.name.en === 'Upper House');
    const res = await api.call('PUT', `${BASE}/properties/${upper!.id}/listing`, {
      key: scene.keys.b,
      body: { status: 'rejected', rejection: { reason: 'blurry', text: null } },
    });
    expect(res.status, res.text).toBe(200);
    const cookie = await openSession(api, scene.org);
    const overview = await hostRequest(api, 'GET', '/host/listings', { cookie });
    expect(overview.text).toContain('data-rejection-reason="blurry">Reason: the channel’s code “blurry”</span>');
    expect(overview.text).toContain('Reason: <strong>the channel’s code “blurry”</strong>');
    const page = await hostRequest(api, 'GET', `/host/listings/${scene.refs.upper}`, { cookie });
    const history = new RegExp(`data-history="${scene.channels.b}">([\\s\\S]*?)</table>`).exec(page.text)?.[1] ?? '';
    expect(history).toContain('<td>the channel’s code “blurry”</td>');
    expect(history).toContain('<td>Photos: The photos show another house.</td>');
    expect(history).not.toMatch(/<td>(blurry|photos)/);
  });

  test("another organization's property and an unknown one are the same 404 page", async () => {
    await platform(api).organization('hl-stranger');
    const cookie = await openSession(api, 'hl-stranger');
    const theirs = await hostRequest(api, 'GET', `/host/listings/${scene.refs.upper}`, { cookie });
    const unknown = await hostRequest(api, 'GET', '/host/listings/no-such-ref', { cookie });
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    const strip = (text: string) => text.replace(/nonce="[^"]+"|value="[^"]+"|\/host\/listings\/[^"]+/g, '');
    expect(strip(theirs.text)).toBe(strip(unknown.text));
    const overview = await hostRequest(api, 'GET', '/host/listings', { cookie });
    expect(overview.text).not.toContain(scene.refs.upper);
  });
});
