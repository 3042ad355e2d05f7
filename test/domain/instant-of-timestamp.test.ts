import { expect, test } from 'vitest';
import { instantOfTimestamp, toInstant } from '../../domain/time.ts';

test.each([
  '2026-11-28 00:35:48.123456+00',
  '2026-11-28 00:35:48.1+00',
  '2026-11-28 00:35:48+00',
  '1999-12-31 23:59:59.999999+00',
  '2026-11-28 02:35:48.5+02',
  '2026-11-28T00:35:48.123Z',
])('%s is the instant a Date of it gives', (text) => {
  expect(instantOfTimestamp(text)).toBe(toInstant(new Date(text)));
});
