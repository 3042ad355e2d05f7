import type { DeliveryError } from '../domain/webhooks/delivery-errors.ts';

// What a webhook POST's outcome is made of (infra/webhook-http.ts): the verdict on a status line,
// the failure of a connection or a TLS handshake in one line, and the excerpt of a body.

/** Why an attempt failed: the reason a channel may be shown, and the operator's one-line detail. */
export interface Failure {
  reason: DeliveryError;
  detail: string;
}

const EXCERPT_CHARS = 512;
// 512 UTF-16 units never need more than 4 bytes each; decoding a prefix keeps the work bounded.
const EXCERPT_DECODE_BYTES = EXCERPT_CHARS * 4 + 4;
const MAX_ERROR_CHARS = 500;

/** A 2xx is delivered (null); a 3xx is a redirect never followed; anything else is its status. */
export function statusVerdict(statusCode: number | null): Failure | null {
  if (statusCode === null) return { reason: 'invalid_response', detail: 'no status' };
  if (statusCode >= 200 && statusCode < 300) return null;
  if (statusCode >= 300 && statusCode < 400) return { reason: 'redirect_not_followed', detail: `status ${statusCode}` };
  return { reason: 'http_status', detail: `status ${statusCode}` };
}

/**
 * A request's error, once it connected (`tcpConnected`) and finished its handshake (`secured`) or
 * not: a malformed answer, a TLS failure, or a connection that failed.
 */
export function socketFailure(
  err: NodeJS.ErrnoException,
  progress: { tcpConnected: boolean; secured: boolean },
): Failure {
  const code = typeof err.code === 'string' ? err.code : undefined;
  if (code?.startsWith('HPE_')) return { reason: 'invalid_response', detail: code };
  if ((progress.tcpConnected && !progress.secured) || isTlsCode(code)) {
    const message = oneLine(err.message);
    return { reason: 'tls_failure', detail: code === undefined || message === code ? message : `${code}: ${message}` };
  }
  return { reason: 'connection_failed', detail: code ?? oneLine(err.message) };
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SIGNATURE|ISSUER|HOSTNAME_MISMATCH/;

function isTlsCode(code: string | undefined): boolean {
  return code !== undefined && TLS_CODE.test(code);
}

/** The first 512 characters of what was read (UTF-8, invalid bytes and NUL replaced), null when none. */
export function excerptOf(chunks: Buffer[]): string | null {
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

export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** One line of at most 500 characters, for the operator's log. */
export function clip(text: string): string {
  const line = oneLine(text);
  return line.length > MAX_ERROR_CHARS ? `${line.slice(0, MAX_ERROR_CHARS - 1)}…` : line;
}
