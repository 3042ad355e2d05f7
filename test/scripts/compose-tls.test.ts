import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSecureContext } from 'node:tls';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { loadTlsMaterial, serverTlsOptions } from '../../infra/tls.ts';

// `npm run compose:tls`: the TLS pair docker-compose.yml mounts into the API, run as an operator would.

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

async function composeTls(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/compose-tls.ts', ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('compose:tls', () => {
  test('writes a certificate for localhost and the names given, with its key (mode 0600), which the API serves', async () => {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'compose-tls-')), 'tls');
    const result = await composeTls('--dir', dir, '--name', 'api.example.com', '--name', '10.0.0.5');
    expect(result.code, result.stderr).toBe(0);
    const certPath = path.join(dir, 'tls.crt');
    const keyPath = path.join(dir, 'tls.key');
    expect(JSON.parse(result.stdout)).toMatchObject({ cert: certPath, key: keyPath });

    const cert = new X509Certificate(await readFile(certPath));
    expect(cert.subject).toBe('CN=api.example.com');
    expect(cert.subjectAltName).toBe(
      'DNS:api.example.com, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.0.0.5',
    );
    expect(cert.checkHost('api.example.com')).toBe('api.example.com');
    expect(cert.checkIP('10.0.0.5')).toBe('10.0.0.5');
    expect(cert.checkPrivateKey(createPrivateKey(await readFile(keyPath)))).toBe(true);
    expect(new Date(cert.validTo).getTime() - Date.now()).toBeGreaterThan(390 * 86_400_000);
    expect((await stat(keyPath)).mode & 0o777).toBe(0o600);

    // The API's own loading of TLS_CERT / TLS_KEY, and a TLS context with its options.
    const material = await loadTlsMaterial({ certPath, keyPath, dataDir: dir });
    expect(material.selfSigned).toBe(false);
    expect(() => createSecureContext(serverTlsOptions(material))).not.toThrow();
  });

  test('refuses to replace an existing pair unless --force, and refuses a name that is no host name or address', async () => {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'compose-tls-')), 'tls');
    expect((await composeTls('--dir', dir)).code).toBe(0);
    const before = await readFile(path.join(dir, 'tls.crt'), 'utf8');

    const again = await composeTls('--dir', dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--force replaces them/);
    expect(await readFile(path.join(dir, 'tls.crt'), 'utf8')).toBe(before);

    expect((await composeTls('--dir', dir, '--force')).code).toBe(0);
    expect(await readFile(path.join(dir, 'tls.crt'), 'utf8')).not.toBe(before);

    const bad = await composeTls('--dir', dir, '--force', '--name', 'not a host');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/neither a host name nor an IP address/);
  });
});
