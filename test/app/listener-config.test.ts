import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../app/config.ts';
import { DEFAULT_LISTENER_LIMITS } from '../../infra/listener-limits.ts';

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

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
