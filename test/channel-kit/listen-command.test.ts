import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, test } from 'vitest';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { newWebhookSecret, verifyWebhook } from '../../clients/channel-kit/src/index.ts';
import { FileCursorStore } from '../../clients/channel-kit/src/node.ts';
import { startListenBed } from '../support/channel-kit.ts';
import { onCleanup } from '../support/cleanup.ts';
import { runNode } from '../support/processes.ts';
import { startReceiver } from '../support/receiver.ts';

/**
 * `channel-kit listen` as a developer runs it: a child process with the channel's key in its
 * environment, forwarding to a plain-HTTP receiver on this machine, its position in a state file.
 */

const CLI = path.resolve(import.meta.dirname, '../../clients/channel-kit/src/cli.ts');

let bed: Awaited<ReturnType<typeof startListenBed>>;
let ca: string;

beforeAll(async () => {
  bed = await startListenBed('channel-kit-listen-command', 'klc');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'channel-kit-ca-'));
  ca = path.join(dir, 'localhost.crt');
  await writeFile(ca, bed.service.api.ca);
});

/** A developer's receiver on plain HTTP, and the arguments forwarding to it with a state file of the test's own. */
async function setUp() {
  const receiver = await startReceiver({ tls: false });
  onCleanup(() => receiver.close());
  const state = path.join(await mkdtemp(path.join(os.tmpdir(), 'channel-kit-listen-')), 'listen.json');
  const args = [CLI, 'listen', '--base-url', bed.baseUrl, '--forward-to', receiver.url, '--ca', ca, '--state', state];
  return { receiver, state, args };
}

describe('channel-kit listen', () => {
  test('prints its generated secret and one line per event, stops on SIGINT and resumes from its state file', async () => {
    const { receiver, state, args } = await setUp();
    await bed.change();
    const first = command([...args, '--json', '--from', 'oldest']);
    const secretLine = await first.next((line) => line.kind === 'secret');
    const secret = secretLine.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const expected = await bed.logEvents();
    await first.next((line) => line.kind === 'forwarded' && (line.event as { id: string }).id === expected.at(-1)!.id);
    const firstExit = await first.interrupt();
    expect(firstExit.code).toBe(0);
    expect(firstExit.lines.at(-1)).toMatchObject({ kind: 'stopped', forwarded: expected.length, failed: 0 });
    const received = receiver.received.map((request) => verifyWebhook(request.body, request.headers, secret));
    expect(received).toEqual(expected);

    const saved = await readFile(state, 'utf8');
    expect(saved).not.toContain(bed.key);
    expect(Object.values(JSON.parse(saved) as Record<string, { cursor: string }>)[0]!.cursor).toBeTruthy();

    // The next run, with the same secret, forwards the change made while it was stopped, and only that.
    await bed.change();
    const second = command([...args, '--json', '--secret', secret]);
    const forwarded = await second.next((line) => line.kind === 'forwarded');
    const secondExit = await second.interrupt();
    expect(secondExit.code).toBe(0);
    expect(secondExit.lines[0]).toMatchObject({ kind: 'start', from: 'saved', replaced: null });
    expect(secondExit.lines.some((line) => line.kind === 'secret')).toBe(false);
    expect(receiver.received).toHaveLength(expected.length + 1);
    expect(forwarded).toMatchObject({ status: 204, event: { type: 'property.updated' } });
  });

  test('an explicit --from oldest wins over the saved position and says it replaces it; with --cursor it is refused', async () => {
    const { receiver, state, args } = await setUp();
    const secret = newWebhookSecret();
    await bed.change();
    const expected = await bed.logEvents();
    // A run that stopped at the log's end saved its position there.
    const saved = await bed.logEnd();
    await new FileCursorStore(state, bed.baseUrl, bed.key).save(saved);

    const run = command([...args, '--secret', secret, '--from', 'oldest']);
    const start = await run.next((line) => line.text.startsWith('Forwarding'));
    expect(start.text).toBe(
      `Forwarding the events of ${bed.baseUrl} to ${receiver.url}, starting from the log's oldest kept event; ` +
        `the saved position (cursor ${saved.length > 16 ? `${saved.slice(0, 12)}…` : saved}, where the last run stopped) is replaced. Ctrl-C stops.`,
    );
    await receiver.waitFor(expected.length);
    expect((await run.interrupt()).code).toBe(0);
    expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual(
      expected.map((event) => event.id),
    );

    const both = await runNode(CLI, [...args.slice(1), '--from', 'oldest', '--cursor', saved], {
      DISTRIBUTION_API_KEY: bed.key,
    });
    expect(both.code).toBe(2);
    expect(both.stderr.split('\n')[0]).toBe('channel-kit: --cursor and --from each name where to start: give one');
  });

  test('refuses a base URL that is not https://, from --base-url or DISTRIBUTION_API_URL, before sending anything', async () => {
    // What a plain-HTTP address would reach: nothing may arrive here, the key least of all.
    const arrived: string[] = [];
    const plain = http.createServer((req, res) => {
      arrived.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(401, { 'content-type': 'application/problem+json' }).end('{"status":401}');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise((resolve) => plain.close(resolve)));
    const plainBase = `http://127.0.0.1:${(plain.address() as AddressInfo).port}${DISTRIBUTION_BASE}`;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'channel-kit-plain-'));
    const args = ['listen', '--json', '--forward-to', 'http://127.0.0.1:9/hooks', '--state', path.join(dir, 'l.json')];

    for (const [given, extraArgs, extraEnv] of [
      ['--base-url', ['--base-url', plainBase], {}],
      ['DISTRIBUTION_API_URL', [], { DISTRIBUTION_API_URL: plainBase }],
    ] as const) {
      const exit = await runNode(CLI, [...args, ...extraArgs], { DISTRIBUTION_API_KEY: bed.key, ...extraEnv }, 30_000);
      expect(exit.code, given).toBe(2);
      expect(exit.stderr.split('\n')[0], given).toMatch(/^channel-kit: --base-url .*https:\/\/.*compromised/);
      expect(exit.stdout, given).toBe('');
    }
    expect(arrived).toEqual([]);
  });
});

type Line = Record<string, unknown> & { text: string };

/** The command as a child process with the channel's key in its environment; each line of its stdout, parsed when JSON. */
function command(args: string[]) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, DISTRIBUTION_API_KEY: bed.key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onCleanup(() => child.kill('SIGKILL'));
  const lines: Line[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    lines.push({ ...(text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {}), text });
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    next: async (match: (line: Line) => boolean) => {
      for (let i = 0; i < 300; i++) {
        const found = lines.find(match);
        if (found) return found;
        if (child.exitCode !== null) break;
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      throw new Error(`no such line; the command printed ${JSON.stringify(lines)} ${stderr}`);
    },
    interrupt: async () => {
      child.kill('SIGINT');
      const code = await exited;
      return { code, lines, stderr };
    },
  };
}
