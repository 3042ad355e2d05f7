import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadConfig, SECRET_VARIABLES } from '../../app/config.ts';
import { DEFAULT_LISTENER_LIMITS } from '../../infra/listener-limits.ts';

const SECRET = 'file-server-secret-0123456789abcdef0123456789';
const TOKEN = 'file-platform-token-0123456789abcdefghijklmnop';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-config-'));
  await writeFile(path.join(dir, 'server-secret'), `${SECRET}\n`);
  await writeFile(path.join(dir, 'platform-token'), TOKEN);
  await writeFile(path.join(dir, 'database-url'), 'postgres://svc:pa55@db.internal:5432/distribution\n');
  await writeFile(path.join(dir, 'smtp-url'), 'smtps://mailer:pa55@mail.example:465\n');
  await writeFile(path.join(dir, 'temporal-api-key'), 'temporal-key\n');
});

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('TRUST_PROXY', () => {
  test('a hop count or proxy addresses and CIDRs, as Express takes them', () => {
    expect(loadConfig({}).http.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).http.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).http.trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).http.trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1/32, 10.0.0.0/8,::1,fd00::/8, loopback' }).http.trustProxy).toEqual([
      '127.0.0.1/32',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
  });

  test('a bare true (every hop trusted) and anything that is not an address are refused at startup, naming the variable', () => {
    expect(refusal({ TRUST_PROXY: 'true' })).toMatch(/TRUST_PROXY: `true` trusts every hop/);
    expect(refusal({ TRUST_PROXY: '10.0.0.0/33' })).toMatch(
      /TRUST_PROXY: not an address, CIDR or hop count: 10\.0\.0\.0\/33/,
    );
    expect(refusal({ TRUST_PROXY: 'proxy.internal' })).toMatch(/TRUST_PROXY/);
  });
});

describe('secrets from files', () => {
  test('each variable of SECRET_VARIABLES may name a file instead; one trailing newline is dropped', () => {
    const config = loadConfig({
      SERVER_SECRET_FILE: path.join(dir, 'server-secret'),
      PLATFORM_TOKEN_FILE: path.join(dir, 'platform-token'),
      DATABASE_URL_FILE: path.join(dir, 'database-url'),
      SMTP_URL_FILE: path.join(dir, 'smtp-url'),
      TEMPORAL_API_KEY_FILE: path.join(dir, 'temporal-api-key'),
    });
    expect(config.serverSecret).toBe(SECRET);
    expect(config.platformToken).toBe(TOKEN);
    expect(config.databaseUrl).toBe('postgres://svc:pa55@db.internal:5432/distribution');
    expect(config.mail.smtpUrl).toBe('smtps://mailer:pa55@mail.example:465');
    expect(config.temporal.apiKey).toBe('temporal-key');
    // The five read above are the whole list.
    expect([...SECRET_VARIABLES].sort()).toEqual([
      'DATABASE_URL',
      'PLATFORM_TOKEN',
      'SERVER_SECRET',
      'SMTP_URL',
      'TEMPORAL_API_KEY',
    ]);
  });

  test('both forms at once, or an unreadable file, stop the start naming the variable and not the secret', () => {
    expect(refusal({ SERVER_SECRET: SECRET, SERVER_SECRET_FILE: path.join(dir, 'server-secret') })).toMatch(
      /SERVER_SECRET_FILE: set either SERVER_SECRET or SERVER_SECRET_FILE/,
    );
    const missing = refusal({ PLATFORM_TOKEN_FILE: path.join(dir, 'nowhere') });
    expect(missing).toMatch(/PLATFORM_TOKEN_FILE: cannot read .*nowhere \(ENOENT\)/);
    const tooShort = refusal({ SERVER_SECRET_FILE: path.join(dir, 'temporal-api-key') });
    expect(tooShort).toMatch(/SERVER_SECRET/);
    expect(tooShort).not.toContain('temporal-key');
  });
});

describe('the platform interface listener', () => {
  test('production gives it a loopback listener of its own; the sandbox serves it on the public one unless INTERNAL_PORT is set', () => {
    expect(loadConfig({ SVC_ENVIRONMENT: 'production' }).internal).toEqual({ host: '127.0.0.1', port: 8444 });
    expect(loadConfig({}).internal).toBeUndefined();
    expect(loadConfig({ INTERNAL_PORT: '9444' }).internal).toEqual({ host: '127.0.0.1', port: 9444 });
    expect(
      loadConfig({ SVC_ENVIRONMENT: 'production', INTERNAL_HOST: '10.0.0.5', INTERNAL_PORT: '9000' }).internal,
    ).toEqual({ host: '10.0.0.5', port: 9000 });
  });
});

