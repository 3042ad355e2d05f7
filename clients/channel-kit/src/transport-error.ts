/**
 * A request that got no HTTP answer, told by its kind: what a receiver check reports instead of
 * a status, never as a refusal. Both shapes of error are read: `fetch`'s (`fetch failed`, the
 * socket's error in `cause`) and `node:https`'s (the socket's error itself).
 */

export type TransportKind = 'refused' | 'closed' | 'timeout' | 'tls' | 'dns' | 'other';

export interface TransportError {
  kind: TransportKind;
  /** The socket's error code (`ECONNREFUSED`), when it has one. */
  code: string | null;
  /** In words, with the code: `connection refused (ECONNREFUSED)`. */
  text: string;
}

interface ErrorLike {
  name?: string;
  code?: string;
  message?: string;
  cause?: ErrorLike;
  errors?: ErrorLike[];
}

/** `error`, thrown by a request that got no answer, as a transport error (a request aborted is one that timed out). */
export function transportError(error: unknown): TransportError {
  const thrown = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as ErrorLike;
  if (thrown.name === 'TimeoutError' || thrown.cause?.name === 'TimeoutError' || thrown.name === 'AbortError') {
    return { kind: 'timeout', code: null, text: 'timed out' };
  }
  const socket = thrown.cause ?? thrown;
  // Several addresses tried for one name (IPv6, then IPv4) fail together as an AggregateError.
  const code = socket.code ?? socket.errors?.[0]?.code ?? null;
  const message = socket.message || socket.errors?.[0]?.message || thrown.message || 'no answer';
  const known = (kind: TransportKind, words: string) => ({ kind, code, text: `${words} (${code})` });
  if (code === 'ECONNREFUSED') return known('refused', 'connection refused');
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
    return known('closed', 'the connection was closed without an answer');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return known('dns', 'the host name does not resolve');
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return known('timeout', 'the connection timed out');
  if (code !== null && /CERT|SSL|TLS|EPROTO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) {
    return known('tls', 'the TLS handshake failed');
  }
  return { kind: 'other', code, text: code ? `${message} (${code})` : message };
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
