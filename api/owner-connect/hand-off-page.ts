import { pagePolicy } from '../middleware/security-headers.ts';
import { escapeHtml } from '../host/html.ts';
import { resolveHostLocale, type HostLocale } from '../../domain/host-locale.ts';

/**
 * The page that hands the host's browser to the channel (docs/contract.md#owner-connect,
 * rule 1): an HTML form POSTed to the channel's redirect URL with the one field `token`. A
 * script allowed by the page's nonce submits it at once; with scripts off the host presses the
 * button. Text in the host pages' languages (English, Romanian, Italian, Spanish), English for any other.
 */

const TEXT: Record<HostLocale, { title: string; body: string; button: string }> = {
  en: {
    title: 'Connecting your listings',
    body: 'You are being sent to the channel to connect your listings to your account there. If nothing happens, press the button.',
    button: 'Continue to the channel',
  },
  ro: {
    title: 'Conectarea anunțurilor',
    body: 'Sunteți trimis către canal pentru a vă conecta anunțurile la contul dumneavoastră de acolo. Dacă nu se întâmplă nimic, apăsați butonul.',
    button: 'Continuați către canal',
  },
  it: {
    title: 'Collegamento dei Suoi annunci',
    body: 'La stiamo indirizzando al canale per collegare i Suoi annunci al Suo account. Se non succede nulla, prema il pulsante.',
    button: 'Continua verso il canale',
  },
  es: {
    title: 'Conexión de sus anuncios',
    body: 'Le estamos enviando al canal para conectar sus anuncios con su cuenta en él. Si no ocurre nada, pulse el botón.',
    button: 'Continuar al canal',
  },
};

export function renderHandOffPage(input: {
  redirectUrl: string;
  token: string;
  locale?: string;
  nonce: string;
}): string {
  const lang = resolveHostLocale(input.locale);
  const text = TEXT[lang];
  return (
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escapeHtml(text.title)}</title>` +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"></head><body>' +
    `<h1>${escapeHtml(text.title)}</h1><p>${escapeHtml(text.body)}</p>` +
    `<form id="hand-off" method="post" action="${escapeHtml(input.redirectUrl)}">` +
    `<input type="hidden" name="token" value="${escapeHtml(input.token)}">` +
    `<button type="submit">${escapeHtml(text.button)}</button></form>` +
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
