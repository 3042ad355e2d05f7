import { html, type SafeHtml } from './html.ts';
import type { Translate } from './i18n.ts';
import { csrfField } from './layout.ts';
import { HOST_BASE } from './paths.ts';

/**
 * The question a browser signed in to one organization gets when it opens another's link:
 * continue (a form POST carrying the link's token and the current session's CSRF token, which
 * spends the link and ends the current session) or stay (back to the current pages; the link
 * stays unused until it expires).
 */
export function switchOrganizationPage(input: {
  t: Translate;
  token: string;
  csrfToken: string;
  current: string;
  next: string;
}): { title: string; body: SafeHtml } {
  const { t, current, next } = input;
  const title = t('switch.title');
  return {
    title,
    body: html`<h1>${title}</h1>
<p>${t('switch.body', { current, next })}</p>
<form method="post" action="${HOST_BASE}/open">${csrfField(input.csrfToken)}<input type="hidden" name="token" value="${input.token}">
<button type="submit">${t('switch.continue', { next })}</button></form>
<p><a href="${HOST_BASE}/">${t('switch.stay', { current })}</a></p>`,
  };
}
