import type { OverviewFilter } from '../../db/host-dashboard.ts';
import type { DashboardOverview, OverviewQuery } from '../../services/host-dashboard-model.ts';
import { html, raw, type SafeHtml } from './html.ts';
import type { ListingsTextKey, ListingsTranslate } from './listings-texts.ts';
import { HOST_BASE } from './paths.ts';

/**
 * The overview's filter form and its page links. The filter is a GET form, so a filtered page
 * is an address the host can reload, bookmark or share; every page link carries the filter.
 */

const OVERVIEW_PATH = `${HOST_BASE}/listings`;
const STATUSES = ['published', 'pending_review', 'rejected', 'unpublished'] as const;
const FILTER_STATUSES: readonly string[] = [...STATUSES, 'none'];

/**
 * The query of an overview address. A hand-edited value the form could not have sent is no
 * filter, and a page number that is not one is the first page: the host sees a page, not an error.
 */
export function overviewQuery(query: Record<string, unknown>): OverviewQuery {
  const text = (name: string) => (typeof query[name] === 'string' && query[name] !== '' ? query[name] : null);
  const page = /^[1-9]\d{0,6}$/.test(text('page') ?? '') ? Number(query.page) : 1;
  const status = text('status');
  return {
    page,
    filter: {
      channel: text('channel'),
      status: status !== null && FILTER_STATUSES.includes(status) ? status : null,
      withdrawn: text('withdrawn') === '1',
    },
  };
}

/** Whether the filter narrows the overview at all. */
export function isFiltered(filter: OverviewFilter): boolean {
  return filter.channel !== null || filter.status !== null || filter.withdrawn === true;
}

/** The overview's address for a page under a filter (page 1 and an empty filter leave their parameters out). */
export function overviewHref(filter: OverviewFilter, page: number): string {
  const params = new URLSearchParams();
  if (filter.channel !== null) params.set('channel', filter.channel);
  if (filter.status !== null) params.set('status', filter.status);
  if (filter.withdrawn) params.set('withdrawn', '1');
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return query === '' ? OVERVIEW_PATH : `${OVERVIEW_PATH}?${query}`;
}

const selected = (on: boolean) => (on ? raw(' selected') : '');

export function filterForm(overview: DashboardOverview, tl: ListingsTranslate): SafeHtml {
  const { filter } = overview;
  const channels = overview.channels.map(
    (name) => html`<option value="${name}"${selected(filter.channel === name)}>${name}</option>`,
  );
  const statuses = STATUSES.map(
    (status) =>
      html`<option value="${status}"${selected(filter.status === status)}>${tl(`status.${status}` as ListingsTextKey)}</option>`,
  );
  const filtered = isFiltered(filter);
  return html`<form class="filters" method="get" action="${OVERVIEW_PATH}" role="search" aria-label="${tl('filter.title')}">
<p><label for="filter-channel">${tl('filter.channel')}</label>
<select id="filter-channel" name="channel"><option value="">${tl('filter.any_channel')}</option>${channels}</select></p>
<p><label for="filter-status">${tl('filter.status')}</label>
<select id="filter-status" name="status"><option value="">${tl('filter.any_status')}</option>${statuses}<option value="none"${selected(filter.status === 'none')}>${tl('filter.no_report')}</option></select></p>
<p class="check"><input type="checkbox" id="filter-withdrawn" name="withdrawn" value="1"${filter.withdrawn ? raw(' checked') : ''}><label for="filter-withdrawn">${tl('filter.withdrawn')}</label></p>
<p><button type="submit">${tl('filter.apply')}</button>${filtered ? html` <a href="${OVERVIEW_PATH}">${tl('filter.clear')}</a>` : ''}</p>
</form>`;
}

/** How many properties pass the filter, and which of them this page shows. */
export function showing(overview: DashboardOverview, tl: ListingsTranslate): SafeHtml {
  const { page, total, pageSize } = overview;
  const from = (page - 1) * pageSize + 1;
  const to = Math.min(total, page * pageSize);
  return html`<p class="count" data-total="${String(total)}">${tl('overview.showing', { count: total, from, to })}</p>`;
}

/** Links to the pages before and after under the same filter, and where the host is among them. */
export function pager(overview: DashboardOverview, tl: ListingsTranslate): SafeHtml {
  const { page, pages, filter } = overview;
  const previous =
    page > 1 ? html`<a rel="prev" href="${overviewHref(filter, page - 1)}">${tl('pager.previous')}</a>` : '';
  const next = page < pages ? html`<a rel="next" href="${overviewHref(filter, page + 1)}">${tl('pager.next')}</a>` : '';
  return html`<nav class="pager" aria-label="${tl('pager.label')}">${previous}
<span aria-current="page">${tl('pager.position', { page, pages })}</span>
${next}</nav>`;
}
