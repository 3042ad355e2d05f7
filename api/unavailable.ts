import { ConnectionException } from '@mikro-orm/core';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);
// Postgres: connection exceptions (08*), admin shutdown, crash shutdown, cannot connect now.
const POSTGRES_UNAVAILABLE = /^(08...|57P01|57P02|57P03)$/;
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/** True when the failure is a dependency out of reach rather than a fault of this code. */
export function isServiceUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ConnectionException) return true;
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code))) return true;
    if (name === 'ServiceError' || name === 'TransportError') {
      const grpcCode = (e as { code?: unknown }).code;
      if (grpcCode === GRPC_UNAVAILABLE || grpcCode === GRPC_DEADLINE_EXCEEDED || grpcCode === undefined) return true;
    }
    if (e instanceof Error && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(e.message)) return true;
  }
  return false;
}