describe('mail and Temporal', () => {
  test('plain SMTP only when asked for', () => {
    expect(loadConfig({ SMTP_URL: 'smtp://relay:25' }).mail.allowPlain).toBe(false);
    expect(loadConfig({ SMTP_URL: 'smtp://relay:25', SMTP_ALLOW_PLAIN: 'true' }).mail.allowPlain).toBe(true);
  });

  test('Temporal TLS and API key settings; none means plain gRPC', () => {
    expect(loadConfig({}).temporal.tls).toBeUndefined();
    expect(loadConfig({ TEMPORAL_TLS: 'true' }).temporal.tls).toEqual({});
    expect(
      loadConfig({
        TEMPORAL_TLS_CERT: '/c.pem',
        TEMPORAL_TLS_KEY: '/k.pem',
        TEMPORAL_TLS_CA: '/ca.pem',
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      }).temporal.tls,
    ).toEqual({ certFile: '/c.pem', keyFile: '/k.pem', caFile: '/ca.pem', serverName: 'temporal.internal' });
    const cloud = loadConfig({ TEMPORAL_API_KEY: 'k' }).temporal;
    expect(cloud.apiKey).toBe('k');
    expect(cloud.tls).toEqual({});
    expect(refusal({ TEMPORAL_TLS_CERT: '/c.pem' })).toMatch(/TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/);
  });
});

describe("npm start's embedded servers", () => {
  test('take their ports from EMBEDDED_PG_PORT, EMBEDDED_TEMPORAL_PORT and EMBEDDED_TEMPORAL_UI_PORT; a bad one stops the process by name', () => {
    expect(loadConfig({}).embedded).toEqual({ postgresPort: 54329, temporalPort: 7233, temporalUiPort: 8233 });
    expect(
      loadConfig({ EMBEDDED_PG_PORT: '15432', EMBEDDED_TEMPORAL_PORT: '17233', EMBEDDED_TEMPORAL_UI_PORT: '18233' })
        .embedded,
    ).toEqual({ postgresPort: 15432, temporalPort: 17233, temporalUiPort: 18233 });
    expect(refusal({ EMBEDDED_PG_PORT: 'postgres' })).toMatch(/EMBEDDED_PG_PORT/);
    expect(refusal({ EMBEDDED_TEMPORAL_PORT: '70000' })).toMatch(/EMBEDDED_TEMPORAL_PORT/);
    expect(refusal({ EMBEDDED_TEMPORAL_UI_PORT: '0' })).toMatch(/EMBEDDED_TEMPORAL_UI_PORT/);
  });
});

describe('listener limits', () => {
  test('unset or empty: the defaults (handshake 10 s, headers 15 s, request 60 s, keep-alive 5 s, 1,000 and 100 connections)', () => {
    const expected = {
      handshakeTimeout: 10_000,
      headersTimeout: 15_000,
      requestTimeout: 60_000,
      keepAliveTimeout: 5_000,
      maxConnections: 1_000,
      maxConnectionsPerAddress: 100,
    };
    expect(DEFAULT_LISTENER_LIMITS).toEqual(expected);
    expect(loadConfig({}).http.limits).toEqual(expected);
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '', MAX_CONNECTIONS: ' ' }).http.limits).toEqual(expected);
  });

  test('each variable sets its limit; 0 is off', () => {
    expect(
      loadConfig({
        TLS_HANDSHAKE_TIMEOUT_MS: '0',
        HEADERS_TIMEOUT_MS: '300',
        REQUEST_TIMEOUT_MS: '1500',
        KEEP_ALIVE_TIMEOUT_MS: '65000',
        MAX_CONNECTIONS: '0',
        MAX_CONNECTIONS_PER_ADDRESS: '7',
      }).http.limits,
    ).toEqual({
      handshakeTimeout: 0,
      headersTimeout: 300,
      requestTimeout: 1500,
      keepAliveTimeout: 65_000,
      maxConnections: 0,
      maxConnectionsPerAddress: 7,
    });
  });

  test('anything but a whole number in range is refused at startup, naming the variable', () => {
    expect(refusal({ REQUEST_TIMEOUT_MS: '-1' })).toMatch(
      /REQUEST_TIMEOUT_MS: a whole number from 0 \(off\) to 3600000/,
    );
    expect(refusal({ KEEP_ALIVE_TIMEOUT_MS: '5s' })).toMatch(/KEEP_ALIVE_TIMEOUT_MS/);
    expect(refusal({ MAX_CONNECTIONS: '1.5' })).toMatch(/MAX_CONNECTIONS: a whole number/);
    expect(refusal({ TLS_HANDSHAKE_TIMEOUT_MS: '3600001' })).toMatch(/TLS_HANDSHAKE_TIMEOUT_MS/);
  });

  test('a headers timeout longer than the request timeout is refused; a shorter request timeout lowers the default one', () => {
    expect(refusal({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toMatch(
      /HEADERS_TIMEOUT_MS: 20000 is longer than REQUEST_TIMEOUT_MS \(10000\)/,
    );
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '10000' }).http.limits.headersTimeout).toBe(10_000);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '0', HEADERS_TIMEOUT_MS: '20000' }).http.limits.headersTimeout).toBe(
      20_000,
    );
  });

  test('behind TRUST_PROXY the per-address cap is off unless set: every connection comes from the proxy', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).http.limits.maxConnectionsPerAddress).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8' }).http.limits.maxConnectionsPerAddress).toBe(0);
    expect(
      loadConfig({ TRUST_PROXY: '1', MAX_CONNECTIONS_PER_ADDRESS: '500' }).http.limits.maxConnectionsPerAddress,
    ).toBe(500);
  });
});
