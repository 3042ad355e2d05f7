import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './processes.ts';
import { onCleanup } from './cleanup.ts';

/** `npm run start:api` as a separate OS process on ephemeral ports; stopped after the file. */
export async function startApiProcess(env: Record<string, string>): Promise<{ url: string; ca: string }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-api-proc-'));
  const child = spawn(process.execPath, ['scripts/api.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HTTP_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', PUBLIC_ORIGIN: 'https://distribution.test', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  onCleanup(() => {
    child.kill('SIGTERM');
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`api process did not start: ${buffered}`)), 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"message":"api listening".*?"url":"(https:\/\/localhost:\d+)"/.exec(buffered);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`api process exited ${code}: ${buffered}`)));
  });
  return { url, ca: await readFile(path.join(dataDir, 'tls', 'localhost.crt'), 'utf8') };
}
