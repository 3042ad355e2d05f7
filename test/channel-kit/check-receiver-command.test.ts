import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { newWebhookSecret, type ReceiverReport } from '../../clients/channel-kit/src/index.ts';
import { expressReceiver, verifying } from '../support/kit-receivers.ts';
import { runNode } from '../support/processes.ts';
import { startReceiver } from '../support/receiver.ts';

/**
 * `channel-kit check-receiver` as a developer runs it, against real receivers on loopback: what
 * it prints and its exit status, for a correct receiver, one on another secret, none at all and
 * one that accepts anything; every rule it cites stated in its own output, with where the
 * project's contract page states it.
 */

const CLI = path.resolve(import.meta.dirname, '../../clients/channel-kit/src/cli.ts');
const ROWS = /^ {2}(PASS|FAIL|ERROR|NOT RUN) /;

async function checkReceiverCommand(url: string, secret: string, ...extra: string[]) {
  const exit = await runNode(CLI, ['check-receiver', '--url', url, '--secret', secret, ...extra], {});
  expect(exit.stderr).toBe('');
  // A rule is cited where a channel holding the kit can read it, never by a bare number.
  expect(exit.stdout).not.toMatch(/receiver rule \d|versioning rule|SPEC\.md|the contract's receiver rules/i);
  return { ...exit, rows: exit.stdout.split('\n').filter((line) => ROWS.test(line)) };
}

describe('channel-kit check-receiver', () => {
  test('prints a row per check and exits 0 for a correct receiver', async () => {
    const secret = newWebhookSecret();
    const { code, stdout, rows } = await checkReceiverCommand(await expressReceiver(verifying([secret])), secret);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(
      /^Checking http:\/\/127\.0\.0\.1:\d+\/hooks against the receiver rules \(docs\/contract\.md#receiving-webhooks\)$/,
    );
    expect(rows).toHaveLength(12);
    expect(rows.every((row) => row.startsWith('  PASS '))).toBe(true);
    expect(stdout).toMatch(/\n12 checks: 12 passed, 0 failed$/m);
  });

  test('a receiver on another secret is told so first, with the last four characters, and nothing else fails', async () => {
    const secret = newWebhookSecret();
    const { code, stdout, rows } = await checkReceiverCommand(
      await expressReceiver(verifying([newWebhookSecret()])),
      secret,
    );
    expect(code).toBe(1);
    const [heading, blank, first] = stdout.split('\n');
    expect([heading, blank]).toEqual([expect.stringMatching(/^Checking /), '']);
    expect(first).toBe(
      `Your receiver refused a delivery signed with the secret you gave (it answered 400): same secret? ` +
        `The secret given ends in …${secret.slice(-4)}. None of the other cases was sent: no verdict means anything until this delivery is accepted.`,
    );
    expect(stdout).not.toContain(secret.slice(-5));
    expect(rows[0]).toMatch(
      /^ {2}FAIL {5}answer +a valid delivery is answered 2xx in time +400 in \d+ ms: not accepted$/,
    );
    expect(rows.slice(1)).toHaveLength(11);
    for (const row of rows.slice(1))
      expect(row).toMatch(/^ {2}NOT RUN {2}.* not sent: the correctly signed delivery before it was not accepted$/);
    expect(stdout).toMatch(/\n12 checks: 0 passed, 1 failed, 11 not run$/m);
    // None of the remedies of the other rules, which would all be wrong here.
    expect(stdout).not.toMatch(/FAILED|express\.raw|webhook-id the second time|Not observable/);
  });

  test('with nothing listening it says so, prints no verdicts and exits 1', async () => {
    const gone = await startReceiver({ tls: false });
    await gone.close();
    const { code, stdout, rows } = await checkReceiverCommand(gone.url, newWebhookSecret());
    expect(code).toBe(1);
    expect(rows).toEqual([]);
    expect(stdout.trim().split('\n').slice(1)).toEqual([
      '',
      `No answer from ${gone.url}: connection refused (ECONNREFUSED). Is your receiver running, listening at this address and port? ` +
        'None of the other cases was sent: no verdict means anything until this delivery is accepted.',
    ]);
  });

  test('fails loudly for a receiver that accepts anything, the signature rule first, each rule stated', async () => {
    const { code, stdout } = await checkReceiverCommand(
      await expressReceiver((_req, res) => void res.sendStatus(202)),
      newWebhookSecret(),
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /FAIL {5}signature +a delivery signed with another secret is refused +202 in \d+ ms: accepted, should be refused/,
    );
    const verdicts = stdout.slice(stdout.indexOf('12 checks'));
    expect(verdicts).toMatch(
      /^12 checks: 7 passed, 5 failed\n\nFAILED signature: accept a delivery only when one of its v1 signatures matches \(docs\/contract\.md#receiving-webhooks, rule 3\)\n {2}Your receiver accepted a delivery signed with another secret/,
    );
    expect(verdicts).toMatch(
      /\nFAILED timestamp: refuse a webhook-timestamp more than 5 minutes from your clock \(docs\/contract\.md#receiving-webhooks, rule 1\)\n/,
    );
    expect(stdout).toMatch(
      /that the named resource is read and applied only at a higher version \(docs\/contract\.md#receiving-webhooks, rule 5\)/,
    );
  });

  test('with --json prints the report as one document', async () => {
    const url = await expressReceiver((_req, res) => void res.sendStatus(204));
    const { code, stdout } = await checkReceiverCommand(url, newWebhookSecret(), '--json');
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as ReceiverReport;
    expect(report).toMatchObject({ url, passed: false, stopped: null, failedRules: ['signature', 'timestamp'] });
    expect(report.checks).toHaveLength(12);
    expect(report.findings.map((finding) => finding.rule)).toEqual(['signature', 'timestamp']);
  });
});
