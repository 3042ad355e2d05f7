import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  browserHandOff,
  CookieJar,
  HandOffError,
  handOffPage,
  pageForm,
} from '../../clients/channel-kit/src/browser-hand-off.ts';
import { onCleanup } from '../support/cleanup.ts';

/**
 * `channel-kit certify`'s hand-off as a browser makes it, against a channel's pages on a local
 * HTTP server: the token POSTed as a form, the answer page's single form submitted with its
 * fields and the cookies set on the way.
 */

interface Seen {
  method: string;
  url: string;
  cookie: string | undefined;
  body: string;
}

let base: string;
const seen: Seen[] = [];

const page = (inner: string) => `<!doctype html><html><body>${inner}</body></html>`;

function channelPages(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = new URL(req.url!, base);
  const form = new URLSearchParams(body);
  const html = (status: number, inner: string, headers: Record<string, string | string[]> = {}) => {
    res.writeHead(status, { 'content-type': 'text/html', ...headers });
    res.end(page(inner));
  };
  switch (`${req.method} ${url.pathname}`) {
    // The app's shape: a cookie on the confirmation's path and the same id in a hidden input.
    case 'POST /connect':
      if (form.get('token') !== 'tok.en') return html(400, '<p>No token.</p>');
      return html(
        200,
        '<!-- <form action="/not-this"></form> --><h1>Connect Ana?</h1>' +
          '<form method="post" action="confirm"><input type="hidden" name="pending" value="p&amp;1">' +
          "<input type=hidden name='lang' value=ro><input type=checkbox name=remember>" +
          '<input name="ignored" disabled value="x"><textarea name="note">a &amp; b</textarea>' +
          '<button type="submit" name="choice" value="yes">Confirm</button><button name="choice" value="no">No</button></form>',
        {
          'set-cookie': [
            'pending=p1; Path=/; HttpOnly; Expires=Wed, 21 Oct 2099 07:28:00 GMT',
            'other=elsewhere; Path=/admin',
          ],
        },
      );
    case 'POST /confirm':
      return req.headers.cookie === 'pending=p1'
        ? html(200, `<p>Connected: ${[...form].map(([k, v]) => `${k}=${v}`).join(' ')}</p>`)
        : html(403, '<p>Another browser.</p>');
    // A channel that signs the host in first: 303 to its page, whose form is a GET.
    case 'POST /redirected':
      return html(303, '', { location: '/sign-in?next=1', 'set-cookie': 'session=s1; Path=/' });
    case 'GET /sign-in':
      return html(
        200,
        '<form action="/signed-in#top"><input type="hidden" name="who" value="host"><input type="submit"></form>',
      );
    case 'GET /signed-in':
      return req.headers.cookie === 'session=s1'
        ? html(200, `<p>In as ${url.searchParams.get('who')}</p>`)
        : html(401, '');
    case 'POST /two-forms':
      return html(200, '<form action="/a"></form><form action="/b"></form>');
    default:
      return html(404, '<p>Not here.</p>');
  }
}

beforeAll(async () => {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, cookie: req.headers.cookie, body });
      channelPages(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

describe('browserHandOff', () => {
  test('POSTs the token as a form, then submits the page’s form with its fields and the cookie it set', async () => {
    const from = seen.length;
    const result = await browserHandOff({ token: 'tok.en', redirectUrl: `${base}/connect` });
    expect(result.status).toBe(200);
    expect(result.text).toBe('Connected: pending=p&1 lang=ro note=a & b choice=yes');
    expect(result.steps).toEqual([
      { method: 'POST', url: `${base}/connect`, status: 200 },
      { method: 'POST', url: `${base}/confirm`, status: 200 },
    ]);
    expect(seen.slice(from)).toEqual([
      { method: 'POST', url: '/connect', cookie: undefined, body: 'token=tok.en' },
      {
        method: 'POST',
        url: '/confirm',
        cookie: 'pending=p1',
        body: 'pending=p%261&lang=ro&note=a+%26+b&choice=yes',
      },
    ]);
  });

  test('follows a 303 to a GET, keeps its cookie, and submits a GET form as a query', async () => {
    const result = await browserHandOff({ token: 'tok.en', redirectUrl: `${base}/redirected` });
    expect(result.text).toBe('In as host');
    expect(
      result.steps.map(
        (step) => `${step.method} ${new URL(step.url).pathname}${new URL(step.url).search} ${step.status}`,
      ),
    ).toEqual(['POST /redirected 303', 'GET /sign-in?next=1 200', 'GET /signed-in?who=host 200']);
  });

  test('a refused token is a HandOffError with the status and the page’s text', async () => {
    const error = await browserHandOff({ token: 'other', redirectUrl: `${base}/connect` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HandOffError);
    expect((error as HandOffError).message).toBe('the redirect URL answered 400: No token.');
    expect((error as HandOffError).steps).toEqual([{ method: 'POST', url: `${base}/connect`, status: 400 }]);
  });

  test('a page with two forms is not guessed at', async () => {
    await expect(browserHandOff({ token: 'tok.en', redirectUrl: `${base}/two-forms` })).rejects.toThrow(
      "the redirect URL's page: the page has 2 forms; one was expected",
    );
  });
});

describe('pageForm and CookieJar', () => {
  test('a form without method or action is a GET to the page itself', () => {
    expect(pageForm('<form><input name="q" value="1"></form>')).toEqual({
      action: '',
      method: 'GET',
      fields: [['q', '1']],
    });
  });

  test('a checked box is sent, with "on" when it has no value', () => {
    expect(pageForm('<form method=POST><input type=checkbox name=a checked></form>').fields).toEqual([['a', 'on']]);
  });

  test('cookies go back only to their host and below their path, and Max-Age=0 removes one', () => {
    const jar = new CookieJar();
    const at = new URL('https://channel.example/owner-connect');
    const headers = new Headers();
    headers.append('set-cookie', 'a=1; Path=/owner-connect');
    headers.append('set-cookie', 'b=2; Path=/');
    jar.take(at, new Response(null, { headers }));
    expect(jar.header(new URL('https://channel.example/owner-connect/confirm'))).toBe('a=1; b=2');
    expect(jar.header(new URL('https://channel.example/owner-connected'))).toBe('b=2');
    expect(jar.header(new URL('https://other.example/owner-connect'))).toBeUndefined();
    jar.take(at, new Response(null, { headers: { 'set-cookie': 'b=; Path=/; Max-Age=0' } }));
    expect(jar.header(new URL('https://channel.example/'))).toBeUndefined();
  });
});

test('handOffPage: the token and URL are escaped into a form that submits itself', () => {
  const html = handOffPage({ token: 'a"b<c', redirectUrl: 'https://channel.example/connect?x=1&y=2' });
  expect(html).toContain('<form method="post" action="https://channel.example/connect?x=1&amp;y=2">');
  expect(html).toContain('<input type="hidden" name="token" value="a&quot;b&lt;c">');
  expect(pageForm(html)).toEqual({
    action: 'https://channel.example/connect?x=1&y=2',
    method: 'POST',
    fields: [['token', 'a"b<c']],
  });
});
