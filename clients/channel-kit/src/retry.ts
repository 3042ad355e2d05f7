import { retryAfterSeconds } from './problem.ts';

/**
 * Retries of answers 429 and 503, waiting what `Retry-After` says, within bounds:
 * - `attempts`: retries after the first try (default 3);
 * - `maxDelaySeconds`: the longest single wait; a `Retry-After` beyond it ends the retries at once
 *   and the answer is thrown as a `ProblemError` (default 60);
 * - `maxTotalSeconds`: the most all waits of one call add up to (default 120).
 * Without `Retry-After` the waits are 1, 2, 4… seconds, with jitter.
 *
 * Which calls: GET, HEAD, PUT and DELETE (idempotent) on 429 and 503; POST on 429 only. A 429 is
 * a refusal of the request as a whole, given before its body is read (the rate limit and the
 * failed-authentication limit are the first checks, a ping beyond the channel's two in flight is
 * refused before it is sent), so repeating it does nothing twice. A 503 may come after a write
 * committed, and a POST (create an endpoint, rotate its secret, send a ping, report statistics)
 * is not repeated on it.
 */
export interface RetryOptions {
  attempts?: number;
  maxDelaySeconds?: number;
  maxTotalSeconds?: number;
}

type FetchLike = (input: Request) => Promise<Response>;

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Whether an answer of `status` to `method` is sent again. */
export function retries(method: string, status: number): boolean {
  if (status === 429) return true;
  return status === 503 && IDEMPOTENT.has(method.toUpperCase());
}

export function retryingFetch(fetch: FetchLike, options: RetryOptions = {}): FetchLike {
  const attempts = options.attempts ?? 3;
  const maxDelay = options.maxDelaySeconds ?? 60;
  const maxTotal = options.maxTotalSeconds ?? 120;
  return async (request) => {
    let waited = 0;
    for (let attempt = 0; ; attempt += 1) {
      // The request's body is read by the try: each try sends a copy.
      const response = await fetch(attempt < attempts ? request.clone() : request);
      if (attempt >= attempts || !retries(request.method, response.status)) return response;
      const stated = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
      const delay = stated ?? Math.min(maxDelay, 2 ** attempt * (0.75 + Math.random() / 2));
      if (delay > maxDelay || waited + delay > maxTotal) return response;
      // The refused answer's body is not needed: release its connection.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay * 1000, request.signal);
      waited += delay;
    }
  };
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
