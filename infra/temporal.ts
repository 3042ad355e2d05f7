import { readFileSync } from 'node:fs';
import { Client, Connection, type ClientOptions, type TLSConfig } from '@temporalio/client';
import { temporalClientInterceptors } from './tracing.ts';

/** How to reach the Temporal frontend: files are paths to PEM files, read when connecting. */
export interface TemporalConnectionSettings {
  address: string;
  tls?: { certFile?: string; keyFile?: string; caFile?: string; serverName?: string };
  apiKey?: string;
}

/**
 * The options both the client's Connection and the worker's NativeConnection take: mTLS client
 * pair, a private CA and a server name override when configured, and an API key (which needs TLS).
 */
export function temporalConnectionOptions(settings: TemporalConnectionSettings): {
  address: string;
  tls?: TLSConfig;
  apiKey?: string;
} {
  const { tls, apiKey } = settings;
  const read = (file: string) => readFileSync(file);
  return {
    address: settings.address,
    ...(tls
      ? {
          tls: {
            ...(tls.certFile && tls.keyFile
              ? { clientCertPair: { crt: read(tls.certFile), key: read(tls.keyFile) } }
              : {}),
            ...(tls.caFile ? { serverRootCACertificate: read(tls.caFile) } : {}),
            ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
          },
        }
      : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/**
 * A client on `connection`; with tracing on, each call it makes (a workflow's start, a signal)
 * carries the caller's span to the workflow.
 */
export function temporalClient(connection: ClientOptions['connection'], namespace: string): Client {
  const interceptors = temporalClientInterceptors();
  return new Client({ connection, namespace, ...(interceptors ? { interceptors } : {}) });
}

/** A Temporal client on `settings.address` (or a bare address); `close` ends its connection. */
export async function connectTemporalClient(
  settings: TemporalConnectionSettings | string,
  namespace: string,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect(
    temporalConnectionOptions(typeof settings === 'string' ? { address: settings } : settings),
  );
  return { client: temporalClient(connection, namespace), close: () => connection.close() };
}
