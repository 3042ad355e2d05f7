import { describe, expect, test } from 'vitest';
import { publicDeliveryError } from '../../domain/webhooks/delivery-errors.ts';

describe('the reason a channel is shown for a failed attempt', () => {
  test.each([
    ['address_not_allowed: 10.0.0.7', 'address_not_allowed'],
    ['dns_failed: ENOTFOUND', 'dns_failure'],
    ['tls_failed: ERR_TLS_CERT_ALTNAME_INVALID: Hostname/IP does not match', 'tls_failure'],
    ['connection_failed: ECONNREFUSED', 'connection_failed'],
    ['timeout after 10000 ms', 'timeout'],
    ['status 500', 'http_status'],
    ['redirect_not_followed: 301', 'redirect_not_followed'],
    ['invalid_response: HPE_INVALID_CONSTANT', 'invalid_response'],
    ['url_not_allowed: address is not public (loopback)', 'url_not_allowed'],
    ['no_secret: the endpoint has no signing secret', 'no_secret'],
    ['http_status', 'http_status'],
    ['constructor', 'connection_failed'],
  ])('%s is shown as %s, without its detail', (stored, shown) => {
    expect(publicDeliveryError(stored)).toBe(shown);
  });

  test('a delivered attempt has none', () => {
    expect(publicDeliveryError(null)).toBeNull();
  });
});
