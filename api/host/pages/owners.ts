import { hostOverview, type HostOwner } from '../../../services/host-sessions.ts';
import { fill, html } from '../html.ts';
import { formatInstant } from '../formats.ts';
import type { Translate } from '../i18n.ts';
import { csrfField } from '../layout.ts';
import { definePage } from '../page.ts';
import { HOST_BASE } from '../paths.ts';
import type { HostLocale } from '../../../domain/host-locale.ts';

/** Where a Connect button posts: the hand-off for one owner on one channel. */
export function connectPath(ownerRef: string, channel: string): string {
  return `${HOST_BASE}/owners/${encodeURIComponent(ownerRef)}/channels/${encodeURIComponent(channel)}/connect`;
}

/**
 * An owner's section: each channel with the owner's connection there, its time on the clock of
 * the owner's properties with the zone named (as the listings write a property's times), and a
 * Connect button unless the channel is suspended.
 */
function ownerSection(owner: HostOwner, index: number, ctx: { t: Translate; locale: HostLocale; csrfToken: string }) {
  const { t, locale } = ctx;
  const heading = `owner-${index}`;
  if (owner.channels.length === 0) {
    return html`<section class="card" aria-labelledby="${heading}"><h2 id="${heading}">${owner.displayName}</h2><p>${t('owners.no_channels')}</p></section>`;
  }
  const rows = owner.channels.map((channel) => {
    const connection = channel.connectedAt
      ? html`<span class="state-on">${fill(t('owners.connected'), { when: html`<time datetime="${channel.connectedAt}">${formatInstant(locale, channel.connectedAt, owner.timezone)}</time>` })}</span>`
      : html`<span class="state-off">${t('owners.not_connected')}</span>`;
    // A suspended channel could not confirm a connection: its row says so instead of offering one.
    const state = channel.suspended
      ? html`${connection} <span class="state-off">${t('owners.channel_suspended')}</span>`
      : connection;
    const action = channel.suspended
      ? html`<td class="action"></td>`
      : html`<td class="action"><form method="post" action="${connectPath(owner.ref, channel.name)}">${csrfField(ctx.csrfToken)}<button type="submit">${t(channel.connectedAt ? 'owners.connect_again' : 'owners.connect')}<span class="visually-hidden"> (${owner.displayName}, ${channel.name})</span></button></form></td>`;
    return html`<tr data-channel="${channel.name}" data-state="${channel.connectedAt ? 'connected' : 'not-connected'}"${channel.suspended ? html` data-channel-suspended` : ''}>
<th scope="row">${channel.name}</th><td>${state}</td>${action}</tr>`;
  });
  return html`<section class="card" aria-labelledby="${heading}">
<h2 id="${heading}">${owner.displayName}</h2>
<table><thead><tr><th scope="col">${t('owners.channel')}</th><th scope="col">${t('owners.state')}</th><th scope="col" class="action"><span class="visually-hidden">${t('owners.action')}</span></th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
}

/** The first page: the organization's owners, each channel their properties go to, and its connection. */
export const ownersPage = definePage({
  method: 'get',
  path: '/',
  handler: async ({ deps, session, t, locale }) => {
    const owners = await hostOverview(deps, session);
    const sections = owners.map((owner, index) =>
      ownerSection(owner, index, { t, locale, csrfToken: session.csrfToken }),
    );
    return {
      kind: 'page',
      title: t('owners.title'),
      body: html`<h1>${t('owners.title')}</h1><p>${t('owners.intro')}</p>${owners.length === 0 ? html`<p>${t('owners.none')}</p>` : sections}`,
    };
  },
});
