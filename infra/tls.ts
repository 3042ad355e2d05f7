import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** True for the generated development certificate, which clients must be told to trust. */
  selfSigned: boolean;
  certPath: string;
}

/**
 * The certificate the API serves: TLS_CERT/TLS_KEY files when given; otherwise a self-signed
 * certificate for localhost generated once into `dataDir/tls` and reused on every start.
 */
export async function loadTlsMaterial(options: { certPath?: string; keyPath?: string; dataDir: string }): Promise<TlsMaterial> {
  if (options.certPath && options.keyPath) {
    return { cert: await readFile(options.certPath, 'utf8'), key: await readFile(options.keyPath, 'utf8'), selfSigned: false, certPath: options.certPath };
  }
  if (options.certPath || options.keyPath) throw new Error('TLS_CERT and TLS_KEY go together');
  const dir = path.resolve(options.dataDir, 'tls');
  const certPath = path.join(dir, 'localhost.crt');
  const keyPath = path.join(dir, 'localhost.key');
  if (!existsSync(certPath) || !existsSync(keyPath)) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 397 * 24 * 3600 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
      ],
    });
    await writeFile(keyPath, pems.private, { mode: 0o600 });
    await writeFile(certPath, pems.cert);
  }
  return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8'), selfSigned: true, certPath };
}
