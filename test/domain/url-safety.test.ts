import { describe, expect, test } from 'vitest';
import { checkWebhookUrl, classifyIp, isAllowedAddress, isPublicAddress } from '../../domain/webhooks/url-safety.ts';
import { parseIpv6 } from '../../domain/webhooks/ip-address.ts';

const strict = { allowLoopback: false };
const dev = { allowLoopback: true };

const hostileUrls: ReadonlyArray<readonly [string, RegExp]> = [
  ['http://example.com/hook', /https/],
  ['ftp://example.com/hook', /https/],
  ['wss://example.com/hook', /https/],
  ['not a url', /valid/],
  ['/relative/path', /valid/],
  ['https://', /valid/],
  ['https://user:pass@example.com/hook', /user information/],
  ['https://user@example.com/hook', /user information/],
  ['https://@example.com/hook', /user information/],
  ['https://:@example.com/hook', /user information/],
  ['https://example.com%2f@evil.example.net/', /user information/],
  ['https://example.com/hook#frag', /fragment/],
  ['https://example.com/hook#', /fragment/],
  ['https://example.com:8443/hook', /port/],
  ['https://example.com:80/hook', /port/],
  ['https://example.com:1/hook', /port/],
  ['https://127.0.0.1/', /loopback/],
  ['https://127.255.255.254/', /loopback/],
  ['https://2130706433/', /loopback/],
  ['https://0177.0.0.1/', /loopback/],
  ['https://0x7f.1/', /loopback/],
  ['https://0x7f000001/', /loopback/],
  ['https://017700000001/', /loopback/],
  ['https://127.1/', /loopback/],
  ['https://127.0.1/', /loopback/],
  ['https://127.0.0.1./', /loopback/],
  ['https://%31%32%37.0.0.1/', /loopback/],
  ['https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/', /loopback/],
  ['https://0/', /this_network/],
  ['https://0.0.0.0/', /this_network/],
  ['https://10.1.2.3/', /private/],
  ['https://167772161/', /private/],
  ['https://172.16.0.1/', /private/],
  ['https://172.31.255.255/', /private/],
  ['https://192.168.1.1/', /private/],
  ['https://0xc0.0xa8.1.1/', /private/],
  ['https://100.64.0.1/', /cgnat/],
  ['https://100.127.255.255/', /cgnat/],
  ['https://169.254.169.254/latest/meta-data/', /link_local/],
  ['https://192.0.0.8/', /ietf_protocol/],
  ['https://192.0.2.1/', /documentation/],
  ['https://198.51.100.7/', /documentation/],
  ['https://203.0.113.9/', /documentation/],
  ['https://192.88.99.1/', /6to4_relay/],
  ['https://198.18.0.1/', /benchmarking/],
  ['https://198.19.255.255/', /benchmarking/],
  ['https://224.0.0.1/', /multicast/],
  ['https://239.255.255.250/', /multicast/],
  ['https://240.0.0.1/', /reserved/],
  ['https://255.255.255.255/', /broadcast/],
  ['https://[::1]/', /loopback/],
  ['https://[0:0:0:0:0:0:0:1]/', /loopback/],
  ['https://[::]/', /unspecified/],
  ['https://[::ffff:127.0.0.1]/', /loopback/],
  ['https://[::ffff:7f00:1]/', /loopback/],
  ['https://[0:0:0:0:0:ffff:127.0.0.1]/', /loopback/],
  ['https://[::ffff:10.0.0.1]/', /private/],
  ['https://[::ffff:a9fe:a9fe]/', /link_local/],
  ['https://[::127.0.0.1]/', /ipv4_compatible/],
  ['https://[::8.8.8.8]/', /ipv4_compatible/],
  ['https://[::ffff:0:8.8.8.8]/', /ipv4_translated/],
  ['https://[64:ff9b::10.0.0.1]/', /nat64_private/],
  ['https://[64:ff9b::7f00:1]/', /nat64_loopback/],
  ['https://[64:ff9b::169.254.169.254]/', /nat64_link_local/],
  ['https://[64:ff9b:1::8.8.8.8]/', /nat64_local/],
  ['https://[2002:a00:1::]/', /6to4/],
  ['https://[2002:7f00:1::1]/', /6to4/],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /teredo/],
  ['https://[fc00::1]/', /unique_local/],
  ['https://[fd12:3456:789a::1]/', /unique_local/],
  ['https://[fe80::1]/', /link_local/],
  ['https://[febf::1]/', /link_local/],
  ['https://[fec0::1]/', /site_local/],
  ['https://[ff02::1]/', /multicast/],
  ['https://[2001:db8::1]/', /documentation/],
  ['https://[3fff::1]/', /documentation/],
  ['https://[100::1]/', /discard/],
  ['https://[2001:2::1]/', /ietf_protocol/],
  ['https://[4000::1]/', /reserved/],
  ['https://[::1]:443/', /loopback/],
  ['https://localhost/', /local name/],
  ['https://LOCALHOST/', /local name/],
  ['https://localhost./', /local name/],
  ['https://foo.localhost/', /local name/],
  ['https://printer.local/', /local name/],
  ['https://metadata.google.internal/', /local name/],
  ['https://router.home.arpa/', /local name/],
  ['https://nas.lan/', /local name/],
  ['https://box.localdomain/', /local name/],
  ['https://1.0.0.127.in-addr.arpa/', /local name/],
  ['https://receiver/', /fully qualified/],
  ['https://intranet/', /local name/],
  ['https://wiki.corp/', /local name/],
  ['https://webhooks./', /fully qualified/],
  ['https://.example.com/', /valid domain/],
  ['https://example..com/', /valid domain/],
  ['https://example.com../', /valid domain/],
  ['https://-bad-.example.com/', /valid domain/],
  [`https://${'a'.repeat(64)}.example.com/`, /valid domain/],
  [`https://example.com/${'a'.repeat(2048)}`, /longer/],
  ['https://1.2.3.4.5/', /valid/],
];

