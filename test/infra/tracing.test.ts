import { describe, expect, test } from 'vitest';
import { tracingSettings } from '../../infra/tracing.ts';
import { runNode } from '../support/processes.ts';

const ENDPOINT = 'http://collector:4318';

const refusal = (env: Record<string, string>) => {
  try {
    tracingSettings(env);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('which OTEL_* variables turn tracing on', () => {
  test.each([
    ['nothing set', {}],
    ['only a service name', { OTEL_SERVICE_NAME: 'svc' }],
    ['only a protocol', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }],
    ['an empty endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }],
    ['an endpoint with the exporter `none`', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }],
    ['an endpoint with the SDK disabled', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }],
    ['the console exporter with the SDK disabled', { OTEL_TRACES_EXPORTER: 'console', OTEL_SDK_DISABLED: 'TRUE' }],
  ])('off: %s', (_case, env) => {
    expect(tracingSettings(env)).toBeUndefined();
  });

  test.each([
    ['an OTLP endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, { exporters: ['otlp'], protocol: 'http/protobuf' }],
    [
      'a traces endpoint, JSON',
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      { exporters: ['otlp'], protocol: 'http/json' },
    ],
    [
      'the traces protocol over the general one',
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      },
      { exporters: ['otlp'], protocol: 'http/json' },
    ],
    ['the exporter named', { OTEL_TRACES_EXPORTER: 'otlp' }, { exporters: ['otlp'], protocol: 'http/protobuf' }],
    [
      'two exporters, once each',
      { OTEL_TRACES_EXPORTER: 'console, OTLP,otlp' },
      { exporters: ['console', 'otlp'], protocol: 'http/protobuf' },
    ],
    [
      'the console alone, whatever the protocol',
      { OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      { exporters: ['console'] },
    ],
  ])('on: %s', (_case, env, settings) => {
    expect(tracingSettings(env)).toEqual(settings);
  });

  test.each([
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      'OTEL_EXPORTER_OTLP_PROTOCOL: grpc',
    ],
    [
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' },
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    ],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER: zipkin not supported'],
    [{ OTEL_TRACES_EXPORTER: 'none,otlp' }, '`none` goes alone'],
  ])('refused, naming the variable: %j', (env, message) => {
    expect(refusal(env)).toContain(message);
  });
});

/**
 * A process that imports infra/tracing.ts first, starts tracing with `env`, then loads the app (API
 * and worker: Express, MikroORM, pg, the Temporal client) and reports what of OpenTelemetry it holds.
 */
async function probe(env: Record<string, string>) {
  const script = `
    const { createRequire } = await import('node:module');
    const tracing = await import('./infra/tracing.ts');
    const started = await tracing.startTracing('all', ${JSON.stringify(env)});
    await import('./app/processes.ts');
    const require = createRequire(process.cwd() + '/');
    const pg = require('pg');
    const sdk = Object.keys(require.cache).filter((file) =>
      /node_modules\\/(@opentelemetry\\/(?!api\\/)|import-in-the-middle|require-in-the-middle|@temporalio\\/interceptors-opentelemetry)/.test(file));
    process.stdout.write(JSON.stringify({
      on: started.on,
      sdkModules: sdk.length,
      pgPatched: typeof pg.Client.prototype.query.__wrapped === 'boolean',
      clientInterceptors: tracing.temporalClientInterceptors() !== undefined,
      worker: tracing.temporalWorkerTracing() !== undefined,
    }));
    await started.shutdown();`;
  const run = await runNode('--input-type=module', ['-e', script], { LOG_LEVEL: 'silent' });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

test('off, a process loads nothing of the SDK, patches nothing and gives Temporal no interceptor; on, it does all three', async () => {
  expect(await probe({ OTEL_SERVICE_NAME: 'svc' })).toEqual({
    on: false,
    sdkModules: 0,
    pgPatched: false,
    clientInterceptors: false,
    worker: false,
  });
  const on = await probe({ OTEL_TRACES_EXPORTER: 'console' });
  expect(on).toMatchObject({ on: true, pgPatched: true, clientInterceptors: true, worker: true });
  expect(on.sdkModules).toBeGreaterThan(0);
});
