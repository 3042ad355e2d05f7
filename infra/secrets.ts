import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { keyRing, type KeyRing, type ServerKey } from '../domain/key-ring.ts';

export interface ServiceSecrets {
  /** Keys cursor tags, sealed secrets and approximate points; the same in every process of a deployment. */
  ring: KeyRing;
  /** SHA-256 of the platform's token for /internal/v1; the token itself is not kept. */
  platformTokenHash: Uint8Array;
}

export function sha256(text: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(text).digest());
}

export interface SecretsConfig {
  dataDir: string;
  serverSecret: string | undefined;
  /** `SERVER_SECRETS`: `<id>:<secret>` entries separated by commas, ids 1-999999. */
  serverSecrets?: string | undefined;
  serverGeoSecret?: string | undefined;
  platformToken: string | undefined;
}

/**
 * The server key ring, SERVER_SECRET and PLATFORM_TOKEN from the environment; where neither server
 * secret nor the token is set (the embedded development setup), a random value generated once into
 * DATA_DIR/secrets (mode 0600) and shared by the API, the worker and the CLI through that directory.
 *
 * Ring: `SERVER_SECRET` is key 0 and every `SERVER_SECRETS` entry adds its id; the highest id tags
 * and seals. Approximate points are keyed by `SERVER_GEO_SECRET`, else by key 0; with neither the
 * service refuses to start, since guessing would move every approximate point.
 */
export async function loadSecrets(config: SecretsConfig): Promise<ServiceSecrets> {
  const token =
    config.platformToken ??
    (await generatedOnce(
      config.dataDir,
      'platform-token',
      () => `svc_platform_${randomBytes(32).toString('base64url')}`,
    ));
  const legacy =
    config.serverSecret ??
    (config.serverSecrets
      ? undefined
      : await generatedOnce(config.dataDir, 'server-secret', () => randomBytes(32).toString('base64url')));
  return {
    ring: parseKeyRing({
      serverSecret: legacy,
      serverSecrets: config.serverSecrets,
      serverGeoSecret: config.serverGeoSecret,
    }),
    platformTokenHash: sha256(token),
  };
}

const encode = (text: string) => new TextEncoder().encode(text);

/** Throws an Error naming the variable at fault; never echoes a secret. */
export function parseKeyRing(config: {
  serverSecret: string | undefined;
  serverSecrets: string | undefined;
  serverGeoSecret: string | undefined;
}): KeyRing {
  const keys: ServerKey[] = config.serverSecret === undefined ? [] : [{ id: 0, secret: encode(config.serverSecret) }];
  for (const [index, entry] of (config.serverSecrets ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .entries()) {
    const match = /^([1-9]\d{0,5}):(.+)$/.exec(entry);
    if (!match) throw new Error(`SERVER_SECRETS: entry ${index + 1} is not <id>:<secret> with an id from 1 to 999999`);
    if (match[2]!.length < 32)
      throw new Error(`SERVER_SECRETS: the secret of key ${match[1]} is shorter than 32 characters`);
    if (keys.some((key) => key.id === Number(match[1])))
      throw new Error(`SERVER_SECRETS: key ${match[1]} is given twice`);
    keys.push({ id: Number(match[1]), secret: encode(match[2]!) });
  }
  if (keys.length === 0) throw new Error('SERVER_SECRET or SERVER_SECRETS: no server secret');
  if (config.serverGeoSecret !== undefined && config.serverGeoSecret.length < 32)
    throw new Error('SERVER_GEO_SECRET: shorter than 32 characters');
  const geo = config.serverGeoSecret ?? config.serverSecret;
  if (geo === undefined)
    throw new Error(
      'SERVER_GEO_SECRET: required once SERVER_SECRET is retired (the secret approximate points were keyed with, so they do not move)',
    );
  return keyRing(keys, encode(geo));
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
