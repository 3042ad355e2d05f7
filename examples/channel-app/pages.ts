/**
 * The reference app's three pages, in the host's language (texts.ts). Plain HTML, every value
 * escaped; no script, no style.
 */
import { escapeHtml, formatInstant, text, type Language, type TextKey } from './texts.ts';

type RefusalKey = Extract<TextKey, `refused.${string}`>;

function page(language: Language, title: string, body: string): string {
  return (
    `<!doctype html><html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`
  );
}

const strong = (value: string) => ({ html: `<strong>${escapeHtml(value)}</strong>` });

/** The developer's page at `/`: English, it is not shown to hosts. */
export function homePage(channel: string): string {
  return page(
    'en',
    escapeHtml(`${channel}: reference channel app`),
    '<p>This app receives owner-connect hand-offs at <code>POST /owner-connect</code>.</p>',
  );
}

/** The contract's rule: never bind a token without the signed-in host's confirmation, naming the owner. */
export function confirmPage(input: {
  language: Language;
  channel: string;
  account: string;
  displayName: string;
  pendingId: string;
}): string {
  const { language } = input;
  return page(
    language,
    text(language, 'confirm.title', { name: input.displayName }),
    `<p id="owner">${text(language, 'confirm.owner', { name: strong(input.displayName) })}</p>` +
      `<p>${text(language, 'confirm.question', { name: input.displayName, channel: input.channel, account: strong(input.account) })}</p>` +
      '<form method="post" action="/owner-connect/confirm">' +
      `<input type="hidden" name="pending" value="${escapeHtml(input.pendingId)}">` +
      `<button type="submit">${text(language, 'confirm.button')}</button></form>` +
      `<p>${text(language, 'confirm.not_you')}</p>`,
  );
}

/** `connectedAt` is written for people in the host's language and `timeZone`; the instant itself is in `datetime`. */
export function confirmedPage(input: {
  language: Language;
  channel: string;
  displayName: string;
  connectedAt: string;
  timeZone?: string;
}): string {
  const { language } = input;
  const when = {
    html: `<time datetime="${escapeHtml(input.connectedAt)}">${escapeHtml(formatInstant(language, input.connectedAt, input.timeZone))}</time>`,
  };
  return page(
    language,
    text(language, 'connected.title'),
    `<p id="result" data-connected-at="${escapeHtml(input.connectedAt)}">` +
      `${text(language, 'connected.body', { name: input.displayName, channel: input.channel, when })}</p>`,
  );
}

/** A refusal: `reason` is one of the `refused.*` texts. */
export function refusedPage(language: Language, reason: RefusalKey, values: Record<string, string> = {}): string {
  return page(language, text(language, 'refused.title'), `<p id="result">${text(language, reason, values)}</p>`);
}
