import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generate } from 'selfsigned';

/**
 * AEAD suites only, forward secret: the TLS 1.3 suites and ECDHE with AES-GCM or ChaCha20-Poly1305
 * for TLS 1.2. CBC suites (SHA-1 or SHA-2 MAC, Lucky13-style padding oracles) are not offered.
 */
export const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** Options of every TLS listener the service opens. */
export const serverTlsOptions = (material: TlsMaterial) =>
  ({
    cert: material.cert,
    key: material.key,
    minVersion: 'TLSv1.2',
    ciphers: TLS_CIPHERS,
    honorCipherOrder: true,
  }) as const;

export interface TlsMaterial {
  cert: string;
  key: string;
  /** True for the generated development certificate, which clients must be told to trust. */
  selfSigned: boolean;
  certPath: string;
}

/** The names a self-signed certificate covers: DNS names and IP addresses (its subjectAltName). */
export interface CertificateNames {
  dns: readonly string[];
  ips: readonly string[];
}

/**
 * A self-signed server certificate (EC P-256, SHA-256) for `names`, valid `days` days (397 at
 * most is what browsers accept); its common name is the first DNS name. PEM text.
 */
export async function selfSignedCertificate(
  names: CertificateNames,
  days = 397,
): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: names.dns[0] ?? names.ips[0] ?? 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + days * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...names.dns.map((value) => ({ type: 2 as const, value })),
          ...names.ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/**
 * The certificate the API serves: TLS_CERT/TLS_KEY files when given; otherwise a self-signed
 * certificate for localhost generated once into `dataDir/tls` and reused on every start.
 */
export async function loadTlsMaterial(options: {
  certPath?: string;
  keyPath?: string;
  dataDir: string;
}): Promise<TlsMaterial> {
  if (options.certPath && options.keyPath) {
    return {
      cert: await readFile(options.certPath, 'utf8'),
      key: await readFile(options.keyPath, 'utf8'),
      selfSigned: false,
      certPath: options.certPath,
    };
  }
  if (options.certPath || options.keyPath) throw new Error('TLS_CERT and TLS_KEY go together');
  const dir = path.resolve(options.dataDir, 'tls');
  const certPath = path.join(dir, 'localhost.crt');
  const keyPath = path.join(dir, 'localhost.key');
  if (!existsSync(certPath) || !existsSync(keyPath)) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const pems = await selfSignedCertificate({ dns: ['localhost'], ips: ['127.0.0.1', '::1'] });
    await writeFile(keyPath, pems.key, { mode: 0o600 });
    await writeFile(certPath, pems.cert);
  }
  return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8'), selfSigned: true, certPath };
}
