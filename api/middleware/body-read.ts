import type { Request } from 'express';

/**
 * Why a request's body could not be read, when that is the client's doing: the reader
 * (body-parser, for JSON and for the host forms) refuses with an http-errors error of status 4xx.
 * Each interface answers it in its own shape (a problem, the integration interface's error, a host
 * page) and logs it at info: a client's bad body is not the service's failure, and must not count
 * toward the alert on server errors.
 */
export type BodyReadRefusal =
  | {
      status: 400;
      reason: 'undecodable' | 'cut_short' | 'malformed_json';
      /** The rule code of the answer's one `errors` entry. */
      rule: 'json' | 'content_encoding' | 'incomplete_body';
      detail: string;
    }
  | {
      status: 413 | 415;
      /** What the access log records (`reason`), and the operator searches for. */
      reason: 'too_large' | 'too_many_fields' | 'unsupported_coding' | 'unsupported_charset';
      detail: string;
    };

const CODINGS = 'gzip, deflate, br or zstd';

/** A charset the reader does not take; for JSON, any but UTF-8 (api/middleware/json-body.ts). */
export const UNSUPPORTED_CHARSET: BodyReadRefusal = {
  status: 415,
  reason: 'unsupported_charset',
  detail: 'Send the body in UTF-8 (charset=utf-8, or no charset)',
};

/** The refusal `error` stands for, or null when it is not a client's bad body (a failure of ours). */
export function bodyReadRefusal(error: unknown, req: Request): BodyReadRefusal | null {
  const { status, type, expose } = (error ?? {}) as { status?: unknown; type?: unknown; expose?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  const coding = (req.get('content-encoding') ?? 'identity').toLowerCase();
  switch (type) {
    case 'entity.too.large':
      return { status: 413, reason: 'too_large', detail: 'The body is too large' };
    case 'parameters.too.many':
      return { status: 413, reason: 'too_many_fields', detail: 'The form has too many fields' };
    case 'encoding.unsupported':
      return {
        status: 415,
        reason: 'unsupported_coding',
        detail: `Content-Encoding "${coding.slice(0, 40)}" is not read; send the body as it is, or in ${CODINGS}`,
      };
    case 'charset.unsupported':
      return UNSUPPORTED_CHARSET;
    case 'entity.parse.failed':
      return { status: 400, reason: 'malformed_json', rule: 'json', detail: 'The body is not valid JSON' };
    case 'request.aborted':
    case 'request.size.invalid':
      return {
        status: 400,
        reason: 'cut_short',
        rule: 'incomplete_body',
        detail: 'The body ended before the length its Content-Length announced',
      };
  }
  // A decompressor's refusal (zlib's Z_DATA_ERROR, a brotli or zstd error) carries no type: the
  // reader marks it 400 and exposable. Any other exposable 4xx of the reader is the client's too.
  if (expose !== true || type !== undefined) return null;
  return coding === 'identity'
    ? { status: 400, reason: 'malformed_json', rule: 'json', detail: 'The body could not be read' }
    : {
        status: 400,
        reason: 'undecodable',
        rule: 'content_encoding',
        detail: `The body is not valid ${coding.slice(0, 40)} data`,
      };
}
