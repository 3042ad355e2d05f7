import type { LookupAddress, promises as dnsPromises } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/**
 * How a webhook's host is resolved: by c-ares (not the thread pool's getaddrinfo), A and AAAA
 * together, with the family taken from each address. infra/webhook-http.ts checks every address
 * against those a delivery may reach before it connects.
 */

const NO_RECORDS = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * A `lookup` for `net` that asks c-ares for A and AAAA records together. For a loopback target
 * (admitted only by WEBHOOK_ALLOW_LOCAL), `localhost` names answer 127.0.0.1 without a query
 * (RFC 6761), so what the DNS says about them never matters.
 */
export function caresLookup(
  resolver: InstanceType<typeof dnsPromises.Resolver>,
  loopbackTarget: boolean,
): LookupFunction {
  return (hostname, _options, callback) => {
    if (loopbackTarget && (hostname === 'localhost' || hostname.endsWith('.localhost'))) {
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
      return;
    }
    void Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]).then(([v4, v6]) => {
      const addresses = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      const errors = [v4, v6].flatMap((result) =>
        result.status === 'rejected' ? [result.reason as NodeJS.ErrnoException] : [],
      );
      // Only the addresses received are checked and connected to, so one family failing (a
      // resolver that drops AAAA queries) leaves the other usable.
      if (addresses.length > 0) callback(null, addresses);
      else
        callback(
          errors.find((error) => !NO_RECORDS.has(String(error.code))) ??
            errors[0] ??
            Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
          [],
        );
    });
  };
}

export function normaliseAnswer(answer: string | LookupAddress[], family: number | undefined): LookupAddress[] {
  const list = typeof answer === 'string' ? [{ address: answer, family: family ?? 0 }] : answer;
  // The family net connects with comes from the address itself, not from what the resolver claimed.
  return list.map((entry) => ({ address: entry.address, family: isIP(entry.address) === 6 ? 6 : 4 }));
}
