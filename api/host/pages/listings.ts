import type { HostLocale } from '../../../domain/host-locale.ts';
import { listingsOverview, propertyDashboard } from '../../../services/host-dashboard.ts';
import type {
  AttentionItem,
  AttentionMore,
  DashboardChannel,
  DashboardProperty,
  DashboardReport,
} from '../../../services/host-dashboard-model.ts';
import { fill, html, raw, type SafeHtml } from '../html.ts';
import { formatDate, formatInstant } from '../formats.ts';
import { CHART_STYLE, channelChart } from '../listing-chart.ts';
import { filterForm, isFiltered, overviewHref, overviewQuery, pager, showing } from '../overview-controls.ts';
import {
  listingsTexts,
  propertyName,
  rejectionReason,
  type ListingsTextKey,
  type ListingsTranslate,
} from '../listings-texts.ts';
import { definePage, notFoundPage } from '../page.ts';
import { HOST_BASE } from '../paths.ts';

/**
 * The listings dashboard: every property of the organization with each channel's last report
 * (status badge, public address, promotion, rejection), what the host should act on, and a page
 * per property with the reports' history and 30 days of figures per channel.
 */

export const LISTINGS_PATH = `${HOST_BASE}/listings`;
export const propertyPath = (ref: string) => `${LISTINGS_PATH}/${encodeURIComponent(ref)}`;

/** Badge colours pass WCAG AA contrast; each badge also carries its text and a sign, never colour alone. */
const STYLE = `
.badge{display:inline-flex;gap:.35rem;align-items:center;padding:.1rem .6rem;border-radius:1rem;font-weight:600;border:1px solid currentColor}
.badge-published{color:#0d5224;background:#e6f4ea}
.badge-pending_review{color:#6b4100;background:#fef7e0}
.badge-rejected{color:#8c1d18;background:#fce8e6}
.badge-unpublished,.badge-other{color:#3c4043;background:#f1f3f4}
.listing{border-top:1px solid #e3e9f1;padding:.75rem 0}
.listing h3{font-size:1rem;margin:0 0 .25rem}
.listing dl{display:grid;grid-template-columns:minmax(7rem,auto) 1fr;gap:.25rem .75rem;margin:0}
.listing dt{font-weight:600;color:#3c4043}
.listing dd{margin:0;overflow-wrap:anywhere}
.attention li{margin:.25rem 0}
.empty{color:#3c4043;font-style:italic}
.note{border-left:4px solid #5f6368;padding-left:.75rem}
details{margin:.25rem 0 1rem}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;margin:0 0 1rem}
.filters p{margin:0;display:flex;flex-direction:column}
.filters p.check{flex-direction:row;align-items:center;gap:.5rem;min-height:2.75rem}
.filters p.check input{width:1.5rem;height:1.5rem;margin:0}
.pager{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:0 0 1rem}
.pager a{display:inline-block;padding:.6rem 0;min-height:2.75rem}
@media (max-width:36rem){.listing dl{grid-template-columns:1fr}.listing dd{margin-bottom:.35rem}}
`;

const STATUS_SIGNS: Record<string, string> = { published: '✓', pending_review: '…', rejected: '✕', unpublished: '–' };

function badge(status: string, tl: ListingsTranslate): SafeHtml {
  const known = Object.hasOwn(STATUS_SIGNS, status);
  const text = known ? tl(`status.${status}` as ListingsTextKey) : tl('status.other', { status });
  return html`<span class="badge badge-${known ? status : 'other'}" data-status="${status}"><span aria-hidden="true">${STATUS_SIGNS[status] ?? '•'}</span>${text}</span>`;
}

interface View {
  locale: HostLocale;
  tl: ListingsTranslate;
}

/** An instant on the property's clock, its zone named; the machine-readable instant stays in UTC. */
const when = (locale: HostLocale, instant: string, timeZone: string) =>
  html`<time datetime="${instant}">${formatInstant(locale, instant, timeZone)}</time>`;

function reportFields(report: DashboardReport, channel: string, timeZone: string, { locale, tl }: View): SafeHtml {
  const url = report.public_url
    ? html`<a href="${report.public_url}" rel="noopener noreferrer external">${tl('report.open', { channel })}<span class="visually-hidden"> (${report.public_url})</span></a>`
    : tl('report.no_url');
  const promotion = !report.promoted
    ? tl('promotion.none')
    : report.promoted_until
      ? fill(tl('promotion.until'), { when: when(locale, report.promoted_until, timeZone) })
      : tl('promotion.open');
  const rejection = report.rejection
    ? html`<span data-rejection-reason="${report.rejection.reason}">${tl('rejection.reason', { reason: rejectionReason(report.rejection.reason, tl) })}</span><br>${report.rejection.text ?? tl('rejection.no_text')}`
    : null;
  return html`<dl>
<dt>${tl('field.status')}</dt><dd>${badge(report.status, tl)}</dd>
<dt>${tl('field.url')}</dt><dd>${url}</dd>
<dt>${tl('field.promotion')}</dt><dd data-promoted="${report.promoted ? 'yes' : 'no'}">${promotion}</dd>
${rejection ? html`<dt>${tl('field.rejection')}</dt><dd>${rejection}</dd>` : ''}
<dt>${tl('field.updated')}</dt><dd>${fill(tl('updated.text'), { since: when(locale, report.updated_at, timeZone), received: when(locale, report.received_at, timeZone) })}</dd>
</dl>`;
}

