import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface ServiceSecrets {
  /** Keys cursor tags and approximate points; the same in every process of a deployment. */
  server: Uint8Array;
  /** SHA-256 of the platform's token for /internal/v1; the token itself is not kept. */
  platformTokenHash: Uint8Array;
}

export function sha256(text: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(text).digest());
}

/**
 * SERVER_SECRET and PLATFORM_TOKEN from the environment; where one is absent (the embedded
 * development setup), a random value generated once into DATA_DIR/secrets (mode 0600) and shared
 * by the API, the worker and the CLI through that directory.
 */
export async function loadSecrets(config: { dataDir: string; serverSecret: string | undefined; platformToken: string | undefined }): Promise<ServiceSecrets> {
  const server = config.serverSecret ?? (await generatedOnce(config.dataDir, 'server-secret', () => randomBytes(32).toString('base64url')));
  const token = config.platformToken ?? (await generatedOnce(config.dataDir, 'platform-token', () => `svc_platform_${randomBytes(32).toString('base64url')}`));
  return { server: new TextEncoder().encode(server), platformTokenHash: sha256(token) };
}

/** Where the development platform token lives, for the README and the start banner. */
export function platformTokenPath(dataDir: string): string {
  return path.resolve(dataDir, 'secrets', 'platform-token');
}

async function generatedOnce(dataDir: string, name: string, generate: () => string): Promise<string> {
  const dir = path.resolve(dataDir, 'secrets');
  const file = path.join(dir, name);
  if (!existsSync(file)) {
    // DATA_DIR itself keeps the default mode: the embedded PostgreSQL runs as another user and
    // must reach its own directory inside it. Only the secrets directory is closed.
    await mkdir(path.resolve(dataDir), { recursive: true });
    await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    // `wx`: two processes starting together keep whichever wrote first.
    await writeFile(file, `${generate()}\n`, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  return (await readFile(file, 'utf8')).trim();
}
