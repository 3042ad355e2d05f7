/**
 * The one rule for every address the kit sends a key to or trusts keys from: `https:`, whatever
 * the host. The service refuses plain HTTP, but only once the request has crossed the network:
 * by then the key has travelled in clear, and the contract has it treated as compromised and
 * rolled. A service on this machine is served over HTTPS too (a development certificate), so there
 * is no exception, not even for loopback.
 */

/** What plain HTTP costs when the address carries the channel's key. */
export const KEY_IN_CLEAR =
  'the service refuses plain HTTP, and a key sent over it is to be treated as compromised and rolled';

/** Why `address` is not an absolute `https:` URL, or undefined when it is. Never echoes the address. */
export function whyNotHttps(address: unknown): string | undefined {
  if (typeof address !== 'string' || address === '') return 'is missing';
  let protocol: string;
  try {
    protocol = new URL(address).protocol;
  } catch {
    return 'is not an absolute https:// URL';
  }
  // The scheme alone: the rest of the address may carry user information.
  return protocol === 'https:' ? undefined : `must be an https:// address, not ${protocol}//`;
}

/** Throws a TypeError naming `option` unless `address` is `https:`; `cost` says what plain HTTP would risk. */
export function requireHttps(address: unknown, option: string, cost: string): void {
  const why = whyNotHttps(address);
  if (why !== undefined) throw new TypeError(`${option} ${why}: ${cost}`);
}
