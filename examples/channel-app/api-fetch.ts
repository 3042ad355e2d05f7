/**
 * Calls to the distribution API that fail before any answer (nothing listens, a certificate Node
 * does not trust, a name that does not resolve) reach the caller as Node's bare `fetch failed`.
 * The app's `fetch` says which request failed and why instead, so a log line reads
 * `GET https://localhost:8443/api/v1/distribution/owner-connect/keys: ECONNREFUSED (…)` and
 * names the setting that usually fixes it.
 */

/** The `fetch` both the kit's client (`(Request)`) and its key-set reader (`(url, init)`) call. */
export type AnyFetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** A request to the API that got no answer: the method, the URL and the transport's error as `cause`. */
export class ApiUnreachableError extends Error {
  readonly method: string;
  readonly url: string;
  /** The transport's code: `ECONNREFUSED`, `DEPTH_ZERO_SELF_SIGNED_CERT`, `ENOTFOUND`… or the error's name. */
  readonly code: string;

  constructor(method: string, url: string, cause: unknown) {
    const { code, detail } = transportFailure(cause);
    super(`${method} ${url}: ${code}${detail && detail !== code ? ` (${detail})` : ''}`, { cause });
    this.name = 'ApiUnreachableError';
    this.method = method;
    this.url = url;
    this.code = code;
  }

  /** What to change, for the usual causes; empty when there is nothing general to say. */
  get remedy(): string {
    if (this.code === 'ECONNREFUSED')
      return 'nothing listens there: set DISTRIBUTION_API_URL to the API address the service printed at start';
    if (this.code === 'ENOTFOUND' || this.code === 'EAI_AGAIN')
      return 'that host name does not resolve: check DISTRIBUTION_API_URL';
    if (CERTIFICATE_CODES.has(this.code))
      return "Node does not trust the service's certificate: start the app with NODE_EXTRA_CA_CERTS=<that certificate's file> (a local npm start's is tls/localhost.crt in its data directory, .data by default)";
    return '';
  }
}

const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

interface NodeError {
  code?: unknown;
  message?: unknown;
  name?: unknown;
  cause?: NodeError;
  errors?: NodeError[];
}

const textOf = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * The code and message of what went wrong underneath. Node's `fetch` throws
 * `TypeError('fetch failed')` with the socket's error as `cause` (an `AggregateError` with an
 * empty message when every address of `localhost` refused); `node:https` throws the socket's error itself.
 */
function transportFailure(error: unknown): { code: string; detail: string } {
  let inner = (error ?? {}) as NodeError;
  while (inner.cause && typeof inner.code !== 'string') inner = inner.cause;
  const code = textOf(inner.code) || textOf(inner.name) || 'Error';
  const messages = Array.isArray(inner.errors)
    ? inner.errors.map((each) => textOf(each.message))
    : [textOf(inner.message)];
  return { code, detail: messages.filter(Boolean).join('; ') };
}

/** `fetch` whose failures before an answer are thrown as an {@link ApiUnreachableError}. */
export function namingFailures(fetch: AnyFetch): AnyFetch {
  return async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (error) {
      const method = (input instanceof Request ? input.method : (init?.method ?? 'GET')).toUpperCase();
      const url = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
      throw new ApiUnreachableError(method, url, error);
    }
  };
}

/** One line for the log: an unreachable API with its cause and remedy, anything else by its message. */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiUnreachableError) return error.remedy ? `${error.message}: ${error.remedy}` : error.message;
  return error instanceof Error ? error.message : String(error);
}
