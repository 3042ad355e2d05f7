import { z } from 'zod';
import { DEFAULT_LISTENER_LIMITS, type ListenerLimits } from '../infra/listener-limits.ts';

/**
 * A whole number up to `max`, 0 meaning off; unset or empty is the default. Not `z.coerce`,
 * which reads an empty value as 0 and would turn a limit off by accident.
 */
function wholeNumber(max: number) {
  return z
    .string()
    .optional()
    .transform((value, context) => {
      const text = (value ?? '').trim();
      if (text === '') return undefined;
      if (/^\d{1,10}$/.test(text) && Number(text) <= max) return Number(text);
      context.addIssue({ code: 'custom', message: `a whole number from 0 (off) to ${max}` });
      return z.NEVER;
    });
}

const HOUR_MS = 3_600_000;

/** The variables of the API listeners' limits (infra/listener-limits.ts), part of the environment's schema. */
export const LISTENER_LIMIT_VARIABLES = {
  TLS_HANDSHAKE_TIMEOUT_MS: wholeNumber(HOUR_MS),
  HEADERS_TIMEOUT_MS: wholeNumber(HOUR_MS),
  REQUEST_TIMEOUT_MS: wholeNumber(HOUR_MS),
  KEEP_ALIVE_TIMEOUT_MS: wholeNumber(HOUR_MS),
  MAX_CONNECTIONS: wholeNumber(1_000_000),
  MAX_CONNECTIONS_PER_ADDRESS: wholeNumber(1_000_000),
};

type Settings = { [Name in keyof typeof LISTENER_LIMIT_VARIABLES]: number | undefined };

/** The limits the variables ask for, the defaults where unset; a contradiction goes to `problems`. */
export function listenerLimits(e: Settings | undefined, behindProxy: boolean, problems: string[]): ListenerLimits {
  const defaults = DEFAULT_LISTENER_LIMITS;
  const requestTimeout = e?.REQUEST_TIMEOUT_MS ?? defaults.requestTimeout;
  // Node refuses a headers deadline past the whole request's, so a shorter request timeout pulls
  // the default headers timeout down with it; an explicit one past it is an error.
  const headersTimeout =
    e?.HEADERS_TIMEOUT_MS ??
    (requestTimeout > 0 ? Math.min(defaults.headersTimeout, requestTimeout) : defaults.headersTimeout);
  if (headersTimeout > 0 && requestTimeout > 0 && headersTimeout > requestTimeout)
    problems.push(
      `HEADERS_TIMEOUT_MS: ${headersTimeout} is longer than REQUEST_TIMEOUT_MS (${requestTimeout}), which includes the headers`,
    );
  return {
    handshakeTimeout: e?.TLS_HANDSHAKE_TIMEOUT_MS ?? defaults.handshakeTimeout,
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: e?.KEEP_ALIVE_TIMEOUT_MS ?? defaults.keepAliveTimeout,
    maxConnections: e?.MAX_CONNECTIONS ?? defaults.maxConnections,
    // Behind TRUST_PROXY every connection comes from a proxy: a per-address cap would cap the
    // proxy, so it is off there unless set (the proxy is where per-client limits belong).
    maxConnectionsPerAddress: e?.MAX_CONNECTIONS_PER_ADDRESS ?? (behindProxy ? 0 : defaults.maxConnectionsPerAddress),
  };
}
