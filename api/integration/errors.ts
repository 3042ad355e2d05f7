import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { PROBLEMS, ProblemError, type ParameterError } from '../../domain/problems.ts';
import type { Logger } from '../../infra/logger.ts';
import { markRefusal } from '../middleware/access-log.ts';
import { isServiceUnavailable } from '../unavailable.ts';

/**
 * The integration interface's refusals, in the contract's two shapes: `{message, code, errors}`
 * for every refusal, except the answers that say "come back later" (429), which are
 * `{error, message, retry_after}` with `Retry-After` beside them. Messages are English.
 */
export const INTEGRATION_ERRORS = {
  invalid_parameters: {
    status: 400,
    message: 'The request breaks a rule; `errors` names each parameter and what is wrong with it.',
  },
  missing_token: { status: 401, message: 'Send the integration token as `Authorization: Bearer <INTEGRATION_TOKEN>`.' },
  invalid_token: {
    status: 401,
    message:
      'This is not a valid integration token. Channel keys, the platform token and sign-in tokens are not accepted here.',
  },
  token_wrong_environment: {
    status: 401,
    message: 'The token belongs to the other environment (sandbox or production).',
  },
  token_revoked: {
    status: 401,
    message: 'The token was revoked, by a newer token issued for the installation or by an operator.',
  },
  insufficient_scope: {
    status: 403,
    message: 'The token lacks a scope the operation needs; `errors.required_scopes` names it.',
  },
  installation_disabled: { status: 403, message: 'The app is installed but disabled by the organization.' },
  installation_error: {
    status: 403,
    message: 'The installation is in error; the organization has to repair it before the app reads anything.',
  },
  not_found: { status: 404, message: 'No such operation.' },
  method_not_allowed: {
    status: 405,
    message: 'The path exists but not with this method; `Allow` lists the methods it takes.',
  },
  payload_too_large: { status: 413, message: 'The body is larger than the service reads.' },
  unsupported_media_type: {
    status: 415,
    message: 'The body is not read: send JSON in UTF-8, as it is or in gzip, deflate, br or zstd.',
  },
  rate_limited: { status: 429, message: 'The installation used its requests for this minute.' },
  too_many_failed_authentications: {
    status: 429,
    message: 'Too many requests from this address failed authentication.',
  },
  internal: {
    status: 500,
    message: 'The service failed unexpectedly. Quote the `Request-Id` header when you report it.',
  },
  service_unavailable: { status: 503, message: 'A part the service depends on is unreachable. Retry with backoff.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type IntegrationErrorCode = keyof typeof INTEGRATION_ERRORS;

/** The codes answered in the `{error, message, retry_after}` shape. */
export const RETRY_LATER_CODES: readonly IntegrationErrorCode[] = ['rate_limited', 'too_many_failed_authentications'];

/** `errors`: a list per parameter name (messages), or `required_scopes` (the scopes missing). */
export type ErrorFields = Record<string, string[]>;

export class IntegrationError extends Error {
  readonly code: IntegrationErrorCode;
  readonly errors: ErrorFields;
  readonly headers: Record<string, string>;
  readonly retryAfter: number | undefined;
  constructor(
    code: IntegrationErrorCode,
    options: { errors?: ErrorFields; headers?: Record<string, string>; retryAfter?: number; message?: string } = {},
  ) {
    super(options.message ?? INTEGRATION_ERRORS[code].message);
    this.name = 'IntegrationError';
    this.code = code;
    this.errors = options.errors ?? {};
    this.headers = options.headers ?? {};
    this.retryAfter = options.retryAfter;
  }
}

function byParameter(errors: readonly ParameterError[]): ErrorFields {
  const out: ErrorFields = {};
  for (const error of errors) {
    // A rule about the whole body (its coding, its JSON) points at '': named `body` here.
    const name = 'parameter' in error ? error.parameter : 'pointer' in error ? error.pointer || 'body' : error.header;
    (out[name] ??= []).push(error.detail);
  }
  return out;
}

/** A refusal raised by the shared machinery (validation, 405) in this interface's terms. */
function fromProblem(error: ProblemError): IntegrationError {
  const { code, extras } = error;
  if (code in INTEGRATION_ERRORS)
    return new IntegrationError(code as IntegrationErrorCode, {
      errors: byParameter(extras.errors ?? []),
      headers: extras.headers ?? {},
      ...(extras.detail !== undefined ? { message: extras.detail } : {}),
    });
  // A refusal this interface does not list keeps its status under the nearest code.
  return new IntegrationError(PROBLEMS[code].status >= 500 ? 'internal' : 'invalid_parameters', {
    message: extras.detail ?? PROBLEMS[code].title.en,
  });
}

function send(res: Response, error: IntegrationError): void {
  markRefusal(res, error.code);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  const { status } = INTEGRATION_ERRORS[error.code];
  if (RETRY_LATER_CODES.includes(error.code)) {
    const retryAfter = error.retryAfter ?? 60;
    res.setHeader('Retry-After', String(retryAfter));
    res.status(status).json({ error: error.code, message: error.message, retry_after: retryAfter });
    return;
  }
  res.status(status).json({ message: error.message, code: error.code, errors: error.errors });
}

export const integrationNotFound: RequestHandler = () => {
  throw new IntegrationError('not_found');
};

/**
 * Every failure under the integration interface becomes one of its two shapes. An unexpected
 * failure is logged by name and code only: the interface serves personal data, and a database
 * error's message can quote it.
 */
export function integrationErrorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof IntegrationError) return send(res, error);
    if (error instanceof ProblemError) return send(res, fromProblem(error));
    const requestId = res.getHeader('Request-Id');
    const { name, code } = error as { name?: unknown; code?: unknown };
    if (isServiceUnavailable(error)) {
      log.warn('dependency unavailable', { requestId, error: String(name), code });
      send(res, new IntegrationError('service_unavailable', { headers: { 'Retry-After': '5' } }));
      return;
    }
    // The stack without its first line, which is the message.
    const frames = error instanceof Error ? error.stack?.split('\n').slice(1).join('\n') : undefined;
    log.error('unexpected failure in the integration interface', { requestId, error: String(name), code, frames });
    send(res, new IntegrationError('internal'));
  };
}
