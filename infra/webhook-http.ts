import { promises as dnsPromises } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction, Socket } from 'node:net';
import tls from 'node:tls';
import type { DeliveryError } from '../domain/webhooks/delivery-errors.ts';
import { RECEIVER_ANSWER_MS } from '../domain/webhooks/sending.ts';
import { checkWebhookUrl, isAllowedAddress, type WebhookReach } from '../domain/webhooks/url-safety.ts';
import { clip, excerptOf, oneLine, socketFailure, statusVerdict, type Failure } from './webhook-answer.ts';
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

export const DEFAULT_WEBHOOK_TIMEOUT_MS = RECEIVER_ANSWER_MS;
export const USER_AGENT = 'distribution-service-webhooks/1';
/** Response bytes read at most; reading stops there and the connection is closed. */
const MAX_READ_BYTES = 64 * 1024;
/** Headers the transport owns; a caller setting them is a programming error. */
const TRANSPORT_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
/** Each DNS query waits at most this long (or a quarter of the budget), and is tried twice. */
const DNS_TRY_MS = 2_000;
const DNS_TRIES = 2;

const REFUSED_CODE = 'ERR_WEBHOOK_ADDRESS_NOT_ALLOWED';
/**
 * Connects every attempt afresh (`keepAlive: false`: no socket outlives its request), and keeps
 * the TLS sessions of the last targets, by host, port and TLS options, so the next attempt to one
 * resumes its session instead of repeating the full handshake (certificate sent and verified).
 * A resumed session is the same server's: its key is the session's, whatever address the name
 * resolves to now, and the address connected to is checked all the same. One agent per set of
 * trusted certificates (`ca`): a session verified under one trust is never resumed under another.
 */
const sessionAgents = new Map<string, HttpsAgent>();
function sessionsTrusting(ca: string | undefined): HttpsAgent {
  const key = ca ?? '';
  let agent = sessionAgents.get(key);
  if (!agent) {
    agent = new HttpsAgent({ keepAlive: false, maxCachedSessions: 1000 });
    sessionAgents.set(key, agent);
  }
  return agent;
}

/** One POST, checked and ready to send: what every step of its attempt reads. */
interface WebhookRequest {
  target: URL;
  host: string;
  /** The addresses the target may reach: public ones, or loopback ones for a loopback target. */
  reach: WebhookReach;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  options: WebhookTransportOptions;
  /** `performance.now()` at the call: the answer's `durationMs` counts from it. */
  started: number;
}

/** What one attempt has seen so far; its request's events write it, `answerOf` reads it. */
interface Attempt {
  settled: boolean;
  /** An address refused, by the guarded lookup or on connect: what a request error then means. */
  refusal: Failure | null;
  /** The name did not resolve: what a request error then means. */
  dnsFailure: Failure | null;
  tcpConnected: boolean;
  secured: boolean;
  statusCode: number | null;
  chunks: Buffer[];
  received: number;
}

/**
 * POSTs one webhook. Never throws or rejects for network outcomes; rejects only on programming errors
 * (bad options, headers the transport owns).
 *
 * Safety, checked again at every call (no connection reuse; a TLS session may be resumed: `sessionsTrusting`):
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
  const checked = checkWebhookUrl(url, { allowLoopback: options.allowLocal });
  if (!checked.ok) return answerOf(started, null, { reason: 'url_not_allowed', detail: checked.reason });
  const { url: target, host, reach } = checked;
  // Literals are never looked up, so this is their connect-time check.
  if (isIP(host) !== 0 && !isAllowedAddress(host, reach))
    return answerOf(started, null, { reason: 'address_not_allowed', detail: host });
  return send({ target, host, reach, headers: requestHeaders, body, timeoutMs, options, started });
}

/** Sends the request and answers once: at its outcome, or at the time limit. */
function send(request: WebhookRequest): Promise<WebhookResponse> {
  return new Promise<WebhookResponse>((resolve) => {
    const attempt: Attempt = {
      settled: false,
      refusal: null,
      dnsFailure: null,
      tcpConnected: false,
      secured: false,
      statusCode: null,
      chunks: [],
      received: 0,
    };
    const resolver = request.options.lookup ? null : nameResolver(request);
    const timer = setTimeout(() => finish(timeoutVerdict(attempt, request.timeoutMs)), request.timeoutMs);
    const finish = (failure: Failure | null) => {
      if (attempt.settled) return;
      attempt.settled = true;
      clearTimeout(timer);
      resolver?.cancel();
      req.destroy();
      resolve(answerOf(request.started, attempt, failure));
    };
    const resolveName = request.options.lookup ?? caresLookup(resolver!, request.reach === 'loopback');
    const req = open(request, guardedLookup(attempt, request.reach, resolveName));
    req.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        attempt.tcpConnected = true;
        verifyPeer(attempt, request.reach, socket, finish);
      });
      socket.once('secureConnect', () => {
        attempt.secured = true;
        verifyPeer(attempt, request.reach, socket, finish);
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish(attempt.refusal ?? attempt.dnsFailure ?? socketFailure(err, attempt)),
    );
    req.on('response', (res: IncomingMessage) => readAnswer(attempt, res, finish));
    req.end(request.body);
  });
}

