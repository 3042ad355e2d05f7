import { ConnectionException } from '@mikro-orm/core';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
/**
 * PostgreSQL's codes for "no connection", and only those: connection_exception, connection does
 * not exist, connection failure, unable to establish, rejected establishment, admin / crash
 * shutdown, cannot connect now, too many connections. Other 08xxx codes are not on the list: 08P01
 * (protocol violation) is what the server answers to SQL text it cannot take, a fault of this
 * code that a retry repeats forever, so it is a 500 like any other bug.
 */
const POSTGRES_UNAVAILABLE = new Set(['08000', '08003', '08006', '08001', '08004', '57P01', '57P02', '57P03', '53300']);
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;
/** The pg client's and pool's own words for a lost or unobtainable connection (they carry no code). */
const CONNECTION_MESSAGES =
  /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/** True when the failure is a dependency out of reach rather than a fault of this code. */
export function isServiceUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ConnectionException) return true;
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.has(code))) return true;
    if (name === 'ServiceError' || name === 'TransportError') {
      const grpcCode = (e as { code?: unknown }).code;
      if (grpcCode === GRPC_UNAVAILABLE || grpcCode === GRPC_DEADLINE_EXCEEDED || grpcCode === undefined) return true;
    }
    if (e instanceof Error && CONNECTION_MESSAGES.test(e.message)) return true;
  }
  return false;
}
