import { classifyIp, parseIpv4 } from './ip-address.ts';
import type { WebhookReach } from './ip-address.ts';

export { classifyIp, isAllowedAddress, isPublicAddress } from './ip-address.ts';
export type { AddressClass, AddressRefusal, WebhookReach } from './ip-address.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type WebhookUrlCheck = { ok: true; url: URL; host: string; reach: WebhookReach } | { ok: false; reason: string };

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

const refuse = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/**
 * Registration-time check. DNS answers are not looked at here: a public name can still resolve to a
 * private address, so delivery must also check the connected address with `isAllowedAddress`
 * against `reach`. On success `url` is the normalised URL (store `url.href`) and `host` the name or
 * address to connect to, without brackets or trailing dot.
 *
 * `allowLoopback` (development and tests) admits targets on this machine and nothing else: a
 * loopback address or a `localhost` name, on any port (a developer's receiver rarely listens on
 * 443), reaching loopback only. Every other URL is judged as without it: port 443, public.
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
  const target = hostVerdict(url, options);
  if (!target.ok) return target;
  // The URL parser drops an explicit :443, so any port left is another one.
  if (url.port !== '' && target.reach !== 'loopback') return refuse('port must be 443');
  // A trailing dot would leak into SNI and the Host header; the name is the same without it.
  if (url.hostname !== target.host && !url.hostname.startsWith('[')) url.hostname = target.host;
  return { ok: true, url, host: target.host, reach: target.reach };
}

type HostVerdict = { ok: true; host: string; reach: WebhookReach } | { ok: false; reason: string };

function hostVerdict(url: URL, options: { allowLoopback: boolean }): HostVerdict {
  if (url.hostname.startsWith('[')) {
    const host = url.hostname.slice(1, -1);
    return addressVerdict(host, options);
  }
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  if (host === '') return refuse('URL must name a host');
  if (parseIpv4(host) !== null) return addressVerdict(host, options);

  const labels = host.split('.');
  if (host.length > 253 || !labels.every((label) => LABEL.test(label)))
    return refuse('host is not a valid domain name');
  // RFC 6761: `localhost` and the names under it are loopback, and the delivery's resolver answers
  // them 127.0.0.1 without asking the DNS (infra/webhook-dns.ts).
  const isLoopbackName = host === 'localhost' || host.endsWith('.localhost');
  if (isLoopbackName && options.allowLoopback) return { ok: true, host, reach: 'loopback' };
  const localSuffix = LOCAL_SUFFIXES.find((suffix) => host === suffix || host.endsWith(`.${suffix}`));
  if (localSuffix !== undefined) return refuse(`host is a local name (.${localSuffix})`);
  if (labels.length < 2) return refuse('host must be a fully qualified domain name');
  return { ok: true, host, reach: 'public' };
}

function addressVerdict(host: string, options: { allowLoopback: boolean }): HostVerdict {
  const addressClass = classifyIp(host);
  if (addressClass === 'public') return { ok: true, host, reach: 'public' };
  if (addressClass === 'loopback' && options.allowLoopback) return { ok: true, host, reach: 'loopback' };
  return refuse(`address is not public (${addressClass})`);
}
