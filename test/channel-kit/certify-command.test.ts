import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { selfSignedCertificate } from '../../infra/tls.ts';
import { onCleanup } from '../support/cleanup.ts';
import { runNode } from '../support/processes.ts';

/**
 * `channel-kit certify` as a developer runs it, against answers given here over HTTPS (the run's
 * own behaviour is test/e2e/certify.test.ts's): the exit code follows the run's state, the table
 * closes the output, `--no-browser` writes the hand-off page for a person, and a refusal prints
 * its code.
 */

const CLI = path.resolve(import.meta.dirname, '../../clients/channel-kit/src/cli.ts');
const HAND_OFF = {
  owner_id: 'own_1',
  token: 'ey.hand.off',
  redirect_url: 'https://channel.example/owner-connect',
  window_ends_at: '2026-11-28T23:00:00Z',
};
let base: string;
let ca: string;
/** Per key: the answers to the run's reads, in order. */
const scripts = new Map<string, object[]>();

function run(state: 'running' | 'passed' | 'failed', handOff: typeof HAND_OFF | null = null) {
  return {
    certification_id: 'crt_1',
    webhook_id: 'whk_1',
    state,
    started_at: '2026-11-28T22:00:00Z',
    finished_at: state === 'running' ? null : '2026-11-28T22:05:00Z',
    step: state === 'running' ? 'Waiting for you to confirm the owner connection handed off' : null,
    hand_off: handOff,
    rules: [
      {
        rule: 'refuses_wrong_secret',
        title: 'Refuses a wrong secret',
        outcome: state === 'running' ? 'pending' : state === 'passed' ? 'passed' : 'failed',
        evidence: state === 'failed' ? 'answered 204' : state === 'passed' ? 'answered 400' : '',
      },
    ],
  };
}

beforeAll(async () => {
  const tls = await selfSignedCertificate({ dns: ['localhost'], ips: ['127.0.0.1'] });
  ca = path.join(await mkdtemp(path.join(os.tmpdir(), 'certify-command-')), 'ca.crt');
  await writeFile(ca, tls.cert);
  const server = https.createServer(tls, (req, res) => {
    const key = (req.headers.authorization ?? '').replace('Bearer ', '');
    const json = (status: number, body: object) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (key === 'svc_test_refused')
      return json(409, {
        type: 'https://distribution.test/problems/certification_not_possible',
        title: 'Not possible',
        status: 409,
        code: 'certification_not_possible',
        detail: 'A run of your channel is still running',
        request_id: 'req_1',
      });
    const answers = scripts.get(key) ?? [];
    if (req.method === 'POST') return json(202, run('running'));
    return json(200, answers.length > 1 ? answers.shift()! : answers[0]!);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  base = `https://localhost:${(server.address() as AddressInfo).port}/api/v1/distribution`;
});

const certify = (key: string, ...args: string[]) =>
  runNode(CLI, ['certify', '--webhook', 'whk_1', '--base-url', base, '--ca', ca, ...args], {
    DISTRIBUTION_API_KEY: key,
  });

test('--no-browser writes the hand-off page for a person to open; a passed run exits 0 after its table', async () => {
  scripts.set('svc_test_passed', [run('running', HAND_OFF), run('passed')]);
  const { code, stdout, stderr } = await certify('svc_test_passed', '--no-browser');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  const page = /owner connect: open file:\/\/(\S+) in a browser and confirm there, by 2026-11-28T23:00:00Z$/m.exec(
    stdout,
  );
  expect(page, stdout).not.toBeNull();
  const html = await readFile(page![1]!, 'utf8');
  expect(html).toContain('<form method="post" action="https://channel.example/owner-connect">');
  expect(html).toContain('<input type="hidden" name="token" value="ey.hand.off">');
  // The page holds the token: its owner alone reads it.
  expect((await stat(page![1]!)).mode & 0o777).toBe(0o600);
  expect(stdout.trimEnd().split('\n').slice(-5)).toEqual([
    'rule                  outcome        evidence',
    '-'.repeat(45),
    'refuses_wrong_secret  passed         answered 400',
    '',
    'Certification crt_1 passed.',
  ]);
});

test('a failed run exits 1, its failed rule told as judged and in the table', async () => {
  scripts.set('svc_test_failed', [run('failed')]);
  const { code, stdout } = await certify('svc_test_failed');
  expect(code).toBe(1);
  expect(stdout).toMatch(/^\d\d:\d\d:\d\d {2}FAILED {8}refuses_wrong_secret: answered 204$/m);
  expect(stdout).toContain('refuses_wrong_secret  FAILED         answered 204');
  expect(stdout.trimEnd().split('\n').at(-1)).toBe('Certification crt_1 failed: 1 rule failed.');
});

test('a refused start exits 1 with its code, why, and the request id', async () => {
  const { code, stdout, stderr } = await certify('svc_test_refused');
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toBe(
    'channel-kit: 409 certification_not_possible: A run of your channel is still running\n  request req_1\n',
  );
});
