import type { ServerOptions } from 'node:http';
import type { Server, Socket } from 'node:net';

/**
 * What a client may hold of a listener, and for how long. Times in milliseconds; 0 turns a limit
 * off. docs/decisions.md "Slow and numerous clients" gives the reasons for the defaults.
 */
export interface ListenerLimits {
  /** TCP accept to finished TLS handshake (TLS listeners only). */
  handshakeTimeout: number;
  /**
   * Connection (after the handshake) or first byte of a request to the end of its headers. Node
   * holds a connection that has sent nothing yet to this deadline too: it is what closes a silent
   * connection, not `server.timeout`, which stays 0.
   */
  headersTimeout: number;
  /** The same start to the request's last body byte: bounds a body trickled slowly. Sending the answer is not covered. */
  requestTimeout: number;
  /** Idle time after an answer before a kept-alive connection is closed (Node adds 1 s, its `keepAliveTimeoutBuffer`). */
  keepAliveTimeout: number;
  /** Open connections per listener. */
  maxConnections: number;
  /** Open connections per client address (IPv6 by /64) per listener, where the listener applies it. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_LISTENER_LIMITS: ListenerLimits = {
  handshakeTimeout: 10_000,
  headersTimeout: 15_000,
  requestTimeout: 60_000,
  keepAliveTimeout: 5_000,
  maxConnections: 1_000,
  maxConnectionsPerAddress: 100,
};

/**
 * Node checks the headers and request deadlines only every `connectionsCheckingInterval` (30 s
 * by default), so a 15 s deadline could hold a connection 45 s: check at a quarter of the shorter
 * one, at most once a second (a walk over the connections still receiving a request).
 */
function checkingInterval(limits: ListenerLimits): number {
  const deadlines = [limits.headersTimeout, limits.requestTimeout].filter((ms) => ms > 0);
  if (deadlines.length === 0) return 30_000;
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(...deadlines) / 4)));
}

/** Options of `http.createServer` / `https.createServer` (with the TLS options beside them). */
export function listenerOptions(limits: ListenerLimits): ServerOptions & { handshakeTimeout: number } {
  return {
    handshakeTimeout: limits.handshakeTimeout,
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
    connectionsCheckingInterval: checkingInterval(limits),
  };
}

export type RefusalReason = 'max_connections' | 'per_address';

/**
 * Applies the connection caps to a listener. Node's `maxConnections` closes a connection past it
 * before anything reads it (and 0 there would refuse every connection, so 0 leaves it unset). The
 * per-address cap counts open sockets by `keyOf(remoteAddress)` and destroys the excess as it
 * arrives, before the TLS handshake costs anything; `keyOf` undefined leaves it off.
 */
export function capConnections(
  server: Server,
  limits: ListenerLimits,
  options: { keyOf?: (address: string) => string; onRefused?: (reason: RefusalReason) => void },
): void {
  if (limits.maxConnections > 0) {
    server.maxConnections = limits.maxConnections;
    server.on('drop', () => options.onRefused?.('max_connections'));
  }
  const { keyOf } = options;
  const perAddress = limits.maxConnectionsPerAddress;
  if (!keyOf || perAddress === 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    // No address: the peer is already gone, and the socket closes on its own.
    if (socket.remoteAddress === undefined) return;
    const key = keyOf(socket.remoteAddress);
    const held = open.get(key) ?? 0;
    if (held >= perAddress) {
      socket.destroy();
      options.onRefused?.('per_address');
      return;
    }
    open.set(key, held + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
