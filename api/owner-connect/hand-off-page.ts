import { pagePolicy } from '../middleware/security-headers.ts';
import { escapeHtml } from '../host/html.ts';
import { resolveHostLocale, type HostLocale } from '../../domain/host-locale.ts';

/**
 * The page that hands the host's browser to the channel (docs/contract.md#owner-connect,
 * rule 1): an HTML form POSTed to the channel's redirect URL with the one field `token`. A
 * script allowed by the page's nonce submits it at once; with scripts off the host presses the
 * button. It names the channel the host is sent to. Text in the host pages' languages (English,
 * Romanian, Italian, Spanish), English for any other; `{channel}` marks the channel's name.
 */

const TEXT: Record<HostLocale, { title: string; body: string; button: string }> = {
  en: {
    title: 'Connecting your listings to {channel}',
    body: 'You are being sent to {channel} to connect your listings to your account there. If nothing happens, press the button.',
    button: 'Continue to {channel}',
  },
  ro: {
    title: 'Conectarea anunțurilor la {channel}',
    body: 'Vă trimitem către {channel} pentru a vă conecta anunțurile la contul dumneavoastră de acolo. Dacă nu se întâmplă nimic, apăsați butonul.',
    button: 'Continuați către {channel}',
  },
  it: {
    title: 'Collegamento dei Suoi annunci a {channel}',
    body: 'La stiamo indirizzando a {channel} per collegare i Suoi annunci al Suo account. Se non succede nulla, prema il pulsante.',
    button: 'Continua verso {channel}',
  },
  es: {
    title: 'Conexión de sus anuncios con {channel}',
    body: 'Le estamos enviando a {channel} para conectar sus anuncios con su cuenta allí. Si no ocurre nada, pulse el botón.',
    button: 'Continuar a {channel}',
  },
};

/**
 * The channel's name as markup, escaped. A channel's name is lowercase letters, digits and
 * hyphens, and a browser breaks a line after a hyphen; a run longer than 12 characters gets a
 * break opportunity every 12, so even a 63-character name fits a phone (the page has no style
 * sheet to wrap it).
 */
function breakable(name: string): string {
  return name
    .split('-')
    .map((run) => (run.match(/.{1,12}/gsu) ?? []).map(escapeHtml).join('<wbr>'))
    .join('-');
}

/** A text with the channel named: `markup` for the page's body, plain (escaped) for its title. */
function named(text: string, channel: string, markup: boolean): string {
  return escapeHtml(text).replace('{channel}', () => (markup ? breakable(channel) : escapeHtml(channel)));
}

export function renderHandOffPage(input: {
  redirectUrl: string;
  token: string;
  /** The channel's name (`channel` of its record), shown to the host. */
  channel: string;
  locale?: string;
  nonce: string;
}): string {
  const lang = resolveHostLocale(input.locale);
  const text = TEXT[lang];
  return (
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${named(text.title, input.channel, false)}</title>` +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"></head><body>' +
    `<h1>${named(text.title, input.channel, true)}</h1><p>${named(text.body, input.channel, true)}</p>` +
    `<form id="hand-off" method="post" action="${escapeHtml(input.redirectUrl)}">` +
    `<input type="hidden" name="token" value="${escapeHtml(input.token)}">` +
    `<button type="submit">${named(text.button, input.channel, true)}</button></form>` +
    `<script nonce="${escapeHtml(input.nonce)}">document.getElementById('hand-off').submit();</script>` +
    '</body></html>'
  );
}

/**
 * The hand-off page's Content-Security-Policy: its one script by nonce, no other resource, and
 * form submission to the redirect URL's origin only (an origin, because a CSP source cannot carry
 * a query and a browser checks only the host on the channel's own redirects after the POST).
 */
export function handOffPagePolicy(input: { redirectUrl: string; nonce: string }): string {
  return pagePolicy(`default-src 'none'; script-src 'nonce-${input.nonce}'`, new URL(input.redirectUrl).origin);
}
