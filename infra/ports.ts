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
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(PortUnavailable.inUse(use));
      else if (error.code === 'EACCES')
        reject(
          new PortUnavailable(
            `port ${use.port} for ${use.what} may not be bound by this user (ports below 1024 need privileges); set ${use.variable} to a port above 1023`,
          ),
        );
      else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
        reject(
          new PortUnavailable(`${use.host}, where ${use.variable} would be bound, is not an address of this machine`),
        );
      else reject(error);
    });
    probe.listen({ host: use.host, port: use.port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** A port free on the loopback address now, for a child that cannot be told to pick its own. */
export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
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
