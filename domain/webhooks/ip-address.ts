// Address parsing and classification for webhook targets. Strict on purpose: anything that is not
// a canonical-looking IPv4 dotted quad or a well-formed IPv6 text is 'invalid', so callers fail closed.

export type Ipv4Refusal =
  | 'invalid'
  | 'this_network'
  | 'private'
  | 'cgnat'
  | 'loopback'
  | 'link_local'
  | 'ietf_protocol'
  | 'documentation'
  | '6to4_relay'
  | 'benchmarking'
  | 'multicast'
  | 'reserved'
  | 'broadcast';

export type AddressRefusal =
  | Ipv4Refusal
  | 'unspecified'
  | 'ipv4_compatible'
  | 'ipv4_translated'
  | `nat64_${Ipv4Refusal}`
  | 'nat64_local'
  | 'discard'
  | 'teredo'
  | '6to4'
  | 'unique_local'
  | 'site_local';

export type AddressClass = 'public' | AddressRefusal;

const DECIMAL_OCTET = /^(0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/** Dotted-quad decimal only; other spellings (octal, hex, short forms) are the URL parser's job. */
export function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!DECIMAL_OCTET.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/** Eight 16-bit groups; handles `::` compression and a dotted IPv4 tail. No zone id. */
export function parseIpv6(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const compressed = halves.length === 2;
  const head = splitGroups(halves[0] ?? '');
  const tail = compressed ? splitGroups(halves[1] ?? '') : [];
  if (head === null || tail === null) return null;
  const lastSide = compressed ? tail : head;
  const v4Groups: number[] = [];
  const lastPiece = lastSide.at(-1);
  if (lastPiece !== undefined && lastPiece.includes('.')) {
    const v4 = parseIpv4(lastPiece);
    if (v4 === null) return null;
    lastSide.pop();
    v4Groups.push(Math.floor(v4 / 0x10000), v4 % 0x10000);
  }
  if (![...head, ...tail].every((piece) => HEX_GROUP.test(piece))) return null;
  const zeros = 8 - head.length - tail.length - v4Groups.length;
  // `::` stands for at least one zero group; without it the explicit groups must be eight.
  if (compressed ? zeros < 1 : zeros !== 0) return null;
  const hex = (pieces: string[]) => pieces.map((piece) => parseInt(piece, 16));
  return [...hex(head), ...new Array<number>(zeros).fill(0), ...hex(tail), ...v4Groups];
}

function splitGroups(text: string): string[] | null {
  if (text === '') return [];
  const pieces = text.split(':');
  return pieces.some((piece) => piece === '') ? null : pieces;
}

const IPV4_RANGE_TEXT: ReadonlyArray<readonly [string, number, Ipv4Refusal]> = [
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'this_network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'ietf_protocol'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4_relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const IPV4_RANGES = IPV4_RANGE_TEXT.map(([base, bits, refusal]) => [parseIpv4(base) ?? NaN, bits, refusal] as const);

export function classifyIpv4(value: number): 'public' | Ipv4Refusal {
  for (const [base, bits, refusal] of IPV4_RANGES) {
    const size = 2 ** (32 - bits);
    if (Math.floor(value / size) === Math.floor(base / size)) return refusal;
  }
  return 'public';
}

function inPrefix(groups: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 16 * i; i += 1) {
    const remaining = bits - 16 * i;
    const mask = remaining >= 16 ? 0xffff : (0xffff << (16 - remaining)) & 0xffff;
    if (((groups[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

const v6 = (text: string): number[] => parseIpv6(text) ?? [];
const LOOPBACK_V6 = v6('::1');
const MAPPED_V4_PREFIX = v6('::ffff:0:0');
const NAT64_PREFIX = v6('64:ff9b::');
const GLOBAL_UNICAST_PREFIX = v6('2000::');
const embeddedIpv4 = (groups: number[]): number => (groups[6] ?? 0) * 0x10000 + (groups[7] ?? 0);

// Checked in order after the special cases in classifyIpv6; only 2000::/3 is global unicast.
const IPV6_RANGES: ReadonlyArray<readonly [number[], number, AddressRefusal]> = [
  [v6('64:ff9b:1::'), 48, 'nat64_local'],
  [v6('::'), 96, 'ipv4_compatible'],
  [v6('::ffff:0:0:0'), 96, 'ipv4_translated'],
  [v6('100::'), 64, 'discard'],
  [v6('fc00::'), 7, 'unique_local'],
  [v6('fe80::'), 10, 'link_local'],
  [v6('fec0::'), 10, 'site_local'],
  [v6('ff00::'), 8, 'multicast'],
  [v6('2001::'), 32, 'teredo'],
  [v6('2001:db8::'), 32, 'documentation'],
  [v6('3fff::'), 20, 'documentation'],
  [v6('2002::'), 16, '6to4'],
  [v6('2001::'), 23, 'ietf_protocol'],
];

export function classifyIpv6(groups: number[]): AddressClass {
  if (groups.every((group) => group === 0)) return 'unspecified';
  if (inPrefix(groups, LOOPBACK_V6, 128)) return 'loopback';
  // A mapped address is the IPv4 host itself (dual-stack sockets report IPv4 peers this way).
  if (inPrefix(groups, MAPPED_V4_PREFIX, 96)) return classifyIpv4(embeddedIpv4(groups));
  if (inPrefix(groups, NAT64_PREFIX, 96)) {
    const inner = classifyIpv4(embeddedIpv4(groups));
    return inner === 'public' ? 'public' : `nat64_${inner}`;
  }
  for (const [prefix, bits, refusal] of IPV6_RANGES) {
    if (inPrefix(groups, prefix, bits)) return refusal;
  }
  return inPrefix(groups, GLOBAL_UNICAST_PREFIX, 3) ? 'public' : 'reserved';
}

/** Accepts `1.2.3.4`, `2606:4700::1`, `[::1]`, `::ffff:10.0.0.1`, `fe80::1%eth0`. */
export function classifyIp(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!bare.includes(':')) {
    const value = parseIpv4(bare);
    return value === null ? 'invalid' : classifyIpv4(value);
  }
  const zoneAt = bare.indexOf('%');
  const groups = parseIpv6(zoneAt === -1 ? bare : bare.slice(0, zoneAt));
  return groups === null ? 'invalid' : classifyIpv6(groups);
}

export function isPublicAddress(address: string): boolean {
  return classifyIp(address) === 'public';
}

/**
 * The addresses a delivery to a target may connect to: public ones, or loopback ones for a target
 * on this machine (a loopback address or a `localhost` name, admitted only by the development
 * setting). Never both: a public name answering a loopback address is as suspect as any other
 * rebinding, and a loopback target that reaches out is no longer on this machine.
 */
export type WebhookReach = 'public' | 'loopback';

/** The connect-time check: an address of the one kind the target was admitted for. */
export function isAllowedAddress(address: string, reach: WebhookReach): boolean {
  return classifyIp(address) === reach;
}
