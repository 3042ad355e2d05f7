import { promises as dnsPromises } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction, Socket } from 'node:net';
import tls from 'node:tls';
import type { DeliveryError } from '../domain/webhooks/delivery-errors.ts';
import { checkWebhookUrl, isAllowedAddress } from '../domain/webhooks/url-safety.ts';
import { caresLookup, normaliseAnswer } from './webhook-dns.ts';

export interface WebhookTransportOptions {
  /** Development and tests only: also targets on this machine (loopback, `localhost`), on any port. */
  allowLocal: boolean;
  /** Extra PEM certificate(s) to trust besides the system store (a local test receiver's self-signed cert). */
  ca?: string;
  /** Total time for name resolution + connect + response headers + reading the excerpt. Default 10 000 ms (the contract's answer time). */
  timeoutMs?: number;
  /** Name servers (`ip` or `ip:port`) asked instead of the system's; tests point this at a resolver that never answers. */
  dnsServers?: readonly string[];
  /** Replaces name resolution altogether (tests). */
  lookup?: LookupFunction;
}

export interface WebhookResponse {
  /** Null when no HTTP answer was received. */
  statusCode: number | null;
  /** Integer milliseconds from the call to the outcome, name resolution included. */
  durationMs: number;
  /** Null only for a 2xx; otherwise one of the reasons a channel may be shown (domain/webhooks/delivery-errors.ts). */
  error: DeliveryError | null;
  /**
   * For the operator's log only, never for a channel: what exactly happened (the address refused,
   * the resolver's or socket's error code, the TLS message), one line, at most 500 characters.
   */
  detail: string | null;
  /** First ≤ 512 characters of the response body (UTF-8, invalid bytes replaced), null when none. */
  excerpt: string | null;
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'distribution-service-webhooks/1';
/** Response bytes read at most; reading stops there and the connection is closed. */
const MAX_READ_BYTES = 64 * 1024;
const EXCERPT_CHARS = 512;
// 512 UTF-16 units never need more than 4 bytes each; decoding a prefix keeps the work bounded.
const EXCERPT_DECODE_BYTES = EXCERPT_CHARS * 4 + 4;
const MAX_ERROR_CHARS = 500;
/** Headers the transport owns; a caller setting them is a programming error. */
const TRANSPORT_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
/** Each DNS query waits at most this long (or a quarter of the budget), and is tried twice. */
const DNS_TRY_MS = 2_000;
const DNS_TRIES = 2;

const REFUSED_CODE = 'ERR_WEBHOOK_ADDRESS_NOT_ALLOWED';

interface Failure {
  reason: DeliveryError;
  detail: string;
}

/**
 * POSTs one webhook. Never throws or rejects for network outcomes; rejects only on programming errors
 * (bad options, headers the transport owns).
 *
 * Safety, checked again at every call (no connection reuse: `agent: false`):
 * - the URL must pass `checkWebhookUrl` (https, no userinfo, port 443, no local names), which with
 *   `allowLocal` admits loopback targets too, on any port, and says which addresses the target may
 *   reach: public ones, or loopback ones for a loopback target, never both;
 * - an IP-literal host must be of that kind, since no lookup happens for it;
 * - a name is resolved (A and AAAA) and refused when ANY answer is not of that kind — a name mixing
 *   public and private answers is treated as hostile (DNS rebinding / fallback to the private
 *   answer), and nothing is connected to;
 * - the address actually connected to (`socket.remoteAddress`) is checked again on `connect` and
 *   `secureConnect`, and the socket destroyed when it is not allowed;
 * - redirects are never followed (3xx → `redirect_not_followed`);
 * - certificates and host names are verified (`rejectUnauthorized: true`); `ca` only adds trust.
 *
 * Names are resolved by c-ares (`dns.Resolver`), not `dns.lookup`: lookups run on libuv's small
 * thread pool, where a few names whose resolver never answers hold every other lookup of the
 * process (file system work included) for as long as the system resolver waits. Each query has its
 * own short timeout, and the time limit runs from the call, so it covers resolution too; when it
 * fires, the pending queries are cancelled. (`localhost` names, admitted only with `allowLocal`,
 * answer 127.0.0.1 without a query.)
 *
 * The outcome is decided by the status line: once the headers arrived within the time limit, a body
 * that is slow, broken or longer than 64 KiB only shortens the excerpt.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: WebhookTransportOptions,
): Promise<WebhookResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError('timeoutMs must be a positive number');
  const requestHeaders = buildHeaders(headers, body);
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  const failed = (reason: DeliveryError, detail: string): WebhookResponse => ({
    statusCode: null,
    durationMs: elapsed(),
    error: reason,
    detail: clip(detail),
    excerpt: null,
  });

  const checked = checkWebhookUrl(url, { allowLoopback: options.allowLocal });
  if (!checked.ok) return failed('url_not_allowed', checked.reason);
  const { url: target, host, reach } = checked;
  // Literals are never looked up, so this is their connect-time check.
  if (isIP(host) !== 0 && !isAllowedAddress(host, reach)) return failed('address_not_allowed', host);

  return new Promise<WebhookResponse>((resolve) => {
    let settled = false;
    let refusal: Failure | null = null;
    let dnsFailure: Failure | null = null;
    let tcpConnected = false;
    let secured = false;
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let received = 0;

    const dnsTryMs = Math.max(1, Math.min(DNS_TRY_MS, Math.floor(timeoutMs / 4)));
    const resolver = options.lookup ? null : new dnsPromises.Resolver({ timeout: dnsTryMs, tries: DNS_TRIES });
    if (resolver && options.dnsServers) resolver.setServers([...options.dnsServers]);

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);

    const finish = (failure: Failure | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolver?.cancel();
      req.destroy();
      resolve({
        statusCode,
        durationMs: elapsed(),
        error: failure?.reason ?? null,
        detail: failure ? clip(failure.detail) : null,
        excerpt: excerptOf(chunks),
      });
    };
    controller.signal.addEventListener(
      'abort',
      () =>
        finish(
          statusCode === null
            ? { reason: 'timeout', detail: `no answer after ${timeoutMs} ms${tcpConnected ? '' : ' (not connected)'}` }
            : statusVerdict(statusCode),
        ),
      { once: true },
    );

    const resolveName: LookupFunction = options.lookup ?? caresLookup(resolver!, reach === 'loopback');
    const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
      let answered = false;
      const onAnswer = (err: NodeJS.ErrnoException | null, answer: string | LookupAddress[], family?: number) => {
        if (answered) return;
        answered = true;
        if (err) {
          dnsFailure = { reason: 'dns_failure', detail: `${err.code ?? oneLine(err.message)} for ${hostname}` };
          callback(err, []);
          return;
        }
        const addresses = normaliseAnswer(answer, family);
        if (addresses.length === 0) {
          dnsFailure = { reason: 'dns_failure', detail: `ENOTFOUND for ${hostname}` };
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
          return;
        }
        const bad = addresses.find((entry) => !isAllowedAddress(entry.address, reach));
        if (bad !== undefined) {
          refusal = { reason: 'address_not_allowed', detail: `${hostname} resolved to ${bad.address}` };
          callback(Object.assign(new Error('address not allowed'), { code: REFUSED_CODE }), []);
          return;
        }
        const first = addresses[0]!;
        if (lookupOptions.all === true) callback(null, addresses);
        else callback(null, first.address, first.family);
      };
      try {
        resolveName(hostname, { ...lookupOptions, all: true }, onAnswer);
      } catch (err) {
        onAnswer(Object.assign(err instanceof Error ? err : new Error(String(err)), { code: 'ELOOKUP' }), []);
      }
    };

    const verifyPeer = (socket: Socket) => {
      const address = socket.remoteAddress;
      if (address !== undefined && isAllowedAddress(address, reach)) return;
      refusal = { reason: 'address_not_allowed', detail: `connected to ${address ?? 'an unknown peer'}` };
      finish(refusal);
    };

    const describe = (err: NodeJS.ErrnoException): Failure => {
      if (refusal !== null) return refusal;
      if (dnsFailure !== null) return dnsFailure;
      const code = typeof err.code === 'string' ? err.code : undefined;
      if (code?.startsWith('HPE_')) return { reason: 'invalid_response', detail: code };
      if ((tcpConnected && !secured) || isTlsCode(code)) {
        const message = oneLine(err.message);
        return {
          reason: 'tls_failure',
          detail: code === undefined || message === code ? message : `${code}: ${message}`,
        };
      }
      return { reason: 'connection_failed', detail: code ?? oneLine(err.message) };
    };

    const req = request({
      protocol: 'https:',
      hostname: host,
      port: target.port === '' ? 443 : Number(target.port),
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers: requestHeaders,
      agent: false,
      lookup: guardedLookup,
      rejectUnauthorized: true,
      ...(options.ca !== undefined ? { secureContext: contextTrusting(options.ca) } : {}),
    });

    req.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        tcpConnected = true;
        verifyPeer(socket);
      });
      socket.once('secureConnect', () => {
        secured = true;
        verifyPeer(socket);
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish(describe(err)));
    req.on('response', (res: IncomingMessage) => {
      statusCode = res.statusCode ?? null;
      const verdict = statusVerdict(statusCode);
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = MAX_READ_BYTES - received;
        const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
        chunks.push(piece);
        received += piece.length;
        if (received >= MAX_READ_BYTES) finish(verdict);
      });
      res.on('end', () => finish(verdict));
      // A body cut short after the status line only shortens the excerpt.
      res.on('error', () => finish(verdict));
      res.on('close', () => finish(verdict));
    });
    req.end(body);
  });
}

/** Not-found answers for one family are no error when the other family has addresses. */
function statusVerdict(statusCode: number | null): Failure | null {
  if (statusCode === null) return { reason: 'invalid_response', detail: 'no status' };
  if (statusCode >= 200 && statusCode < 300) return null;
  if (statusCode >= 300 && statusCode < 400) return { reason: 'redirect_not_followed', detail: `status ${statusCode}` };
  return { reason: 'http_status', detail: `status ${statusCode}` };
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SIGNATURE|ISSUER|HOSTNAME_MISMATCH/;

function isTlsCode(code: string | undefined): boolean {
  return code !== undefined && TLS_CODE.test(code);
}

let defaultCas: string[] | undefined;

/** The trust store Node would use by default (bundled, plus system/extra when configured). */
function defaultCertificates(): string[] {
  defaultCas ??=
    typeof tls.getCACertificates === 'function' ? tls.getCACertificates('default') : [...tls.rootCertificates];
  return defaultCas;
}

const contexts = new Map<string, tls.SecureContext>();

/**
 * A TLS context trusting the default store and `ca`, built once per CA: building one from the
 * whole root store costs milliseconds of CPU, far more than the POST it would serve.
 */
function contextTrusting(ca: string): tls.SecureContext {
  let context = contexts.get(ca);
  if (!context) {
    context = tls.createSecureContext({ ca: [...defaultCertificates(), ca] });
    contexts.set(ca, context);
  }
  return context;
}

function excerptOf(chunks: Buffer[]): string | null {
  const bytes = Buffer.concat(chunks);
  if (bytes.length === 0) return null;
  const head = bytes.subarray(0, EXCERPT_DECODE_BYTES);
  // NUL cannot be stored in a PostgreSQL text column; it becomes the replacement character too.
  let text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(head).replaceAll('\u0000', '\uFFFD');
  if (text.length > EXCERPT_CHARS) {
    text = text.slice(0, EXCERPT_CHARS);
    const last = text.charCodeAt(EXCERPT_CHARS - 1);
    if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  }
  return text === '' ? null : text;
}

function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

function clip(text: string): string {
  const line = oneLine(text);
  return line.length > MAX_ERROR_CHARS ? `${line.slice(0, MAX_ERROR_CHARS - 1)}…` : line;
}

function buildHeaders(given: Record<string, string>, body: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  for (const [name, value] of Object.entries(given)) {
    const key = name.toLowerCase();
    if (TRANSPORT_HEADERS.has(key)) throw new TypeError(`header ${key} is set by the webhook transport`);
    headers[key] = value;
  }
  headers['content-length'] = String(Buffer.byteLength(body, 'utf8'));
  return headers;
}
