import { describe, expect, test } from 'vitest';
import { isPublicListingUrl, reportRuleErrors, sameReportedState, statsDateError, type ReportedState } from '../../domain/listings/report.ts';

const base: ReportedState = { status: 'unpublished', public_url: null, promoted: false, promoted_until: null, rejection: null };

describe('listing report rules', () => {
  test.each([
    ['published with a URL', { status: 'published', public_url: 'https://a.example/1' }, []],
    ['published without one', { status: 'published' }, ['/public_url required']],
    ['an unknown status with a URL', { status: 'archived', public_url: 'https://a.example/1' }, ['/public_url not_allowed']],
    ['rejected with a rejection', { status: 'rejected', rejection: { reason: 'photos', text: null } }, []],
    ['rejected without one', { status: 'rejected' }, ['/rejection required']],
    ['an unknown status with a rejection', { status: 'archived', rejection: { reason: 'photos', text: null } }, ['/rejection not_allowed']],
    ['a promotion with an end', { promoted: true, promoted_until: '2026-12-01T00:00:00Z' }, []],
    ['an end without a promotion', { promoted_until: '2026-12-01T00:00:00Z' }, ['/promoted_until not_allowed']],
  ])('%s', (_name, fields, expected) => {
    expect(reportRuleErrors({ ...base, ...fields }).map((e) => `${e.pointer} ${e.code}`)).toEqual(expected);
  });

  test('the same state, whatever the order of receipt; any field differing is a change', () => {
    expect(sameReportedState(base, { ...base })).toBe(true);
    expect(sameReportedState(base, { ...base, promoted: true })).toBe(false);
    const rejected = { ...base, status: 'rejected', rejection: { reason: 'photos', text: 'a' } };
    expect(sameReportedState(rejected, { ...rejected, rejection: { reason: 'photos', text: 'b' } })).toBe(false);
  });

  test.each([
    ['https://a.example/x', true],
    ['http://a.example/x', false],
    ['https://', false],
    ['https://user:pw@a.example/', false],
    ['HTTPS://a.example/', false],
  ])('public URL %s: %s', (url, ok) => expect(isPublicListingUrl(url)).toBe(ok));

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
