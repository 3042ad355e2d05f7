/**
 * bench/bare-catalogue.ts's bare `node:https` + `pg` server as a process of its own, for
 * bench/catalogue-pair.ts: BARE_DATABASE_URL, BARE_CHANNEL_ID, and the certificate the service
 * serves (TLS_CERT, TLS_KEY). Prints one JSON line `{"url": …}` once it listens; SIGTERM stops it.
 */
import { readFile } from 'node:fs/promises';
import { startBareCatalogue } from './bare-catalogue.ts';

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`bench/bare-catalogue-server.ts needs ${name}`);
  return value;
};

const tls = {
  cert: await readFile(need('TLS_CERT'), 'utf8'),
  key: await readFile(need('TLS_KEY'), 'utf8'),
  selfSigned: true,
  certPath: need('TLS_CERT'),
};
const server = await startBareCatalogue(need('BARE_DATABASE_URL'), tls, need('BARE_CHANNEL_ID'));
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
