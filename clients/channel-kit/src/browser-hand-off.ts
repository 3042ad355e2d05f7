/**
 * The owner-connect hand-off as a host's browser makes it, for `channel-kit certify`: the service's
 * hand-off page POSTs the form field `token` to the channel's redirect URL (docs/contract.md#owner-connect);
 * the channel answers a page that names the owner with one form, and the host presses Confirm.
 * Here the form is submitted as the browser would: its action (relative to the page), its method,
 * its named inputs, and the cookies the channel set on the way (redirects followed, up to ten).
 * One form, no script: a channel whose confirmation needs a script is confirmed by a person with
 * `--no-browser` instead.
 */

type Fetch = (input: Request) => Promise<Response>;

export interface HandOffStep {
  method: string;
  url: string;
  status: number;
}

export interface HandOffResult {
  /** Every request made, in order: the token's POST, redirects, the form's submission. */
  steps: HandOffStep[];
  /** The status of the page the confirmation ended on. */
  status: number;
  /** That page's text (its tags removed), shortened: what the host would read. */
  text: string;
}

/** The hand-off could not be made as a browser makes it: why, and the requests made until then. */
export class HandOffError extends Error {
  override readonly name = 'HandOffError';
  readonly steps: HandOffStep[];
  constructor(message: string, steps: HandOffStep[]) {
    super(message);
    this.steps = steps;
  }
}

export interface PageForm {
  action: string;
  method: 'GET' | 'POST';
  fields: [string, string][];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Character references as HTML writes them in attribute values and text. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The attributes of one start tag's inside (`name="x" value='y' hidden`), names lower-cased. */
function attributes(inside: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, name, double, single, bare] of inside.matchAll(
    /([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g,
  )) {
    const key = name!.toLowerCase();
    if (!found.has(key)) found.set(key, decodeEntities(double ?? single ?? bare ?? ''));
  }
  return found;
}

/**
 * The page's single form: its action and method, and what pressing its (first) submit button
 * sends: every named `input` but unchecked boxes and other buttons, `textarea`s, and that button's
 * name and value when it has one. A page with no form or more than one is refused.
 */
export function pageForm(html: string): PageForm {
  const body = html.replace(/<!--[\s\S]*?-->/g, '');
  const forms = [...body.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form\s*>/gi)];
  if (forms.length !== 1) throw new Error(`the page has ${forms.length} forms; one was expected`);
  const [, formTag, inner] = forms[0]!;
  const form = attributes(formTag!);
  const fields: [string, string][] = [];
  let pressed = false;
  // A button's or text area's content ends at its own end tag; an input has none.
  for (const [, paired, pairedInside, text, input] of inner!.matchAll(
    /<(button|textarea)\b([^>]*)>([\s\S]*?)<\/\1\s*>|<input\b([^>]*)>/gi,
  )) {
    const tag = paired ?? 'input';
    const inside = paired ? pairedInside : input;
    const attrs = attributes(inside!);
    const name = attrs.get('name');
    const kind = tag.toLowerCase() === 'input' ? (attrs.get('type') ?? 'text').toLowerCase() : tag.toLowerCase();
    if (attrs.has('disabled')) continue;
    if (kind === 'textarea') {
      if (name) fields.push([name, decodeEntities(text ?? '')]);
      continue;
    }
    const submit =
      kind === 'submit' ||
      kind === 'image' ||
      (kind === 'button' && (attrs.get('type') ?? 'submit').toLowerCase() === 'submit');
    if (submit) {
      if (!pressed && name) fields.push([name, attrs.get('value') ?? '']);
      pressed = true;
      continue;
    }
    if (!name || kind === 'button' || kind === 'reset' || kind === 'file') continue;
    if ((kind === 'checkbox' || kind === 'radio') && !attrs.has('checked')) continue;
    fields.push([name, attrs.get('value') ?? (kind === 'checkbox' || kind === 'radio' ? 'on' : '')]);
  }
  return {
    action: form.get('action') ?? '',
    method: (form.get('method') ?? 'get').toLowerCase() === 'post' ? 'POST' : 'GET',
    fields,
  };
}

interface Cookie {
  name: string;
  value: string;
  host: string;
  path: string;
}

/** Cookies as a browser keeps them for one host: by name and path, sent on paths below theirs. */
export class CookieJar {
  readonly #cookies: Cookie[] = [];

  take(url: URL, response: Response): void {
    for (const line of setCookieLines(response.headers)) {
      const [pair = '', ...attrs] = line.split(';');
      const at = pair.indexOf('=');
      if (at < 1) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const pathAttr = attrs.map((part) => part.trim()).find((part) => /^path=/i.test(part));
      const path = pathAttr?.slice(5) || url.pathname.replace(/\/[^/]*$/, '') || '/';
      const expired = attrs.some((part) => /^\s*max-age\s*=\s*(0|-\d+)\s*$/i.test(part));
      const index = this.#cookies.findIndex((c) => c.name === name && c.path === path && c.host === url.host);
      if (index >= 0) this.#cookies.splice(index, 1);
      if (!expired) this.#cookies.push({ name, value, host: url.host, path });
    }
  }

