import type { components } from './generated/schema.ts';

export type Problem = components['schemas']['Problem'];
export type ParameterError = components['schemas']['ParameterError'];

/**
 * A refusal of the distribution interface: an RFC 9457 problem document, thrown by the client for
 * every answer of status 400 or more. Branch on `code` (or `status` for a code this kit does not
 * know; the list is open), never on `title`. Its fields keep the document's names.
 *
 * An answer that is not a problem document (a proxy's 502 page, say) is thrown too, with `code`
 * undefined and its text in `detail`.
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly status: number;
  /** The stable identifier of the refusal: `invalid_parameters`, `rate_limited`, `not_found`… */
  readonly code: string | undefined;
  readonly type: string | undefined;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly instance: string | undefined;
  /** Equal to the `Request-Id` header: quote it when reporting a problem. */
  readonly request_id: string | undefined;
  /** With `invalid_parameters`: one entry per failed rule (`parameter`, `header` or `pointer` says where). */
  readonly errors: ParameterError[];
  /** With `insufficient_scope`: the scopes the key lacks (one of them is enough when `required_scopes_match` is `any`). */
  readonly required_scopes: string[] | undefined;
  readonly required_scopes_match: string | undefined;
  /** `Retry-After` of a 429 or 503, in seconds, when the client's retries gave up. */
  readonly retryAfter: number | undefined;
  /** The document as received, with any field this kit does not know. */
  readonly problem: (Problem & Record<string, unknown>) | undefined;
  readonly headers: Headers;

  constructor(status: number, body: unknown, headers: Headers) {
    const problem = isProblemDocument(body) ? body : undefined;
    const text = typeof body === 'string' ? body.slice(0, 500) : undefined;
    super(
      problem
        ? `${status} ${problem.code}${problem.detail ? `: ${problem.detail}` : problem.title ? `: ${problem.title}` : ''}`
        : `${status}${text ? `: ${text}` : ''}`,
    );
    this.status = status;
    this.problem = problem;
    this.code = problem?.code;
    this.type = problem?.type;
    this.title = problem?.title;
    this.detail = problem?.detail ?? text;
    this.instance = problem?.instance;
    this.request_id = problem?.request_id ?? headers.get('request-id') ?? undefined;
    this.errors = problem?.errors ?? [];
    this.required_scopes = problem?.required_scopes;
    this.required_scopes_match = problem?.required_scopes_match;
    this.retryAfter = retryAfterSeconds(headers.get('retry-after'), Date.now());
    this.headers = headers;
  }
}

/** Whether `error` is a refusal, with this `code` when one is given. */
export function isProblem(error: unknown, code?: string): error is ProblemError {
  return error instanceof ProblemError && (code === undefined || error.code === code);
}

function isProblemDocument(body: unknown): body is Problem & Record<string, unknown> {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { status?: unknown }).status === 'number'
  );
}

/** `Retry-After` as seconds to wait: delay-seconds, or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
