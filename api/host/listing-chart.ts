import type { HostLocale } from '../../domain/host-locale.ts';
import type { ChartSeries } from '../../services/host-dashboard.ts';
import { html, type SafeHtml } from './html.ts';
import { formatDate, formatNumber } from './formats.ts';
import type { ListingsTranslate } from './listings-texts.ts';

/**
 * One channel's 30 days as an inline SVG: views as bars above, clicks to booking as bars below,
 * each panel on its own scale and named in text (colour is never the only cue). The picture is
 * described by its title and a summary, and the same figures follow as a table.
 */

const WIDTH = 640;
const PANEL = 90;
const LEFT = 8;
const TOP = 22;
const GAP = 34;
const HEIGHT = TOP + PANEL + GAP + PANEL + 24;

function bars(
  series: ChartSeries,
  pick: 'views' | 'clicks_to_booking',
  top: number,
  colour: string,
): { marks: SafeHtml[]; max: number } {
  const values = series.days.map((day) => day[pick]);
  const max = Math.max(1, ...values.map((v) => v ?? 0));
  const step = (WIDTH - 2 * LEFT) / series.days.length;
  const width = Math.max(2, step * 0.7);
  const marks = series.days.flatMap((day, i) => {
    const value = day[pick];
    if (value === null) return [];
    const height = Math.max(value > 0 ? 1 : 0, (value / max) * PANEL);
    const x = (LEFT + i * step + (step - width) / 2).toFixed(1);
    const y = (top + PANEL - height).toFixed(1);
    return [
      html`<rect data-series="${pick === 'views' ? 'views' : 'clicks'}" data-date="${day.date}" x="${x}" y="${y}" width="${width.toFixed(1)}" height="${height.toFixed(1)}" fill="${colour}"></rect>`,
    ];
  });
  return { marks, max };
}

export function channelChart(
  series: ChartSeries,
  index: number,
  ctx: { locale: HostLocale; tl: ListingsTranslate },
): SafeHtml {
  const { locale, tl } = ctx;
  const reported = series.days.filter((day) => day.views !== null);
  if (reported.length === 0)
    return html`<p class="empty" data-chart-empty="${series.channel}">${tl('chart.none', { channel: series.channel })}</p>`;
  const first = series.days[0]!.date;
  const last = series.days.at(-1)!.date;
  const views = bars(series, 'views', TOP, '#1a73e8');
  const clicks = bars(series, 'clicks_to_booking', TOP + PANEL + GAP, '#b3261e');
  const id = `chart-${index}`;
  const totalViews = reported.reduce((sum, day) => sum + (day.views ?? 0), 0);
  const totalClicks = reported.reduce((sum, day) => sum + (day.clicks_to_booking ?? 0), 0);
  const label = tl('chart.label', {
    channel: series.channel,
    from: formatDate(locale, first),
    to: formatDate(locale, last),
  });
  const summary = tl('chart.summary', {
    views: tl('chart.count_views', { count: totalViews }),
    clicks: tl('chart.count_clicks', { count: totalClicks }),
    days: tl('chart.count_days', { count: reported.length }),
    max: views.max,
  });
  const figure = (value: number | null) => (value === null ? tl('chart.no_report') : formatNumber(locale, value));
  const rows = series.days.map(
    (day) =>
      html`<tr><th scope="row"><time datetime="${day.date}">${formatDate(locale, day.date)}</time></th><td>${figure(day.views)}</td><td>${figure(day.clicks_to_booking)}</td></tr>`,
  );
  return html`<figure class="chart" data-chart="${series.channel}">
<svg role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${String(WIDTH)} ${String(HEIGHT)}" width="100%" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${label}</title>
<desc id="${id}-desc">${summary}</desc>
<text x="${String(LEFT)}" y="14" font-size="13" fill="#1b1b1b">${tl('chart.views_axis', { max: views.max })}</text>
<line x1="${String(LEFT)}" x2="${String(WIDTH - LEFT)}" y1="${String(TOP + PANEL)}" y2="${String(TOP + PANEL)}" stroke="#5f6368" stroke-width="1"></line>
${views.marks}
<text x="${String(LEFT)}" y="${String(TOP + PANEL + GAP - 8)}" font-size="13" fill="#1b1b1b">${tl('chart.clicks_axis', { max: clicks.max })}</text>
<line x1="${String(LEFT)}" x2="${String(WIDTH - LEFT)}" y1="${String(TOP + 2 * PANEL + GAP)}" y2="${String(TOP + 2 * PANEL + GAP)}" stroke="#5f6368" stroke-width="1"></line>
${clicks.marks}
<text x="${String(LEFT)}" y="${String(HEIGHT - 6)}" font-size="12" fill="#3c4043">${formatDate(locale, first)}</text>
<text x="${String(WIDTH - LEFT)}" y="${String(HEIGHT - 6)}" font-size="12" fill="#3c4043" text-anchor="end">${formatDate(locale, last)}</text>
</svg>
<figcaption>${summary}</figcaption>
</figure>
<details><summary>${tl('chart.table')} (${series.channel})</summary>
<table><caption class="visually-hidden">${label}</caption><thead><tr><th scope="col">${tl('chart.date')}</th><th scope="col">${tl('chart.views')}</th><th scope="col">${tl('chart.clicks')}</th></tr></thead>
<tbody>${rows}</tbody></table></details>`;
}
