import { expect, test } from 'vitest';
import { extract, inject } from '../../workflows/tracing-spans.ts';

// The workflows' W3C trace context, read and written as the package's propagators (W3C trace
// context and baggage, @opentelemetry/core) read and write it: workflows/tracing-spans.ts.

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

test('a sampled traceparent becomes the parent, with its tracestate and the baggage as received', () => {
  const context = extract(
    {},
    { traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'platform=1,b=2', baggage: 'tenant=a' },
  );
  expect(context).toEqual({
    span: { traceId: TRACE, spanId: SPAN, traceFlags: 1, traceState: 'platform=1,b=2' },
    baggage: 'tenant=a',
  });
  // Written back as the propagators write it.
  expect(inject(context)).toEqual({
    traceparent: `00-${TRACE}-${SPAN}-01`,
    tracestate: 'platform=1,b=2',
    baggage: 'tenant=a',
  });
});

test('an unsampled parent keeps its flags; a later version may carry more parts', () => {
  expect(extract({}, { traceparent: `00-${TRACE}-${SPAN}-00` }).span?.traceFlags).toBe(0);
  expect(extract({}, { traceparent: `01-${TRACE}-${SPAN}-01-more` }).span?.spanId).toBe(SPAN);
});

test.each([
  ['version ff', `ff-${TRACE}-${SPAN}-01`],
  ['version 00 with a part more', `00-${TRACE}-${SPAN}-01-more`],
  ['a trace id of zeros', `00-${'0'.repeat(32)}-${SPAN}-01`],
  ['a span id of zeros', `00-${TRACE}-${'0'.repeat(16)}-01`],
  ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
  ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
])('a traceparent with %s is no parent: the context stays as it was', (_case, traceparent) => {
  const base = { span: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 } };
  expect(extract(base, { traceparent })).toBe(base);
});

test('a carrier without trace headers, or not an object, leaves the context as it was', () => {
  const base = {};
  expect(extract(base, {})).toBe(base);
  expect(extract(base, null)).toBe(base);
  expect(extract(base, 'traceparent')).toBe(base);
  expect(inject(base)).toEqual({});
});
