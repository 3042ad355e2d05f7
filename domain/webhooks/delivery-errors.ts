import { RECEIVER_ANSWER_MS } from './sending.ts';

/**
 * Why an attempt failed, as a channel is told it: a fixed set of reasons without addresses, names
 * or TLS details, so a channel cannot use its endpoint to probe the service's network or DNS. The
 * detail stays in the operator's log, keyed by delivery id.
 */
export const DELIVERY_ERRORS = {
  url_not_allowed: 'the URL no longer passes the registration check',
  dns_failure: 'the host name did not resolve (no answer, no address, or the resolver failed)',
  address_not_allowed: 'the host name resolved to, or the connection reached, an address that is not public',
  connection_failed: 'no TCP connection could be made, or it was closed before an answer (refused, reset, unreachable)',
  timeout: `no answer within ${RECEIVER_ANSWER_MS / 1000} seconds, name resolution included`,
  tls_failure: 'the TLS handshake failed (certificate, host name or protocol)',
  invalid_response: 'the answer was not valid HTTP',
  redirect_not_followed: 'the answer was a redirect (3xx); redirects are never followed',
  http_status: 'the answer had a status other than 2xx; `status_code` carries it',
  no_secret: 'the endpoint has no signing secret',
} as const;

export type DeliveryError = keyof typeof DELIVERY_ERRORS;

export function isDeliveryError(value: string): value is DeliveryError {
  return Object.hasOwn(DELIVERY_ERRORS, value);
}

/** Names the transport wrote before the reasons were fixed, read as the reason they meant. */
const EARLIER_NAMES: Readonly<Record<string, DeliveryError>> = {
  dns_failed: 'dns_failure',
  tls_failed: 'tls_failure',
  status: 'http_status',
};

/**
 * The reason to show for a stored attempt error. Attempts recorded before the reasons were fixed
 * carried a detail after the name (`dns_failed: ENOTFOUND`, `address_not_allowed: 10.0.0.1`,
 * `status 500`); only their reason is shown.
 */
export function publicDeliveryError(stored: string | null): DeliveryError | null {
  if (stored === null) return null;
  const name = /^[a-z_]+/.exec(stored)?.[0] ?? '';
  if (isDeliveryError(name)) return name;
  return Object.hasOwn(EARLIER_NAMES, name) ? EARLIER_NAMES[name]! : 'connection_failed';
}

/** For the operation descriptions: each reason and what it means. */
export function deliveryErrorTable(): string {
  return Object.entries(DELIVERY_ERRORS)
    .map(([reason, meaning]) => `\`${reason}\`: ${meaning}`)
    .join('; ');
}
