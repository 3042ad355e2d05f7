import { describe, expect, test } from 'vitest';
import {
  normalisePublicListingUrl,
  reportRuleErrors,
  sameReportedState,
  statsDateError,
  type ReportedState,
} from '../../domain/listings/report.ts';

const base: ReportedState = {
  status: 'unpublished',
  public_url: null,
  promoted: false,
  promoted_until: null,
  rejection: null,
};

describe('listing report rules', () => {
  test.each([
    ['published with a URL', { status: 'published', public_url: 'https://a.example/1' }, []],
    ['published without one', { status: 'published' }, ['/public_url required']],
    [
      'an unknown status with a URL',
      { status: 'archived', public_url: 'https://a.example/1' },
      ['/public_url not_allowed'],
    ],
    ['rejected with a rejection', { status: 'rejected', rejection: { reason: 'photos', text: null } }, []],
    ['rejected without one', { status: 'rejected' }, ['/rejection required']],
    [
      'an unknown status with a rejection',
      { status: 'archived', rejection: { reason: 'photos', text: null } },
      ['/rejection not_allowed'],
    ],
    ['a promotion with an end', { promoted: true, promoted_until: '2026-12-01T00:00:00Z' }, []],
    ['an end without a promotion', { promoted_until: '2026-12-01T00:00:00Z' }, ['/promoted_until not_allowed']],
  ])('%s', (_name, fields, expected) => {
    expect(reportRuleErrors({ ...base, ...fields }).map((e) => `${e.pointer} ${e.code}`)).toEqual(expected);
  });

  test.each([
    [
      'no status: no rule reads it',
      { public_url: 'https://a.example/1', rejection: { reason: 'photos', text: null } },
      [],
    ],
    ['no public_url', { status: 'published' }, []],
    ['no rejection', { status: 'rejected' }, []],
    ['no promotion flag', { promoted_until: '2026-12-01T00:00:00Z' }, []],
    [
      'the rules that read only what is there',
      { status: 'unpublished', public_url: 'https://a.example/1', promoted: false },
      ['/public_url not_allowed'],
    ],
  ])('a field left out is not checked by the rules that read it: %s', (_name, fields, expected) => {
    expect(reportRuleErrors(fields).map((e) => `${e.pointer} ${e.code}`)).toEqual(expected);
  });

  test('the same state, whatever the order of receipt; any field differing is a change', () => {
    expect(sameReportedState(base, { ...base })).toBe(true);
    expect(sameReportedState(base, { ...base, promoted: true })).toBe(false);
    const rejected = { ...base, status: 'rejected', rejection: { reason: 'photos', text: 'a' } };
    expect(sameReportedState(rejected, { ...rejected, rejection: { reason: 'photos', text: 'b' } })).toBe(false);
  });

  test.each([
    ['https://a.example/x', { url: 'https://a.example/x' }],
    ['https://A.Example:443/a/../x/./y?q=1#top', { url: 'https://a.example/x/y?q=1#top' }],
    ['https://a.example', { url: 'https://a.example/' }],
    ['https://brașov.example/cazare/ș', { url: 'https://xn--braov-h9b.example/cazare/%C8%99' }],
    ['http://a.example/x', 'https_only'],
    ['https://', 'https_only'],
    ['https://user:pw@a.example/', 'https_only'],
    ['HTTPS://a.example/', 'https_only'],
    ['https:a.example/', 'https_only'],
    ['https://a.example:99999/', 'https_only'],
    ['https://x.example/ javascript:alert(1)', 'url_characters'],
    ['https://x.example/\tx', 'url_characters'],
    ['https://x.example/\u00a0x', 'url_characters'],
    ['https://x.example/"onmouseover="x', 'url_characters'],
    ["https://x.example/'x", 'url_characters'],
    ['https://x.example/`x', 'url_characters'],
    ['https://x.example/<script>', 'url_characters'],
    ['https://x.example\\@y.example/', 'url_characters'],
    ['https://x.example/\u0000', 'url_characters'],
    ['https://x.example/\u007f', 'url_characters'],
    ['https://x.example/\u0085', 'url_characters'],
    [
      `https://a.example/${'a'.repeat(2048 - 'https://a.example/'.length)}`,
      { url: `https://a.example/${'a'.repeat(2048 - 'https://a.example/'.length)}` },
    ],
    [`https://a.example/${'a'.repeat(2049 - 'https://a.example/'.length)}`, 'max'],
    // Longer as sent, within the limit once the default port is dropped.
    [
      `https://a.example:443/${'a'.repeat(2048 - 'https://a.example/'.length)}`,
      { url: `https://a.example/${'a'.repeat(2048 - 'https://a.example/'.length)}` },
    ],
    // Within the limit as sent, past it once percent-encoded.
    [`https://a.example/${'ș'.repeat(400)}`, 'max'],
  ])('public URL %s: %j', (url, expected) => {
    const result = normalisePublicListingUrl(url);
    expect(typeof expected === 'string' ? ('code' in result ? result.code : result) : result).toEqual(expected);
  });

  test('statistics dates: from 35 days before today through today', () => {
    expect(statsDateError('2026-11-23', '2026-11-23')).toBeNull();
    expect(statsDateError('2026-10-19', '2026-11-23')).toBeNull();
    expect(statsDateError('2026-10-18', '2026-11-23')?.code).toBe('too_old');
    expect(statsDateError('2026-11-24', '2026-11-23')?.code).toBe('in_the_future');
    // Across a year's end and a leap day.
    expect(statsDateError('2027-02-01', '2028-03-07')?.code).toBe('too_old');
    expect(statsDateError('2028-02-01', '2028-03-07')).toBeNull();
  });
});