describe('checkWebhookUrl refuses', () => {
  test('holds enough hostile cases', () => {
    expect(hostileUrls.length).toBeGreaterThanOrEqual(40);
  });

  test.each(hostileUrls)('%s', (raw, reason) => {
    const result = checkWebhookUrl(raw, strict);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

const goodUrls: ReadonlyArray<readonly [string, string, string]> = [
  ['https://example.com/hook', 'https://example.com/hook', 'example.com'],
  ['https://Hooks.Example.COM./in?x=1', 'https://hooks.example.com/in?x=1', 'hooks.example.com'],
  ['https://example.com:443/hook', 'https://example.com/hook', 'example.com'],
  ['  https://example.com/  ', 'https://example.com/', 'example.com'],
  ['https://8.8.8.8/hook', 'https://8.8.8.8/hook', '8.8.8.8'],
  ['https://[2606:4700:4700::1111]/hook', 'https://[2606:4700:4700::1111]/hook', '2606:4700:4700::1111'],
  ['https://[64:ff9b::8.8.8.8]/', 'https://[64:ff9b::808:808]/', '64:ff9b::808:808'],
  ['https://[::ffff:8.8.8.8]/', 'https://[::ffff:808:808]/', '::ffff:808:808'],
  ['https://b\u00fccher.de/', 'https://xn--bcher-kva.de/', 'xn--bcher-kva.de'],
  ['https://my_hooks.example.com/path?a=b@c', 'https://my_hooks.example.com/path?a=b@c', 'my_hooks.example.com'],
  ['https://172.32.0.1/', 'https://172.32.0.1/', '172.32.0.1'],
  ['https://100.128.0.1/', 'https://100.128.0.1/', '100.128.0.1'],
];

describe('checkWebhookUrl accepts', () => {
  test.each(goodUrls)('%s', (raw, href, host) => {
    const result = checkWebhookUrl(raw, strict);
    expect(result).toMatchObject({ ok: true, host });
    if (result.ok) expect(result.url.href).toBe(href);
  });
});

describe('allowLoopback', () => {
  test.each([
    ['https://127.0.0.1:8443/hook', '127.0.0.1'],
    ['https://127.1/hook', '127.0.0.1'],
    ['https://127.200.3.4:9/', '127.200.3.4'],
    ['https://[::1]:9000/', '::1'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['https://localhost:3000/', 'localhost'],
    ['https://localhost./', 'localhost'],
    ['https://app.localhost/', 'app.localhost'],
  ])('permits the loopback target %s, on any port, reaching loopback only', (raw, host) => {
    expect(checkWebhookUrl(raw, dev)).toMatchObject({ ok: true, host, reach: 'loopback' });
  });

  test.each([
    ['https://8.8.8.8:8443/x', /port/],
    ['https://example.com:8443/', /port/],
    ['https://[2606:4700:4700::1111]:8443/', /port/],
    ['http://127.0.0.1:8080/', /https/],
    ['http://localhost/', /https/],
    ['https://10.0.0.1/', /private/],
    ['https://192.168.1.1:8443/', /private/],
    ['https://169.254.169.254/', /link_local/],
    ['https://0.0.0.0:8443/', /this_network/],
    ['https://[::]/', /unspecified/],
    ['https://[fe80::1]/', /link_local/],
    ['https://[64:ff9b::7f00:1]/', /nat64_loopback/],
    ['https://[::127.0.0.1]/', /ipv4_compatible/],
    ['https://printer.local/', /local name/],
    ['https://receiver/', /fully qualified/],
    ['https://u:p@localhost/', /user information/],
    ['https://localhost/#x', /fragment/],
  ])('still refuses %s', (raw, reason) => {
    const result = checkWebhookUrl(raw, dev);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  // The setting admits loopback and nothing else: every other URL of the tables above gets the
  // verdict it gets without it, and what it accepts still reaches public addresses only.
  const loopbackHosts = /\((loopback|\.localhost)\)$/;
  const verdict = (result: ReturnType<typeof checkWebhookUrl>) =>
    result.ok ? { ok: true, href: result.url.href, host: result.host, reach: result.reach } : result;
  test.each([...hostileUrls.map(([raw]) => raw), ...goodUrls.map(([raw]) => raw)])(
    'judges %s as without it, unless its host is loopback',
    (raw) => {
      const without = checkWebhookUrl(raw, strict);
      if (!without.ok && loopbackHosts.test(without.reason)) {
        expect(checkWebhookUrl(raw, dev)).toMatchObject({ ok: true, reach: 'loopback' });
      } else {
        expect(verdict(checkWebhookUrl(raw, dev))).toEqual(verdict(without));
      }
    },
  );

  test('a public URL reaches public addresses only, with the setting or without', () => {
    expect(checkWebhookUrl('https://example.com/hook', dev)).toMatchObject({ ok: true, reach: 'public' });
    expect(checkWebhookUrl('https://8.8.8.8/hook', strict)).toMatchObject({ ok: true, reach: 'public' });
  });
});

const refusedAnswers: ReadonlyArray<readonly [string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.8.9.10', 'loopback'],
  ['0.0.0.0', 'this_network'],
  ['0.1.2.3', 'this_network'],
  ['10.0.0.1', 'private'],
  ['100.64.0.1', 'cgnat'],
  ['169.254.169.254', 'link_local'],
  ['172.16.5.4', 'private'],
  ['172.31.0.1', 'private'],
  ['192.0.0.170', 'ietf_protocol'],
  ['192.0.2.55', 'documentation'],
  ['192.88.99.2', '6to4_relay'],
  ['192.168.0.1', 'private'],
  ['198.18.5.5', 'benchmarking'],
  ['198.51.100.1', 'documentation'],
  ['203.0.113.200', 'documentation'],
  ['224.0.0.251', 'multicast'],
  ['240.1.2.3', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::FFFF:7F00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'link_local'],
  ['::ffff:100.64.1.1', 'cgnat'],
  ['::10.0.0.1', 'ipv4_compatible'],
  ['64:ff9b::192.168.1.1', 'nat64_private'],
  ['64:ff9b::a9fe:a9fe', 'nat64_link_local'],
  ['2002:c0a8:101::1', '6to4'],
  ['2001:0:53aa:64c:0:0:0:1', 'teredo'],
  ['fc00::1', 'unique_local'],
  ['fdff:ffff::1', 'unique_local'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['fec0::1', 'site_local'],
  ['ff05::2', 'multicast'],
  ['2001:db8:85a3::8a2e:370:7334', 'documentation'],
  ['100::dead:beef', 'discard'],
  ['1234::1', 'reserved'],
  ['8000::1', 'reserved'],
  ['0177.0.0.1', 'invalid'],
  ['127.1', 'invalid'],
  ['2130706433', 'invalid'],
  ['1.2.3.256', 'invalid'],
  ['1.2.3.4.', 'invalid'],
  ['', 'invalid'],
  ['localhost', 'invalid'],
  ['1:2:3:4:5:6:7:8:9', 'invalid'],
  ['1::2::3', 'invalid'],
  ['::ffff:1.2.3', 'invalid'],
  ['12345::1', 'invalid'],
  [':1::', 'invalid'],
];

describe('connect-time address check', () => {
  test.each(refusedAnswers)('refuses %s (%s)', (address, reason) => {
    expect(classifyIp(address)).toBe(reason);
    expect(isPublicAddress(address)).toBe(false);
    expect(isAllowedAddress(address, 'public')).toBe(false);
  });

  test.each([
    '1.2.3.4',
    '8.8.8.8',
    '172.15.255.255',
    '100.63.255.255',
    '223.255.255.255',
    '2606:4700::1',
    '2a00:1450:4001:82b::200e',
    '::ffff:1.2.3.4',
    '64:ff9b::1.1.1.1',
    '[2606:4700::1111]',
  ])('accepts %s', (address) => {
    expect(classifyIp(address)).toBe('public');
    expect(isPublicAddress(address)).toBe(true);
  });

  test.each([
    ['127.0.0.1', true, false],
    ['127.8.9.10', true, false],
    ['::1', true, false],
    ['::ffff:127.0.0.1', true, false],
    ['10.0.0.1', false, false],
    ['fe80::1', false, false],
    ['64:ff9b::127.0.0.1', false, false],
    ['8.8.8.8', false, true],
    ['2606:4700::1', false, true],
  ])('%s: allowed for a loopback target %s, for a public one %s', (address, loopback, public_) => {
    expect(isAllowedAddress(address, 'loopback')).toBe(loopback);
    expect(isAllowedAddress(address, 'public')).toBe(public_);
  });
});

describe('parseIpv6', () => {
  test.each([
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['1::', [1, 0, 0, 0, 0, 0, 0, 0]],
    ['1:2:3:4:5:6:7::', [1, 2, 3, 4, 5, 6, 7, 0]],
    ['::2:3:4:5:6:7:8', [0, 2, 3, 4, 5, 6, 7, 8]],
    ['1:2:3:4:5:6:1.2.3.4', [1, 2, 3, 4, 5, 6, 0x102, 0x304]],
    ['::ffff:10.0.0.1', [0, 0, 0, 0, 0, 0xffff, 0x0a00, 1]],
    ['fe80::abcd:1', [0xfe80, 0, 0, 0, 0, 0, 0xabcd, 1]],
  ])('%s', (text, groups) => {
    expect(parseIpv6(text)).toEqual(groups);
  });

  test.each(['1:2:3:4:5:6:7:8::', '1:2:3:4:5:6:7:1.2.3.4', '1.2.3.4::', '::1.2.3.4:1', ':::', '1:', 'g::1'])(
    'refuses %s',
    (text) => {
      expect(parseIpv6(text)).toBeNull();
    },
  );
});
