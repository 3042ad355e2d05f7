import { HOST_LOCALES, type HostLocale } from '../../domain/host-locale.ts';
import { html, raw, type SafeHtml } from './html.ts';
import { LOCALE_NAMES, type Translate } from './i18n.ts';
import { listingsTexts } from './listings-texts.ts';
import { HOST_BASE } from './paths.ts';

/**
 * The frame of every host page: language, skip link, banner with the organization, navigation
 * (pages, language switch, sign out), the page's main content and a footer. One inline style
 * block, allowed by the page's CSP nonce; nothing is loaded from anywhere. Every page fits a
 * phone's width (390 CSS px): a word longer than the line (an address, a reference, a name) breaks
 * rather than widening the page.
 */

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#f6f7f9;overflow-wrap:anywhere}
a{color:#0b57d0}
:focus-visible{outline:3px solid #e8710a;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem}
.skip:focus{left:.5rem}
header{background:#123c69;color:#fff;padding:.75rem 1rem}
header p{margin:0}
.brand{font-weight:700;font-size:1.1rem}
nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.5rem 1rem;background:#e3e9f1}
nav form{display:flex;flex-wrap:wrap;gap:.25rem;align-items:center;margin:0}
main{max-width:52rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:0 0 .5rem}
section.card{background:#fff;border:1px solid #d0d7e2;border-radius:.5rem;padding:1rem;margin:0 0 1rem}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.5rem .25rem;border-top:1px solid #e3e9f1;vertical-align:middle}
th{font-weight:600}
button{font:inherit;max-width:100%;white-space:normal;padding:.5rem 1rem;border-radius:.375rem;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer;min-height:2.75rem}
button.quiet{background:#fff;color:#0b57d0}
select{font:inherit;max-width:100%;padding:.4rem;min-height:2.75rem}
.state-on{color:#146c2e;font-weight:600}
.state-off{color:#5f6368}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
footer{max-width:52rem;margin:0 auto;padding:1rem;color:#5f6368;font-size:.875rem}
@media (max-width:36rem){table,tbody,tr,th,td{display:block}thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}tr{border-top:1px solid #e3e9f1;padding:.5rem 0}th,td{border-top:0;padding:.125rem 0}td.action{padding-top:.5rem}}
`;

/** The host pages' Content-Security-Policy: the nonce'd style, forms to this origin, nothing else. */
export function hostPagePolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

/** A hidden field carrying the session's synchronizer token: every POST form includes it. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

export interface LayoutInput {
  locale: HostLocale;
  t: Translate;
  nonce: string;
  title: string;
  body: SafeHtml;
  /** Present on pages of a live session: the banner names the organization and the navigation shows. */
  session?: { organizationName: string; csrfToken: string };
  /** Where the language switch brings the host back to. */
  path?: string;
}

function navigation(input: LayoutInput & { session: NonNullable<LayoutInput['session']> }): SafeHtml {
  const { t, locale, session } = input;
  const options = HOST_LOCALES.map(
    (code) =>
      html`<option value="${code}" lang="${code}"${code === locale ? raw(' selected') : ''}>${LOCALE_NAMES[code]}</option>`,
  );
  return html`<nav aria-label="${t('layout.nav')}">
<a href="${HOST_BASE}/">${t('layout.owners')}</a>
<a href="${HOST_BASE}/listings">${listingsTexts(locale)('nav')}</a>
<form method="post" action="${HOST_BASE}/locale">${csrfField(session.csrfToken)}<input type="hidden" name="return_to" value="${input.path ?? `${HOST_BASE}/`}">
<label for="locale-select">${t('layout.language')}</label>
<select id="locale-select" name="locale">${options}</select>
<button type="submit" class="quiet">${t('layout.change_language')}</button></form>
<form method="post" action="${HOST_BASE}/logout">${csrfField(session.csrfToken)}<button type="submit" class="quiet">${t('layout.sign_out')}</button></form>
</nav>`;
}

export function renderLayout(input: LayoutInput): string {
  const { t } = input;
  const page = html`<!doctype html>
<html lang="${input.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${input.title} · ${t('app.name')}</title>
<style nonce="${input.nonce}">${raw(STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">${t('layout.skip')}</a>
<header>
<p class="brand">${t('app.name')}</p>
${input.session ? html`<p>${t('layout.organization', { name: input.session.organizationName })}</p>` : ''}
</header>
${input.session ? navigation({ ...input, session: input.session }) : ''}
<main id="main" tabindex="-1">
${input.body}
</main>
<footer><p>${t('layout.footer')}</p></footer>
</body>
</html>`;
  return page.value;
}
