/**
 * W3C Trace Context `traceparent` (version 00): `00-<trace id>-<parent id>-<flags>`, lower-case
 * hex, 32, 16 and 2 digits. The event log keeps the write's as text, and the dispatcher parents
 * the deliveries' traces on it (docs/operations.md "Tracing").
 */
export interface TraceParent {
  traceId: string;
  spanId: string;
  /** Bit 0: sampled. */
  traceFlags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = /^0+$/;

export function formatTraceparent({ traceId, spanId, traceFlags }: TraceParent): string {
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * The header's parts, or undefined for anything the specification says to ignore: another shape,
 * version ff, an all-zero trace or parent id, or extra fields in version 00. A later version's
 * extra fields are allowed (the first four are read as version 00's).
 */
export function parseTraceparent(text: string | null | undefined): TraceParent | undefined {
  if (!text) return undefined;
  const match = TRACEPARENT.exec(text.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ZERO_TRACE.test(traceId!) || ZERO_TRACE.test(spanId!)) return undefined;
  return { traceId: traceId!, spanId: spanId!, traceFlags: Number.parseInt(flags!, 16) };
}
