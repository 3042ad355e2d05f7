import { isIP } from 'node:net';
import type { Request } from 'express';

/** The first 64 bits of an IPv6 address, as four lowercase groups without leading zeros. */
function prefix64(address: string): string {
  const bare = address.split('%')[0]!;
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const width = (groups: string[]) => groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const [head = '', tail] = bare.split('::');
  const headGroups = groupsOf(head);
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - width(headGroups) - width(groupsOf(tail))).fill('0'), ...groupsOf(tail)];
  return groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':');
}

/**
 * The key a client's counters are kept under: an IPv4 address as it is, an IPv6 address by its
 * /64 (one subscriber usually holds a whole /64, so counting single addresses would let it rotate
 * through 2^64 of them), and anything that is not an address in one shared bucket. The key is
 * never longer than the counter column.
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  const candidate = mapped ? mapped[1]! : address;
  const family = isIP(candidate);
  if (family === 4) return candidate;
  if (family === 6) return `${prefix64(candidate)}::/64`;
  return 'unparsable';
}

/** `req.ip` follows TRUST_PROXY (Express's `trust proxy`): the socket's peer, or the address the trusted proxies report. */
export const clientOf = (req: Request): string => clientKey(req.ip);