  header(url: URL): string | undefined {
    const matching = this.#cookies.filter(
      (c) =>
        c.host === url.host &&
        (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
    );
    return matching.length === 0 ? undefined : matching.map((c) => `${c.name}=${c.value}`).join('; ');
  }
}

/** Each `Set-Cookie` of an answer, also when a transport joined them with commas into one header. */
function setCookieLines(headers: Headers): string[] {
  const lines = headers.getSetCookie();
  // A comma inside one is an `Expires` date's; between two, the next one's `name=` follows it.
  return lines.flatMap((line) => line.split(/,\s*(?=[^;,=\s]+=)/));
}

/** A page's text as read: tags, scripts and spaces collapsed, at most 300 characters. */
export function pageText(html: string): string {
  const text = decodeEntities(
    html
      .replace(/<(script|style|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

const MAX_REDIRECTS = 10;

/** One navigation: the request, then its redirects (303 and 301/302 of a POST become GETs), cookies kept. */
async function navigate(
  fetch: Fetch,
  jar: CookieJar,
  steps: HandOffStep[],
  start: { url: URL; method: string; form?: URLSearchParams },
): Promise<{ url: URL; response: Response }> {
  let { url, method, form } = start;
  for (let hops = 0; ; hops += 1) {
    const headers = new Headers({ accept: 'text/html,application/xhtml+xml', 'user-agent': 'channel-kit certify' });
    const cookies = jar.header(url);
    if (cookies) headers.set('cookie', cookies);
    if (form) headers.set('content-type', 'application/x-www-form-urlencoded');
    const response = await fetch(
      new Request(url, { method, headers, redirect: 'manual', ...(form ? { body: form.toString() } : {}) }),
    );
    steps.push({ method, url: url.href, status: response.status });
    jar.take(url, response);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || response.status === 304 || !location)
      return { url, response };
    await response.body?.cancel().catch(() => undefined);
    if (hops >= MAX_REDIRECTS) throw new HandOffError(`more than ${MAX_REDIRECTS} redirects`, steps);
    url = new URL(location, url);
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      form = undefined;
    }
  }
}

/**
 * POSTs `token` to `redirectUrl` as the service's hand-off page does, then submits the form of the
 * page the channel answers, as pressing its button does. Throws a `HandOffError` when a page is
 * refused (status 400 or more) or the answer holds no single form.
 */
export async function browserHandOff(input: {
  token: string;
  redirectUrl: string;
  fetch?: Fetch;
}): Promise<HandOffResult> {
  const fetch = input.fetch ?? ((request: Request) => globalThis.fetch(request));
  const jar = new CookieJar();
  const steps: HandOffStep[] = [];
  const landing = await navigate(fetch, jar, steps, {
    url: new URL(input.redirectUrl),
    method: 'POST',
    form: new URLSearchParams({ token: input.token }),
  });
  const html = await landing.response.text();
  if (landing.response.status >= 400)
    throw new HandOffError(`the redirect URL answered ${landing.response.status}: ${pageText(html)}`, steps);
  let form: PageForm;
  try {
    form = pageForm(html);
  } catch (error) {
    throw new HandOffError(`the redirect URL's page: ${(error as Error).message}: ${pageText(html)}`, steps);
  }
  const action = new URL(form.action, landing.url);
  action.hash = '';
  const fields = new URLSearchParams(form.fields);
  if (form.method === 'GET') action.search = fields.toString();
  const confirmed = await navigate(fetch, jar, steps, {
    url: action,
    method: form.method,
    ...(form.method === 'POST' ? { form: fields } : {}),
  });
  const text = pageText(await confirmed.response.text());
  if (confirmed.response.status >= 400)
    throw new HandOffError(`the confirmation answered ${confirmed.response.status}: ${text}`, steps);
  return { steps, status: confirmed.response.status, text };
}

/**
 * For a person to open instead (`--no-browser`): a page that POSTs `token` to `redirectUrl` on
 * opening, as the service's hand-off page does, with a button when scripts are off.
 */
export function handOffPage(input: { token: string; redirectUrl: string }): string {
  const attr = (value: string) =>
    value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Owner connect hand-off</title></head>' +
    `<body><form method="post" action="${attr(input.redirectUrl)}">` +
    `<input type="hidden" name="token" value="${attr(input.token)}">` +
    '<p>channel-kit certify: this page hands the owner-connect token to your redirect URL.</p>' +
    '<button type="submit">Continue</button></form>' +
    '<script>document.forms[0].submit()</script></body></html>'
  );
}
