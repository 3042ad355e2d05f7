import { describe, expect, test } from 'vitest';
import { formatTraceparent, parseTraceparent } from '../../domain/traceparent.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('W3C traceparent', () => {
  test("the specification's example parses, and formats back to itself", () => {
    const text = `00-${TRACE}-${SPAN}-01`;
    expect(parseTraceparent(text)).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
    expect(formatTraceparent(parseTraceparent(text)!)).toBe(text);
  });

  test('flags are two hex digits: unsampled 00, others kept', () => {
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 0 })).toBe(`00-${TRACE}-${SPAN}-00`);
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.traceFlags).toBe(0);
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-03`)?.traceFlags).toBe(3);
  });

  test("a later version's extra fields are allowed; its first four read as version 00's", () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-what-comes-next`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: 1,
    });
  });

  test.each([
    ['absent', null],
    ['empty', ''],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['a short parent id', `00-${TRACE}-${SPAN.slice(1)}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['another separator', `00_${TRACE}_${SPAN}_01`],
  ])('ignored: %s', (_case, text) => {
    expect(parseTraceparent(text)).toBeUndefined();
  });
});
