import { pino, type DestinationStream } from 'pino';
import { traceLogFields, tracingOn } from './tracing.ts';

type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

// Field names whose values never reach a log line, whatever the caller passes and however deep.
const SECRET_FIELD = /authorization|secret|token|password|api_?key|^key$|cookie/i;

/**
 * Credentials recognisable by their shape, wherever they sit in a line (an error message quoting a
 * header, a URL): channel keys, integration tokens, webhook secrets, bearer credentials, and the
 * password of a URL's userinfo (a database or SMTP URL).
 */
const SECRET_TEXT: readonly [RegExp, string][] = [
  [/\b(svci?_(?:test|live)_)[A-Za-z0-9]{8,}/g, '$1[redacted]'],
  [/\bwhsec_[A-Za-z0-9+/=]{8,}/g, 'whsec_[redacted]'],
  [/\b(Bearer|Basic)\s+[^\s",]+/gi, '$1 [redacted]'],
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]+@/gi, '$1:[redacted]@'],
];

const MAX_DEPTH = 6;

/** Whether any SECRET_TEXT pattern could match: one scan instead of four on ordinary text. */
const MAYBE_SECRET = /svci?_|whsec_|bearer|basic|:\/\/[^\s/]*:/i;

function scrubText(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement);
  return out;
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (value instanceof Error) return scrubText(value.stack ?? String(value));
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  return redactFields(value as Record<string, unknown>, depth + 1);
}

/** The fields with every secret-named value replaced and every secret-shaped text censored. */
export function redactFields(fields: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields))
    out[name] = SECRET_FIELD.test(name) ? '[redacted]' : scrub(value, depth);
  return out;
}

/**
 * JSON lines on stderr through pino (stdout stays free for the CLI's JSON documents): `time` (ISO),
 * `level` by name, `message`, the base fields, then the caller's fields with secrets redacted.
 * With tracing on (started before the logger is made), a line written in a span also carries its
 * `trace_id` and `span_id`. `silent` writes nothing. `destination` is for tests that read what
 * would have been written.
 */
export function createLogger(
  level: Level | 'silent' = 'info',
  base: Record<string, unknown> = {},
  destination?: DestinationStream,
): Logger {
  const logger = pino(
    {
      level,
      base: { pid: process.pid, ...base },
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      ...(tracingOn() ? { mixin: traceLogFields } : {}),
    },
    // process.stderr, as before: writes to pipes and files are synchronous, so no line is lost at exit.
    destination ?? process.stderr,
  );
  const write = (at: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (!logger.isLevelEnabled(at)) return;
    if (fields) logger[at](redactFields(fields), scrubText(message));
    else logger[at](scrubText(message));
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
