import { EMBEDDED_PG_PORT, startEmbeddedPostgres } from '../../infra/embedded-postgres.ts';
import { onFreeLoopbackPort } from '../../infra/ports.ts';

/**
 * Runs an embedded PostgreSQL in a process of its own (the test run's, and the chaos run's), so
 * that a test file's process never holds it. Prints the server URL as one JSON line; stops the
 * server when its parent closes stdin or sends SIGTERM or SIGINT.
 *
 * `postgres-child.ts DATA_DIR any` takes a free port of the system's choosing (the test run: a
 * default `npm start` beside it holds EMBEDDED_PG_PORT's default); without it, EMBEDDED_PG_PORT.
 */
const [dataDir, portChoice] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: postgres-child.ts DATA_DIR [any]');

const server =
  portChoice === 'any'
    ? await onFreeLoopbackPort((port) => startEmbeddedPostgres(dataDir, { port }))
    : await startEmbeddedPostgres(dataDir, { port: EMBEDDED_PG_PORT });
process.stdout.write(`${JSON.stringify({ serverUrl: server.serverUrl })}\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await server.stop();
  process.exit(0);
}
process.stdin.on('end', () => void stop());
process.stdin.on('close', () => void stop());
process.stdin.resume();
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
