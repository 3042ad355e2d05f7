import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

/** A port a process binds, and what moves it. */
export interface PortUse {
  /** What binds it, in a sentence: "the embedded PostgreSQL". */
  what: string;
  /** The environment variable that moves it. */
  variable: string;
  host: string;
  port: number;
}

/** The embedded servers' ports (infra/embedded-postgres.ts, infra/embedded-temporal.ts), all on loopback. */
export const postgresPortUse = (port: number): PortUse => ({
  what: 'the embedded PostgreSQL',
  variable: 'EMBEDDED_PG_PORT',
  host: '127.0.0.1',
  port,
});
export const temporalPortUse = (port: number): PortUse => ({
  what: 'the embedded Temporal',
  variable: 'EMBEDDED_TEMPORAL_PORT',
  host: '127.0.0.1',
  port,
});
export const temporalUiPortUse = (port: number): PortUse => ({
  what: 'the Temporal UI',
  variable: 'EMBEDDED_TEMPORAL_UI_PORT',
  host: '127.0.0.1',
  port,
});

/** A port the process cannot take: held by another process, not bindable, or no port at all. */
export class PortUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PortUnavailable';
  }

  /** The one line a held port is refused with: the port, what wanted it, the variable that moves it. */
  static inUse(use: PortUse): PortUnavailable {
    return new PortUnavailable(
      `port ${use.port} for ${use.what} is already in use by another process; stop it or set ${use.variable} to a free port`,
    );
  }
}

/**
 * Refuses a port that another process holds on the address the service binds, before anything
 * binds it. A server that later fails to bind is translated too (infra/child-processes.ts,
 * app/start-ports.ts); checking first means that nothing has started when the refusal comes.
 */
export async function ensurePortFree(use: PortUse): Promise<void> {
  if (!Number.isInteger(use.port) || use.port < 1 || use.port > 65535)
    throw new PortUnavailable(`${use.variable} must be a port number (1-65535), not "${String(use.port)}"`);
  const bound = await bindOnce(use.host, use.port);
  if (bound.code === undefined) return;
  if (bound.code === 'EADDRINUSE') throw PortUnavailable.inUse(use);
  if (bound.code === 'EACCES')
    throw new PortUnavailable(
      `port ${use.port} for ${use.what} may not be bound by this user (ports below 1024 need privileges); set ${use.variable} to a port above 1023`,
    );
  throw new PortUnavailable(`${use.host}, where ${use.variable} would be bound, is not an address of this machine`);
}

/** Why a bind was refused: the port held, a port this user may not bind, or the host not this machine's. */
type Refusal = 'EADDRINUSE' | 'EACCES' | 'EADDRNOTAVAIL';

/**
 * Binds `host:port` alone (0: a port of the system's choosing) and lets it go at once: the port
 * bound, or why it was refused. Any other error is thrown.
 */
async function bindOnce(host: string, port: number): Promise<{ port: number; code?: undefined } | { code: Refusal }> {
  const probe = createServer();
  const refused = await new Promise<Refusal | undefined>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(error.code);
      else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') resolve('EADDRNOTAVAIL');
      else reject(error);
    });
    probe.listen({ host, port, exclusive: true }, () => resolve(undefined));
  });
  if (refused !== undefined) return { code: refused };
  const chosen = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return { port: chosen };
}

/**
 * Where the system's ephemeral range starts: the source ports of outgoing connections come from
 * it, and so do the ports of `listen(0)`. Linux says it in /proc; elsewhere IANA's 49152 stands.
 */
function ephemeralRangeStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const port = Number(start);
    return Number.isInteger(port) && port > 0 ? port : 49152;
  } catch {
    return 49152;
  }
}

/** Ports a child is handed come from here: registered-range ports below the ephemeral range. */
const handedOutFrom = 20000;

/**
 * A port free on the loopback address now, for a child that cannot be told to pick its own.
 * Between this answer and the child's bind the port is nobody's, so it is taken below the
 * ephemeral range: there no outgoing connection's source port and no `listen(0)` lands on it
 * (with many connections open, one in the ephemeral range is taken in that window now and then).
 * Where the system leaves no room below its ephemeral range, the system picks.
 */
export async function freeLoopbackPort(): Promise<number> {
  const below = ephemeralRangeStart();
  if (below - handedOutFrom >= 1000)
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const bound = await bindOnce('127.0.0.1', handedOutFrom + randomInt(below - handedOutFrom));
      if (bound.code === undefined) return bound.port;
    }
  const bound = await bindOnce('127.0.0.1', 0);
  if (bound.code !== undefined) throw new PortUnavailable('no loopback port is free');
  return bound.port;
}

/**
 * Starts a child on a free loopback port; a port found free may be taken before the child binds
 * it (a PortUnavailable), and then another is tried, `attempts` times in all.
 */
export async function onFreeLoopbackPort<T>(start: (port: number) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start(await freeLoopbackPort());
    } catch (error) {
      if (!(error instanceof PortUnavailable) || attempt >= attempts) throw error;
    }
  }
}