function visibilityNote(channel: DashboardChannel, tl: ListingsTranslate): string | null {
  if (!channel.distributed) return tl('visibility.not_distributed');
  if (channel.visibility === 'withdrawn') return tl('visibility.withdrawn');
  if (channel.visibility === 'deleted') return tl('visibility.deleted');
  if (channel.visibility === 'pending') return tl('visibility.pending');
  return null;
}

function channelBlock(channel: DashboardChannel, timeZone: string, view: View): SafeHtml {
  const note = visibilityNote(channel, view.tl);
  return html`<div class="listing" data-channel="${channel.name}">
<h3>${channel.name}</h3>
${note ? html`<p class="note">${note}</p>` : ''}
${channel.report ? reportFields(channel.report, channel.name, timeZone, view) : html`<p class="empty" data-empty-report="${channel.name}">${view.tl('report.none', { channel: channel.name })}</p>`}
</div>`;
}

/**
 * Past the items listed, how many more there are and where the host sees them: the overview
 * filtered on withdrawals (it shows each property with the channels that withdrew it),
 * on each channel that rejected a listing not listed and on `rejected` (it shows each such
 * listing with its reason and text), and the owners page for owners not connected. Lapses come
 * right after withdrawals, so only withdrawals push one past the list; it has no page of its own.
 */
function attentionMoreLine(more: AttentionMore, tl: ListingsTranslate): SafeHtml {
  const links = [
    ...(more.withdrawn
      ? [
          html`<a href="${overviewHref({ channel: null, status: null, withdrawn: true }, 1)}" data-attention-more-withdrawn>${tl('attention.more_withdrawn')}</a>`,
        ]
      : []),
    ...more.rejectedBy.map(
      (channel) =>
        html`<a href="${overviewHref({ channel, status: 'rejected' }, 1)}" data-attention-more-rejected="${channel}">${tl('attention.more_rejected', { channel })}</a>`,
    ),
    ...(more.notConnected ? [html`<a href="${HOST_BASE}/">${tl('attention.owners_link')}</a>`] : []),
  ];
  const separated = links.map((link, i) =>
    i === 0 ? html` ${link}` : html`<span aria-hidden="true"> · </span>${link}`,
  );
  return html`<p class="more" data-attention-more="${String(more.count)}">${tl('attention.more', { count: more.count })}${separated}</p>`;
}

function attentionList(items: readonly AttentionItem[], view: View, more?: AttentionMore): SafeHtml {
  const { locale, tl } = view;
  const strong = (text: string) => html`<strong>${text}</strong>`;
  const link = (ref: string, name: Record<string, string>) =>
    html`<a href="${propertyPath(ref)}">${propertyName(name, locale, ref)}</a>`;
  const entries = items.map((item) => {
    switch (item.kind) {
      case 'withdrawn':
        return html`<li data-attention="withdrawn">${fill(tl(item.reason === 'certificate' ? 'attention.withdrawn_certificate' : 'attention.withdrawn_other'), { property: link(item.property, item.propertyName), channel: strong(item.channel) })}</li>`;
      case 'rejected':
        return html`<li data-attention="rejected" data-rejection-reason="${item.reason}">${fill(tl('attention.rejected'), { property: link(item.property, item.propertyName), channel: strong(item.channel), reason: strong(rejectionReason(item.reason, tl)) })}${item.text ? html` <q>${item.text}</q>` : ''}</li>`;
      case 'expiring':
        return html`<li data-attention="expiring">${fill(tl('attention.expiring'), { property: link(item.property, item.propertyName), date: html`<time datetime="${item.on}">${formatDate(locale, item.on)}</time>`, channels: strong(item.channels.join(', ')) })}</li>`;
      case 'not_connected':
        return html`<li data-attention="not_connected">${fill(tl('attention.not_connected', { count: item.properties }), { owner: strong(item.ownerName), channel: strong(item.channel) })} <a href="${HOST_BASE}/">${tl('attention.owners_link')}</a></li>`;
    }
  });
  return html`<section class="card attention" aria-labelledby="attention-title"><h2 id="attention-title">${tl('attention.title')}</h2>
${items.length === 0 ? html`<p>${tl('attention.none')}</p>` : html`<ul>${entries}</ul>`}
${more && more.count > 0 ? attentionMoreLine(more, tl) : ''}</section>`;
}

const bookingsNote = (tl: ListingsTranslate) =>
  html`<section class="card" aria-labelledby="bookings-title" data-bookings><h2 id="bookings-title">${tl('bookings.title')}</h2><p class="note">${tl('bookings.body')}</p></section>`;

