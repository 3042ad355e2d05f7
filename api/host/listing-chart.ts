import type { HostLocale } from '../../domain/host-locale.ts';
import type { ChartSeries } from '../../services/host-dashboard.ts';
import { html, type SafeHtml } from './html.ts';
import { formatDate, formatNumber } from './formats.ts';
import type { ListingsTranslate } from './listings-texts.ts';

/**
 * One channel's 30 days: views as bars above, clicks to booking as bars below, each panel an
 * inline SVG on its own scale and named in text (colour is never the only cue). The labels are
 * HTML, not SVG text: an SVG scales with the width it is given, so text inside it would shrink
 * to a few pixels on a phone, while HTML text keeps the page's size. The picture is one image
 * named by its label and described by its summary, and the same figures follow as a table.
 */

const WIDTH = 640;
const PANEL = 90;
const LEFT = 8;

/** The chart's rules, added to the page's style block by the page that draws charts. */
export const CHART_STYLE = `
figure.chart{margin:.5rem 0}
.chart-label{margin:.25rem 0;font-size:.875rem;line-height:1.3}
.chart-dates{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 1rem;color:#3c4043}
.chart-panel{display:block;width:100%;height:5.625rem}
`;

function panel(
  series: ChartSeries,
  pick: 'views' | 'clicks_to_booking',
  colour: string,
): { svg: SafeHtml; max: number } {
  const values = series.days.map((day) => day[pick]);
  const max = Math.max(1, ...values.map((v) => v ?? 0));
  const step = (WIDTH - 2 * LEFT) / series.days.length;
  const width = Math.max(2, step * 0.7);
  const marks = series.days.flatMap((day, i) => {
    const value = day[pick];
    if (value === null) return [];
    const height = Math.max(value > 0 ? 1 : 0, (value / max) * PANEL);
    const x = (LEFT + i * step + (step - width) / 2).toFixed(1);
    const y = (PANEL - height).toFixed(1);
    return [
      html`<rect data-series="${pick === 'views' ? 'views' : 'clicks'}" data-date="${day.date}" x="${x}" y="${y}" width="${width.toFixed(1)}" height="${height.toFixed(1)}" fill="${colour}"></rect>`,
    ];
  });
  // Stretched to the width it is given (the bars are only rectangles); the baseline keeps 1 px.
  const svg = html`<svg class="chart-panel" aria-hidden="true" focusable="false" viewBox="0 0 ${String(WIDTH)} ${String(PANEL)}" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">
${marks}
<line x1="${String(LEFT)}" x2="${String(WIDTH - LEFT)}" y1="${String(PANEL)}" y2="${String(PANEL)}" stroke="#5f6368" stroke-width="1" vector-effect="non-scaling-stroke"></line>
</svg>`;
  return { svg, max };
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
  const views = panel(series, 'views', '#1a73e8');
  const clicks = panel(series, 'clicks_to_booking', '#b3261e');
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
<div role="img" aria-labelledby="${id}-title" aria-describedby="${id}-desc">
<p id="${id}-title" class="visually-hidden">${label}</p>
<p class="chart-label">${tl('chart.views_axis', { max: views.max })}</p>
${views.svg}
<p class="chart-label">${tl('chart.clicks_axis', { max: clicks.max })}</p>
${clicks.svg}
<p class="chart-label chart-dates"><span>${formatDate(locale, first)}</span><span>${formatDate(locale, last)}</span></p>
</div>
<figcaption id="${id}-desc">${summary}</figcaption>
</figure>
<details><summary>${tl('chart.table')} (${series.channel})</summary>
<table><caption class="visually-hidden">${label}</caption><thead><tr><th scope="col">${tl('chart.date')}</th><th scope="col">${tl('chart.views')}</th><th scope="col">${tl('chart.clicks')}</th></tr></thead>
<tbody>${rows}</tbody></table></details>`;
}
