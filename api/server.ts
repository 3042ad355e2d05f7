import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import {
  capConnections,
  DEFAULT_LISTENER_LIMITS,
  listenerOptions,
  type ListenerLimits,
} from '../infra/listener-limits.ts';
import { connectionsRefused } from '../infra/metrics.ts';
import { serverTlsOptions, type TlsMaterial } from '../infra/tls.ts';
import { clientKey } from './middleware/client-address.ts';
import { requestId } from './middleware/request-id.ts';
import { refusePlainHttp } from './middleware/https-only.ts';

export interface Listening {
  url: string;
  plainUrl: string | undefined;
  /** The platform interface's own listener, when it has one. */
  internalUrl: string | undefined;
  close: () => Promise<void>;
}

/** The plain-HTTP port refuses everything; it never redirects, so a key sent there is not relayed. */
function plainHttpRefusal(publicOrigin: string): Express {
  const app = express();
  app.disable('x-powered-by');
  app.locals.publicOrigin = publicOrigin;
  app.use(requestId);
  app.use(refusePlainHttp);
  return app;
}

function listenOn(server: http.Server | https.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: http.Server | https.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

type ListenerName = 'public' | 'internal' | 'plain';

/**
 * The limits on one listener, refusals counted under its name. The internal listener has no
 * per-address cap: the platform is its one caller, so the cap would only be a lower maxConnections.
 */
function limited<S extends http.Server | https.Server>(server: S, limits: ListenerLimits, listener: ListenerName): S {
  capConnections(server, limits, {
    ...(listener === 'internal' ? {} : { keyOf: clientKey }),
    onRefused: (reason) => connectionsRefused.inc({ listener, reason }),
  });
  return server;
}

/**
 * TLS 1.2+ (AEAD suites only) on `port`; the refusing plain listener on `plainPort` unless it is
 * null; and the platform interface's app on a TLS listener of its own when `internal` is given.
 * Each bounds its slow and numerous clients by `limits` (the defaults unless given).
 */
export async function listen(
  app: Express,
  options: {
    host: string;
    port: number;
    plainPort: number | null;
    tls: TlsMaterial;
    publicOrigin: string;
    internal?: { app: Express; host: string; port: number };
    limits?: ListenerLimits;
  },
): Promise<Listening> {
  const limits = options.limits ?? DEFAULT_LISTENER_LIMITS;
  const tlsOptions = { ...serverTlsOptions(options.tls), ...listenerOptions(limits) };
  const secure = limited(https.createServer(tlsOptions, app), limits, 'public');
  const securePort = await listenOn(secure, options.host, options.port);
  let internal: https.Server | undefined;
  let internalPort: number | undefined;
  if (options.internal) {
    internal = limited(https.createServer(tlsOptions, options.internal.app), limits, 'internal');
    internalPort = await listenOn(internal, options.internal.host, options.internal.port);
  }
  let plain: http.Server | undefined;
  let plainPort: number | undefined;
  if (options.plainPort !== null) {
    plain = limited(
      http.createServer(listenerOptions(limits), plainHttpRefusal(options.publicOrigin)),
      limits,
      'plain',
    );
    plainPort = await listenOn(plain, options.host, options.plainPort);
  }
  return {
    url: `https://localhost:${securePort}`,
    plainUrl: plainPort === undefined ? undefined : `http://localhost:${plainPort}`,
    internalUrl: internalPort === undefined ? undefined : `https://localhost:${internalPort}`,
    close: async () => {
      await Promise.all([secure, plain, internal].map((server) => (server ? closeServer(server) : Promise.resolve())));
    },
  };
}