function open(request: WebhookRequest, lookup: LookupFunction): ClientRequest {
  const { target, host, options } = request;
  return httpsRequest({
    protocol: 'https:',
    hostname: host,
    port: target.port === '' ? 443 : Number(target.port),
    path: `${target.pathname}${target.search}`,
    method: 'POST',
    headers: request.headers,
    agent: sessionsTrusting(options.ca),
    lookup,
    rejectUnauthorized: true,
    ...(options.ca !== undefined ? { secureContext: contextTrusting(options.ca) } : {}),
  });
}

/** c-ares, with a short timeout per query (a quarter of the budget at most) and the configured servers. */
function nameResolver({ timeoutMs, options }: WebhookRequest): dnsPromises.Resolver {
  const tryMs = Math.max(1, Math.min(DNS_TRY_MS, Math.floor(timeoutMs / 4)));
  const resolver = new dnsPromises.Resolver({ timeout: tryMs, tries: DNS_TRIES });
  if (options.dnsServers) resolver.setServers([...options.dnsServers]);
  return resolver;
}

/**
 * The lookup the request connects through: every address of the name resolved, and none used
 * unless all may be reached. A failure or refusal is written on the attempt for its request error.
 */
function guardedLookup(attempt: Attempt, reach: WebhookReach, resolveName: LookupFunction): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    let answered = false;
    const onAnswer = (err: NodeJS.ErrnoException | null, answer: string | LookupAddress[], family?: number) => {
      if (answered) return;
      answered = true;
      if (err) {
        attempt.dnsFailure = { reason: 'dns_failure', detail: `${err.code ?? oneLine(err.message)} for ${hostname}` };
        callback(err, []);
        return;
      }
      const addresses = normaliseAnswer(answer, family);
      if (addresses.length === 0) {
        attempt.dnsFailure = { reason: 'dns_failure', detail: `ENOTFOUND for ${hostname}` };
        callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
        return;
      }
      const bad = addresses.find((entry) => !isAllowedAddress(entry.address, reach));
      if (bad !== undefined) {
        attempt.refusal = { reason: 'address_not_allowed', detail: `${hostname} resolved to ${bad.address}` };
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
}

/** The address actually connected to must be one the target may reach; otherwise the attempt ends refused. */
function verifyPeer(attempt: Attempt, reach: WebhookReach, socket: Socket, finish: (failure: Failure) => void): void {
  const address = socket.remoteAddress;
  if (address !== undefined && isAllowedAddress(address, reach)) return;
  attempt.refusal = { reason: 'address_not_allowed', detail: `connected to ${address ?? 'an unknown peer'}` };
  finish(attempt.refusal);
}

/** The status line decides; the body, read up to 64 KiB, only gives the excerpt, however it ends. */
function readAnswer(attempt: Attempt, res: IncomingMessage, finish: (failure: Failure | null) => void): void {
  attempt.statusCode = res.statusCode ?? null;
  const verdict = statusVerdict(attempt.statusCode);
  res.on('data', (chunk: Buffer) => {
    if (attempt.settled) return;
    const room = MAX_READ_BYTES - attempt.received;
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
    attempt.chunks.push(piece);
    attempt.received += piece.length;
    if (attempt.received >= MAX_READ_BYTES) finish(verdict);
  });
  res.on('end', () => finish(verdict));
  // A body cut short after the status line only shortens the excerpt.
  res.on('error', () => finish(verdict));
  res.on('close', () => finish(verdict));
}

/** At the time limit: a timeout before the status line, else the status line's verdict. */
function timeoutVerdict(attempt: Attempt, timeoutMs: number): Failure | null {
  if (attempt.statusCode !== null) return statusVerdict(attempt.statusCode);
  return {
    reason: 'timeout',
    detail: `no answer after ${timeoutMs} ms${attempt.tcpConnected ? '' : ' (not connected)'}`,
  };
}

/** The answer: what the attempt saw (none when refused before sending) and its failure, timed from the call. */
function answerOf(started: number, attempt: Attempt | null, failure: Failure | null): WebhookResponse {
  return {
    statusCode: attempt?.statusCode ?? null,
    durationMs: Math.max(0, Math.round(performance.now() - started)),
    error: failure?.reason ?? null,
    detail: failure ? clip(failure.detail) : null,
    excerpt: attempt ? excerptOf(attempt.chunks) : null,
  };
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
