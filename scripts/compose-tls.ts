/**
 * `npm run compose:tls -- [--name HOST]... [--dir DIR] [--days N] [--chown UID] [--force]`: writes
 * the TLS material docker-compose.yml mounts into the API (`./tls/tls.crt`, `./tls/tls.key`): a
 * self-signed certificate for localhost, 127.0.0.1, ::1 and every `--name` (a DNS name or an IP
 * address the API is reached by). A certificate from a CA goes in the same two files instead.
 * Refuses to replace existing files unless `--force`. The key is written mode 0600; the API's
 * container runs as the image's `node` user (uid 1000), which must own it: `--chown 1000` when
 * this runs as root. Prints one JSON document; a refusal prints one line on stderr and exits 2.
 */
import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { selfSignedCertificate } from '../infra/tls.ts';

function refuse(message: string): never {
  console.error(message);
  process.exit(2);
}

function options() {
  try {
    return parseArgs({
      options: {
        name: { type: 'string', multiple: true, default: [] },
        dir: { type: 'string', default: 'tls' },
        days: { type: 'string', default: '397' },
        chown: { type: 'string' },
        force: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
}

const values = options();

const days = Number(values.days);
if (!Number.isInteger(days) || days < 1 || days > 397) refuse('--days is a whole number of days, 1 to 397');
const uid = values.chown === undefined ? undefined : Number(values.chown);
if (uid !== undefined && !(Number.isInteger(uid) && uid >= 0)) refuse('--chown is a numeric user id');
const hostname = /^(?=.{1,253}$)([a-z0-9*]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const extra = values.name.map((name) => name.trim());
const bad = extra.find((name) => !isIP(name) && !hostname.test(name));
if (bad !== undefined) refuse(`--name ${JSON.stringify(bad)} is neither a host name nor an IP address`);

// The first name given is the certificate's common name.
const dns = [...new Set([...extra.filter((name) => !isIP(name)).map((name) => name.toLowerCase()), 'localhost'])];
const ips = [...new Set(['127.0.0.1', '::1', ...extra.filter((name) => isIP(name))])];
const dir = path.resolve(values.dir);
const certPath = path.join(dir, 'tls.crt');
const keyPath = path.join(dir, 'tls.key');
if (!values.force && (existsSync(certPath) || existsSync(keyPath)))
  refuse(`${path.relative(process.cwd(), dir) || dir} already holds tls.crt or tls.key; --force replaces them`);

const pems = await selfSignedCertificate({ dns, ips }, days);
await mkdir(dir, { recursive: true, mode: 0o755 });
await writeFile(keyPath, pems.key, { mode: 0o600 });
await writeFile(certPath, pems.cert, { mode: 0o644 });
// A replaced file keeps its mode otherwise.
await chmod(keyPath, 0o600);
await chmod(certPath, 0o644);
if (uid !== undefined) {
  await chown(keyPath, uid, uid);
  await chown(certPath, uid, uid);
}
console.log(JSON.stringify({ cert: certPath, key: keyPath, dns, ips, days, owner: uid ?? process.getuid?.() ?? null }));
