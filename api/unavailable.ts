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
/**
 * PostgreSQL's refusals of a new session. Class 28 (invalid authorization: the role may not log in,
 * does not exist, a wrong password, a `reject` line of pg_hba.conf) is raised only there. 55000 and
 * 3D000 are known by the server routine that raises them while it sets a session up (the `routine`
 * field, the same whatever the server's `lc_messages`): the database does not accept connections
 * (`ALTER DATABASE … ALLOW_CONNECTIONS false`) or is gone. The same codes raised by a statement
 * (55000 for a sequence's `currval` before `nextval`, 3D000 for a statement naming a database that
 * does not exist) are faults of this code, and stay 500.
 */
const POSTGRES_SESSION_REFUSED = new Set(['28000', '28P01']);
const POSTGRES_SESSION_REFUSED_IN = new Set(['55000 CheckMyDatabase', '3D000 InitPostgres']);
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;
/** The pg client's and pool's own words for a lost or unobtainable connection (they carry no code). */
const CONNECTION_MESSAGES =
  /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/** True when the failure is a dependency out of reach rather than a fault of this code. */
export function isServiceUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ConnectionException) return true;
    const { code, name, routine } = e as { code?: unknown; name?: unknown; routine?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.has(code))) return true;
    if (typeof code === 'string' && POSTGRES_SESSION_REFUSED.has(code)) return true;
    if (typeof code === 'string' && POSTGRES_SESSION_REFUSED_IN.has(`${code} ${String(routine)}`)) return true;
    if (name === 'ServiceError' || name === 'TransportError') {
      const grpcCode = (e as { code?: unknown }).code;
      if (grpcCode === GRPC_UNAVAILABLE || grpcCode === GRPC_DEADLINE_EXCEEDED || grpcCode === undefined) return true;
    }
    if (e instanceof Error && CONNECTION_MESSAGES.test(e.message)) return true;
  }
  return false;
}
