import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { onCleanup } from '../support/cleanup.ts';
import { freshDatabase } from '../support/database.ts';
import { childEnv, ROOT, runNode } from '../support/processes.ts';

// `npm start` with embedded Temporal on the ports the variables name, never attaching to a
// Temporal it did not start.

async function listening(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return server;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Everything `npm start` needs besides Temporal, with its data apart. The API takes ports the
 * system hands it when it binds (0): it binds last, seconds after start, and a port picked free
 * beforehand may meanwhile be taken by another test's process.
 */
async function startEnv(): Promise<Record<string, string | undefined>> {
  const { url } = await freshDatabase();
  return {
    DATABASE_URL: url,
    TEMPORAL_ADDRESS: undefined,
    DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'svc-start-')),
    PORT: '0',
    HTTP_PORT: '0',
    METRICS_PORT: 'off',
    TEMPORAL_METRICS_PORT: 'off',
    LOG_LEVEL: 'error',
  };
}

describe('npm start with embedded Temporal', () => {
  test('refuses in one line naming the port and EMBEDDED_TEMPORAL_PORT when another process holds the port', async () => {
    const { port } = (await listening()).address() as AddressInfo;
    const result = await runNode('scripts/start.ts', [], {
      ...(await startEnv()),
      EMBEDDED_TEMPORAL_PORT: String(port),
      EMBEDDED_TEMPORAL_UI_PORT: String(await freePort()),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('is up');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([
      `start: port ${port} for the embedded Temporal is already in use by another process; stop it or set EMBEDDED_TEMPORAL_PORT to a free port`,
    ]);
  });

  test('refuses the same way when the UI port is held', async () => {
    const { port } = (await listening()).address() as AddressInfo;
    const result = await runNode('scripts/start.ts', [], {
      ...(await startEnv()),
      EMBEDDED_TEMPORAL_PORT: String(await freePort()),
      EMBEDDED_TEMPORAL_UI_PORT: String(port),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `port ${port} for the embedded Temporal is already in use by another process; stop it or set EMBEDDED_TEMPORAL_UI_PORT to a free port`,
    );
  });

  test('starts its Temporal on EMBEDDED_TEMPORAL_PORT and its UI on EMBEDDED_TEMPORAL_UI_PORT', async () => {
    const env = await startEnv();
    const port = await freePort();
    const uiPort = await freePort();
    const child = spawn(process.execPath, ['scripts/start.ts'], {
      cwd: ROOT,
      env: childEnv({ ...env, EMBEDDED_TEMPORAL_PORT: String(port), EMBEDDED_TEMPORAL_UI_PORT: String(uiPort) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    onCleanup(async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('Ctrl-C stops everything.')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`npm start exited with ${String(code)}: ${stderr}`)));
    });
    expect(stdout).toContain(`Temporal UI  http://localhost:${uiPort}`);
    const runtime = JSON.parse(await readFile(path.join(env.DATA_DIR!, 'runtime.json'), 'utf8')) as {
      temporalAddress: string;
    };
    expect(runtime.temporalAddress).toMatch(new RegExp(`:${port}$`));
  }, 120_000);
});
