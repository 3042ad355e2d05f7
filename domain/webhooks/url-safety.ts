import { classifyIp, parseIpv4 } from './ip-address.ts';
import type { AddressClass } from './ip-address.ts';

export { classifyIp, isAllowedAddress, isPublicAddress } from './ip-address.ts';
export type { AddressClass, AddressRefusal } from './ip-address.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type WebhookUrlCheck = { ok: true; url: URL; host: string } | { ok: false; reason: string };

// Names that never resolve to a public host: RFC 6761/6762/8375 special use, ICANN's `.internal`,
// and suffixes routers and intranets hand out that are not delegated in the public DNS.
const LOCAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'home.arpa',
  'localdomain',
  'lan',
  'home',
  'corp',
  'intranet',
  'test',
  'invalid',
  'example',
  'onion',
  'arpa',
];

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
// An `@` anywhere before the authority ends, even with empty user and password (`https://@host`).
const AUTHORITY_WITH_USERINFO = /^[a-z][a-z0-9+.-]*:[\\/]*[^\\/?#]*@/i;

const refuse = (reason: string): WebhookUrlCheck => ({ ok: false, reason });

/**
 * Registration-time check. DNS answers are not looked at here: a public name can still resolve to a
 * private address, so delivery must also check the connected address with `isAllowedAddress`.
 * On success `url` is the normalised URL (store `url.href`) and `host` the name or address to
 * connect to, without brackets or trailing dot.
 */
export function checkWebhookUrl(raw: string, options: { allowLoopback: boolean }): WebhookUrlCheck {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return refuse(`URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('not a valid absolute URL');
  }
  if (url.protocol !== 'https:') return refuse('scheme must be https');
  if (url.username !== '' || url.password !== '' || AUTHORITY_WITH_USERINFO.test(raw.trim())) {
    return refuse('URL must not contain user information');
  }
  if (url.href.includes('#')) return refuse('URL must not contain a fragment');
  if (url.port !== '' && !options.allowLoopback) return refuse('port must be 443');

  if (url.hostname.startsWith('[')) {
    const host = url.hostname.slice(1, -1);
    return addressVerdict(classifyIp(host), url, host, options);
  }
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  if (host === '') return refuse('URL must name a host');
  if (parseIpv4(host) !== null) return addressVerdict(classifyIp(host), url, host, options);

  const labels = host.split('.');
  if (host.length > 253 || !labels.every((label) => LABEL.test(label)))
    return refuse('host is not a valid domain name');
  const isLoopbackName = host === 'localhost' || host.endsWith('.localhost');
  if (isLoopbackName && options.allowLoopback) return accept(url, host);
  const localSuffix = LOCAL_SUFFIXES.find((suffix) => host === suffix || host.endsWith(`.${suffix}`));
  if (localSuffix !== undefined) return refuse(`host is a local name (.${localSuffix})`);
  if (labels.length < 2) return refuse('host must be a fully qualified domain name');
  return accept(url, host);
}

function addressVerdict(
  addressClass: AddressClass,
  url: URL,
  host: string,
  options: { allowLoopback: boolean },
): WebhookUrlCheck {
  if (addressClass === 'public' || (options.allowLoopback && addressClass === 'loopback')) return accept(url, host);
  return refuse(`address is not public (${addressClass})`);
}

function accept(url: URL, host: string): WebhookUrlCheck {
  // A trailing dot would leak into SNI and the Host header; the name is the same without it.
  if (url.hostname !== host && !url.hostname.startsWith('[')) url.hostname = host;
  return { ok: true, url, host };
}