function propertyCard(property: DashboardProperty, index: number, view: View): SafeHtml {
  const name = propertyName(property.name, view.locale, property.ref);
  const heading = `property-${index}`;
  return html`<section class="card" aria-labelledby="${heading}" data-property="${property.ref}">
<h2 id="${heading}">${name}</h2>
${property.channels.length === 0 ? html`<p class="empty">${view.tl('property.none_distributed')}</p>` : property.channels.map((channel) => channelBlock(channel, property.timezone, view))}
<p><a href="${propertyPath(property.ref)}">${view.tl('property.details')}<span class="visually-hidden">: ${name}</span></a></p>
</section>`;
}

export const listingsOverviewPage = definePage({
  method: 'get',
  path: '/listings',
  handler: async ({ deps, session, locale, nonce, req }) => {
    const tl = listingsTexts(locale);
    const view = { locale, tl };
    const overview = await listingsOverview(deps, session.organizationId, overviewQuery(req.query));
    const filtered = isFiltered(overview.filter);
    const empty = html`<p class="empty">${tl(filtered ? 'overview.none_matching' : 'overview.none')}</p>`;
    const offset = (overview.page - 1) * overview.pageSize;
    return {
      kind: 'page',
      title: tl('overview.title'),
      body: html`<style nonce="${nonce}">${raw(STYLE)}</style>
<h1>${tl('overview.title')}</h1><p>${tl('overview.intro')}</p>
${attentionList(overview.attention, view, overview.attentionMore)}
${overview.channels.length > 0 ? filterForm(overview, tl) : ''}
${overview.total > 0 ? showing(overview, tl) : ''}
${overview.properties.length === 0 ? empty : overview.properties.map((property, i) => propertyCard(property, offset + i, view))}
${overview.pages > 1 ? pager(overview, tl) : ''}
${bookingsNote(tl)}`,
    };
  },
});

function historySection(model: NonNullable<Awaited<ReturnType<typeof propertyDashboard>>>, view: View): SafeHtml {
  const { locale, tl } = view;
  const blocks = model.property.channels.map((channel, index) => {
    const listing = model.listings.get(channel.name);
    if (!listing || listing.history.length === 0)
      return html`<h3>${channel.name}</h3><p class="empty" data-empty-report="${channel.name}">${tl('report.none', { channel: channel.name })}</p>`;
    const rows = listing.history.map(
      (change) =>
        html`<tr><th scope="row">${when(locale, change.changed_at, model.property.timezone)}</th><td>${badge(change.status, tl)}</td><td>${change.rejection ? `${rejectionReason(change.rejection.reason, tl)}${change.rejection.text ? `: ${change.rejection.text}` : ''}` : (change.public_url ?? '')}</td></tr>`,
    );
    return html`<h3 id="history-${index}">${channel.name}</h3>
<table aria-labelledby="history-${index}" data-history="${channel.name}"><thead><tr><th scope="col">${tl('history.changed')}</th><th scope="col">${tl('field.status')}</th><th scope="col">${tl('field.url')} / ${tl('field.rejection')}</th></tr></thead><tbody>${rows}</tbody></table>`;
  });
  return html`<section class="card" aria-labelledby="history-title"><h2 id="history-title">${tl('history.title')}</h2>${blocks}</section>`;
}

export const listingPropertyPage = definePage({
  method: 'get',
  path: '/listings/:property',
  handler: async ({ deps, session, locale, nonce, params }) => {
    const tl = listingsTexts(locale);
    const view = { locale, tl };
    const model = await propertyDashboard(deps, session.organizationId, params.property ?? '');
    // Another organization's property and an unknown reference are the same 404.
    if (!model) throw notFoundPage();
    const name = propertyName(model.property.name, locale, model.property.ref);
    const charts = model.chart.series.map(
      (series, i) => html`<h3>${series.channel}</h3>${channelChart(series, i, view)}`,
    );
    return {
      kind: 'page',
      title: name,
      body: html`<style nonce="${nonce}">${raw(STYLE + CHART_STYLE)}</style>
<p><a href="${LISTINGS_PATH}">${tl('property.back')}</a></p>
<h1>${name}</h1>
${model.attention.length > 0 ? attentionList(model.attention, view) : ''}
<section class="card" aria-labelledby="now-title" data-property="${model.property.ref}"><h2 id="now-title">${tl('overview.title')}</h2>
${model.property.channels.length === 0 ? html`<p class="empty">${tl('property.none_distributed')}</p>` : model.property.channels.map((channel) => channelBlock(channel, model.property.timezone, view))}</section>
<section class="card" aria-labelledby="chart-title"><h2 id="chart-title">${tl('chart.title')}</h2>
${charts.length === 0 ? html`<p class="empty">${tl('property.none_distributed')}</p>` : charts}</section>
${historySection(model, view)}
${bookingsNote(tl)}`,
    };
  },
});
