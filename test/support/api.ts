import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { loadConfig, type ServiceConfig } from '../../app/config.ts';
import { createApp } from '../../api/app.ts';
import { listen } from '../../api/server.ts';
import type { Clock } from '../../domain/clock.ts';
import { createLogger, type Logger } from '../../infra/logger.ts';
import { loadSecrets } from '../../infra/secrets.ts';
import { loadTlsMaterial } from '../../infra/tls.ts';
import { serviceDeps } from '../../services/deps.ts';
import { request, type HttpResponse } from './https-client.ts';
import { onCleanup } from './cleanup.ts';

export interface TestApi {
  url: string;
  plainUrl: string;
  /** The platform interface's own listener, when the test's env sets INTERNAL_PORT. */
  internalUrl: string | undefined;
  config: ServiceConfig;
  ca: string;
  call: (
    method: string,
    path: string,
    options?: { key?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string | Buffer },
  ) => Promise<HttpResponse>;
  close: () => Promise<void>;
}

let tlsDir: Promise<string> | undefined;

export const TEST_SERVER_SECRET = 'test-server-secret-0123456789abcdef0123456789';
export const TEST_PLATFORM_TOKEN = 'svc_platform_test-token-0123456789abcdefghijklmnop';

/** The real app over real TLS on ephemeral ports, with the plain-HTTP refusal listener beside it. */
export async function startTestApi(deps: {
  orm: MikroORM;
  temporal: Client;
  clock: Clock;
  env?: Record<string, string>;
  log?: Logger;
}): Promise<TestApi> {
  tlsDir ??= mkdtemp(path.join(os.tmpdir(), 'svc-test-tls-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: await tlsDir,
    LOG_LEVEL: 'silent',
    SERVER_SECRET: TEST_SERVER_SECRET,
    PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
    ...deps.env,
  });
  const tls = await loadTlsMaterial({ dataDir: config.dataDir });
  const publicOrigin = 'https://distribution.test';
  const appDeps = serviceDeps({
    orm: deps.orm,
    temporal: deps.temporal,
    clock: deps.clock,
    config,
    log: deps.log ?? createLogger(config.logLevel),
    secrets: await loadSecrets(config),
  });
  const app = createApp(appDeps, { publicOrigin, surface: config.internal ? 'public' : 'all' });
  const internal = config.internal
    ? { host: '127.0.0.1', port: config.internal.port, app: createApp(appDeps, { publicOrigin, surface: 'internal' }) }
    : undefined;
  const listening = await listen(app, {
    host: '127.0.0.1',
    port: 0,
    plainPort: 0,
    tls,
    publicOrigin,
    limits: config.http.limits,
    ...(internal ? { internal } : {}),
  });
  const api: TestApi = {
    url: listening.url,
    plainUrl: listening.plainUrl!,
    internalUrl: listening.internalUrl,
    config,
    ca: tls.cert,
    call: (method, p, options = {}) =>
      request(listening.url, tls.cert, method, p, {
        headers: { ...(options.key ? { authorization: `Bearer ${options.key}` } : {}), ...options.headers },
        ...(options.body !== undefined ? { body: options.body } : {}),
        ...(options.rawBody !== undefined ? { rawBody: options.rawBody } : {}),
      }),
    close: listening.close,
  };
  onCleanup(() => api.close());
  return api;
}
