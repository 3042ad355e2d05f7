import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { freshDatabase } from '../support/database.ts';
import { onCleanup } from '../support/cleanup.ts';
import { freePort, runStart, startEnv, type StartProcess } from '../support/start-process.ts';

// docs/channels.md "Certification: from a test key to a passing report", walked as a newcomer walks
// it: `npm start` once (the first hour), the first hour's step 1 (the demo catalogue and the key),
// then the section's own commands in its order, each run by bash as written. Where the guide says
// to note a value (`WHK=whk_...`), the walker copies it from what the command before printed, as a
// reader copies it; the app's port 3443 becomes a free one. The walk is timed, and held to the
// goal of thirty minutes (the section says two to three).

const ROOT = path.resolve(import.meta.dirname, '../..');
const guide = readFileSync(path.join(ROOT, 'docs/channels.md'), 'utf8');
const WALK_LIMIT_MS = 30 * 60_000;

/** The text under a heading, up to the next heading of the same or a higher level (outside code blocks). */
function section(heading: string): string {
  const lines = guide.split('\n');
  const start = lines.indexOf(heading);
  expect(start, heading).toBeGreaterThan(-1);
  const level = /^#+/.exec(heading)![0].length;
  let fenced = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i += 1) {
    if (lines[i]!.startsWith('```')) fenced = !fenced;
    else if (!fenced && new RegExp(`^#{1,${level}} `).test(lines[i]!)) {
      end = i;
      break;
    }
  }
  return lines.slice(start + 1, end).join('\n');
}

/** The commands of each ```sh block: continuation lines joined, comments and blank lines dropped. */
function commands(text: string): string[][] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map(([, block]) =>
    block!
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.replace(/\s+#\s.*$/, '').trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bash(line: string, env: Record<string, string>, timeoutMs: number): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${line} ran past ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A command left running (`… &`): its output kept, killed with its process group at the end. */
function background(line: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn('bash', ['-c', line], { cwd: ROOT, env: { ...process.env, ...env }, detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  onCleanup(() => {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  return { child, output: () => output };
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `NAME=prefix...` or `export NAME=prefix...`: a value the reader copies from the last output. */
const NOTED = /^(?:export )?([A-Z_]+)=([a-z_]+_)\.\.\.$/;
/** `export NAME=$OTHER` and the like: evaluated by bash in the walk's environment. */
const ASSIGNED = /^(?:export )?([A-Z_]+)=(\S+)$/;

async function walk(lines: string[], env: Record<string, string>, log: string[]): Promise<Ran | undefined> {
  let last: Ran | undefined;
  for (const line of lines) {
    log.push(`$ ${line}`);
    const noted = NOTED.exec(line);
    if (noted) {
      const value = new RegExp(`\\b${noted[2]}[A-Za-z0-9+/=_-]+`).exec(last?.stdout ?? '')?.[0];
      expect(value, `${line}: nothing like it in what the command before printed`).toBeDefined();
      env[noted[1]!] = value!;
      continue;
    }
    const assigned = ASSIGNED.exec(line);
    if (assigned) {
      env[assigned[1]!] = (await bash(`printf %s ${assigned[2]}`, env, 10_000)).stdout;
      continue;
    }
    if (line.endsWith('&')) {
      const app = background(line.slice(0, -1).trim(), env);
      await until('the app listening', () => /listening on/.test(app.output()), 60_000);
      log.push(app.output());
      continue;
    }
    last = await bash(line, env, 15 * 60_000);
    log.push(last.stdout, last.stderr);
    if (!/channel-kit -- certify/.test(line)) expect(last.code, `${line}\n${last.stdout}\n${last.stderr}`).toBe(0);
  }
  return last;
}

async function started(env: Record<string, string | undefined>): Promise<StartProcess> {
  const start = runStart(env);
  await start.printed('Ctrl-C stops everything.');
  return start;
}

test(
  'the certification guide, walked as written with the reference app, ends in a passing report within 30 minutes',
  async () => {
    const env = await startEnv({ DATABASE_URL: (await freshDatabase()).url, PORT: String(await freePort()) });
    // The first hour's start, which made the development certificate the guide's CA names.
    const first = await started(env);
    const base = /API +(https:\/\/\S+)/.exec(first.output().stdout)![1]!;
    const ca = /certificate +self-signed: (\S+)/.exec(first.output().stdout)![1]!;
    first.terminate();
    await first.exit();

    const certification = section('## Certification: from a test key to a passing report');
    const [[restart], steps] = commands(certification) as [string[], string[]];
    const appPort = String(await freePort());
    const walked: Record<string, string> = {
      BASE: base,
      CA: ca,
      DATA_DIR: env.DATA_DIR!,
      DATABASE_URL: env.DATABASE_URL!,
    };
    const log: string[] = [];
    const began = Date.now();

    // Step 1, as written: the variables before `npm start` are the restart's.
    const restartVars = /^((?:[A-Z_]+=\S+ )+)npm start$/.exec(restart!);
    expect(restartVars, restart).not.toBeNull();
    const extra: Record<string, string> = {};
    for (const assignment of restartVars![1]!.trim().split(' ')) {
      const [name, value] = assignment.split('=') as [string, string];
      extra[name] = (await bash(`printf %s ${value}`, walked, 10_000)).stdout;
    }
    await started({ ...env, ...extra });

    // The first hour's step 1: the demo catalogue and the key the section says it uses.
    const [keyStep] = commands(section('### 1. A key'));
    await walk(keyStep!, walked, log);
    expect(walked.KEY).toMatch(/^svc_test_/);

    // Step 2, as written, with the app on a free port.
    const certified = await walk(
      steps.map((line) =>
        line.replaceAll(':3443', `:${appPort}`).replace('CHANNEL_APP_PORT=3443', `CHANNEL_APP_PORT=${appPort}`),
      ),
      walked,
      log,
    );
    const tookMs = Date.now() - began;
    console.log(`certification guide walked in ${(tookMs / 60_000).toFixed(1)} minutes\n${certified?.stdout ?? ''}`);
    expect(certified?.code, log.join('\n')).toBe(0);
    expect(certified!.stdout).toMatch(/passed/i);
    expect(certified!.stdout).not.toMatch(/\bFAILED\b/);
    expect(tookMs).toBeLessThan(WALK_LIMIT_MS);
  },
  35 * 60_000,
);
