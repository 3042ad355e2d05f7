import { readFile } from 'node:fs/promises';
import type { Response } from 'express';
import { describe, expect, test } from 'vitest';
import {
  checkReceiver,
  newWebhookSecret,
  verifyWebhook,
  type ReceiverReport,
  type ReceiverRule,
} from '../../clients/channel-kit/src/index.ts';
import { fetchTrusting } from '../support/channel-kit.ts';
import { expressReceiver, header, hmacMatches, rawBody, verifying, type Handler } from '../support/kit-receivers.ts';
import { startReceiver } from '../support/receiver.ts';

/**
 * `check-receiver` against real receivers on loopback, written as channels write them: one that
 * keeps every rule, one broken receiver per rule (each failing that rule alone, told the remedy
 * for that breakage), one on another secret, one that drops the connection, and none at all.
 */

const failedRules = (report: ReceiverReport) => report.failedRules;
const notPassing = (report: ReceiverReport) =>
  report.checks.filter((check) => !check.passed).map((check) => check.check);
const verdicts = (report: ReceiverReport) => report.checks.map((check) => check.verdict);

describe('check-receiver', () => {
  test('a receiver that keeps every rule passes every check, with what cannot be observed listed', async () => {
    const secret = newWebhookSecret();
    const report = await checkReceiver({ url: await expressReceiver(verifying([secret])), secret });
    expect(notPassing(report)).toEqual([]);
    expect(report).toMatchObject({ passed: true, stopped: null, failedRules: [], findings: [] });
    expect(report.checks.map((check) => check.rule)).toEqual([
      'answer',
      'raw-body',
      'signature',
      'signature',
      'signature',
      'timestamp',
      'timestamp',
      'rotation',
      'rotation',
      'duplicates',
      'unknown-types',
      'unknown-fields',
    ]);
    expect(report.checks.find((check) => check.rule === 'duplicates')!.answers).toHaveLength(2);
    expect(report.notObservable.join(' ')).toMatch(
      /repeated webhook-id runs once \(deduplicate on webhook-id: docs\/contract\.md#receiving-webhooks, rule 4\)/,
    );
  });

  test('during a rotation a delivery signed with the previous secret alone is checked too', async () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const both = await checkReceiver({
      url: await expressReceiver(verifying([current, previous])),
      secret: current,
      previousSecret: previous,
    });
    expect(both.passed).toBe(true);
    const onlyCurrent = await checkReceiver({
      url: await expressReceiver(verifying([current])),
      secret: current,
      previousSecret: previous,
    });
    expect(failedRules(onlyCurrent)).toEqual(['rotation']);
    expect(notPassing(onlyCurrent)).toEqual(['a delivery signed with the previous secret alone is accepted']);
    expect(onlyCurrent.findings.map((finding) => finding.remedy)).toEqual([
      expect.stringMatching(
        /^Your receiver refused a delivery signed with the previous secret alone: .*verify with both/,
      ),
    ]);
  });

  const broken: [string, ReceiverRule[], RegExp[], (secret: string) => Handler][] = [
    [
      'accepts anything',
      ['signature', 'timestamp'],
      [
        /^Your receiver accepted a delivery signed with another secret and one without webhook-signature: it does not check signatures/,
        /^Your receiver accepted a delivery signed six minutes ago and one signed six minutes ahead: .*replayed/,
      ],
      () => (_req, res) => void res.sendStatus(200),
    ],
    [
      'checks the signature but not the timestamp',
      ['timestamp'],
      [/^Your receiver accepted a delivery signed six minutes ago and one signed six minutes ahead: /],
      (secret) => (req, res) => void res.sendStatus(hmacMatches(secret, req) ? 204 : 401),
    ],
    [
      'verifies re-serialized JSON instead of the raw body',
      ['raw-body'],
      [/^Your receiver refused a correctly signed body laid out .* express\.raw\(\), not express\.json\(\)/],
      (secret) => {
        const verify = verifying([secret]);
        return (req, res) => {
          req.body = Buffer.from(JSON.stringify(JSON.parse(rawBody(req).toString())));
          return verify(req, res);
        };
      },
    ],
    [
      'reads only the first of two signatures',
      ['rotation'],
      [/^Your receiver refused two signatures whose second matches: it reads only the first\. Split/],
      (secret) => {
        const verify = verifying([secret]);
        return (req, res) => {
          req.headers['webhook-signature'] = header(req, 'webhook-signature').split(' ')[0];
          return verify(req, res);
        };
      },
    ],
    [
      'reads only the last of two signatures',
      ['rotation'],
      [/^Your receiver refused two signatures whose first matches: it reads only the last\. Split/],
      (secret) => {
        const verify = verifying([secret]);
        return (req, res) => {
          req.headers['webhook-signature'] = header(req, 'webhook-signature').split(' ').at(-1);
          return verify(req, res);
        };
      },
    ],
    [
      'refuses a webhook-id it has seen',
      ['duplicates'],
      [/^Your receiver refused the same webhook-id the second time: answer 2xx again/],
      (secret) => {
        const seen = new Set<string>();
        const verify = verifying([secret]);
        return (req, res) => {
          const id = header(req, 'webhook-id');
          if (seen.has(id)) return void res.sendStatus(409);
          seen.add(id);
          return verify(req, res);
        };
      },
    ],
    [
      'refuses event types and fields it does not know',
      ['unknown-types', 'unknown-fields'],
      [/^Your receiver refused an event type it does not know/, /^Your receiver refused an event carrying fields/],
      (secret) => (req, res) => {
        const event = verifyWebhook(rawBody(req), req.headers, [secret]) as unknown as Record<string, unknown>;
        const known = ['property.updated', 'property.deleted'].includes(event.type as string);
        const fields = Object.keys(event).every((name) =>
          ['id', 'type', 'occurred_at', 'channel', 'data'].includes(name),
        );
        const dataFields = Object.keys(event.data as object).every((name) =>
          ['object', 'id', 'version'].includes(name),
        );
        res.sendStatus(known && fields && dataFields ? 204 : 422);
      },
    ],
  ];

  test.each(broken)(
    'a receiver that %s fails exactly the rules it breaks, each with the remedy for that breakage',
    async (_name, rules, remedies, make) => {
      const secret = newWebhookSecret();
      const report = await checkReceiver({ url: await expressReceiver(make(secret)), secret });
      expect(failedRules(report)).toEqual(rules);
      expect(report.passed).toBe(false);
      expect(report.findings.map((finding) => [finding.verdict, finding.rule])).toEqual(
        rules.map((rule) => ['fail', rule]),
      );
      expect(report.findings.map((finding) => finding.remedy)).toEqual(
        remedies.map((remedy) => expect.stringMatching(remedy)),
      );
      expect(report.findings[0]!.statement).toMatch(/\(docs\/contract\.md#(receiving-webhooks|versioning), rule \d\)$/);
    },
  );

  test('a receiver answering 2xx only after the limit fails the answer rule alone, naming the slowest answer', async () => {
    const secret = newWebhookSecret();
    const verify = verifying([secret]);
    let slowed = 0;
    const url = await expressReceiver(async (req, res) => {
      // Slow on the third accepted delivery only: the rule is judged over every 2xx of the run.
      if (header(req, 'webhook-signature').split(' ').length === 2 && slowed++ === 0) {
        await new Promise((resolve) => setTimeout(resolve, 700));
      }
      return verify(req, res);
    });
    const report = await checkReceiver({ url, secret, answerWithinMs: 500 });
    expect(failedRules(report)).toEqual(['answer']);
    expect(report.checks[0]!.detail).toMatch(
      /^a 2xx came after \d+ ms \(two signatures, the second matching, are accepted\); the limit is 500 ms$/,
    );
    expect(report.findings[0]!.remedy).toMatch(/^Your receiver answered a valid delivery after the limit: /);
  });

  test('a receiver on another secret is told that first and only that; nothing else is sent', async () => {
    const secret = newWebhookSecret();
    let requests = 0;
    const verify = verifying([newWebhookSecret()]);
    const url = await expressReceiver((req, res) => {
      requests++;
      return verify(req, res);
    });
    const report = await checkReceiver({ url, secret });
    expect(report.stopped).toEqual({
      reason: 'refused',
      message: expect.stringMatching(
        /^Your receiver refused a delivery signed with the secret you gave \(it answered 400\): same secret\? The secret given ends in …(.{4})\. None of the other cases was sent/,
      ),
    });
    expect(report.stopped!.message).toContain(`ends in …${secret.slice(-4)}.`);
    expect(report.stopped!.message).not.toContain(secret.slice(-5));
    expect(requests).toBe(1);
    expect(verdicts(report)).toEqual(['fail', ...Array<string>(11).fill('not_run')]);
    expect(report).toMatchObject({ passed: false, failedRules: ['answer'], findings: [] });
  });

  test('with nothing listening the run stops at once: an error, never a pass, and nothing judged', async () => {
    const gone = await startReceiver({ tls: false });
    await gone.close();
    const report = await checkReceiver({ url: gone.url, secret: newWebhookSecret() });
    expect(report.stopped).toEqual({
      reason: 'unreachable',
      message: expect.stringMatching(
        /^No answer from http:\/\/localhost:\d+\/hooks: connection refused \(ECONNREFUSED\)\. Is your receiver running/,
      ),
    });
    expect(verdicts(report)).toEqual(['error', ...Array<string>(11).fill('not_run')]);
    expect(report.checks[0]!.answers[0]).toMatchObject({ status: null, error: 'connection refused (ECONNREFUSED)' });
    expect(report).toMatchObject({ passed: false, failedRules: [], findings: [] });
  });

  test('a TLS receiver whose certificate is not trusted is unreachable, with --ca named; trusted, it is checked', async () => {
    const receiver = await startReceiver();
    const secret = newWebhookSecret();
    const untrusted = await checkReceiver({ url: receiver.url, secret });
    expect(untrusted.stopped).toMatchObject({
      reason: 'unreachable',
      message: expect.stringMatching(
        /: the TLS handshake failed \([A-Z_]+\)\. For a development certificate give --ca FILE/,
      ),
    });
    expect(receiver.received).toEqual([]);
    // The test receiver answers 204 to anything: reached, it fails the signature and timestamp rules.
    const fetch = fetchTrusting(await readFile(receiver.caFile, 'utf8'));
    const trusted = await checkReceiver({ url: receiver.url, secret, fetch });
    expect(trusted).toMatchObject({ stopped: null, failedRules: ['signature', 'timestamp'] });
  });

  const silent: [string, RegExp, RegExp, (res: Response) => void][] = [
    [
      'drops the connection',
      /^the connection was closed without an answer \(\w+\) after \d+ ms: no HTTP answer$/,
      /^Your receiver closed the connection without answering: .*4xx to refuse/,
      (res) => res.socket?.destroy(),
    ],
    [
      'never answers',
      /^timed out after \d+ ms: no HTTP answer$/,
      /^Your receiver gave no answer: answer every delivery with a status at once/,
      () => undefined,
    ],
  ];

  test.each(silent)(
    'a receiver that %s instead of refusing gets errors, never passes, with what to do',
    async (_name, detail, remedy, silence) => {
      const secret = newWebhookSecret();
      const verify = verifying([secret]);
      const url = await expressReceiver((req, res) => {
        const age = Math.abs(Date.now() / 1000 - Number(header(req, 'webhook-timestamp')));
        if (!hmacMatches(secret, req) || age > 300) return silence(res);
        return verify(req, res);
      });
      // Waited for twice the answer limit: 300 ms here.
      const report = await checkReceiver({ url, secret, answerWithinMs: 150 });
      const errored = report.checks.filter((check) => check.verdict === 'error');
      expect(errored.map((check) => check.rule)).toEqual([
        'signature',
        'signature',
        'signature',
        'timestamp',
        'timestamp',
      ]);
      for (const check of errored) expect(check.detail).toMatch(detail);
      expect(report.checks.filter((check) => check.verdict === 'pass')).toHaveLength(7);
      expect(report).toMatchObject({ passed: false, stopped: null, failedRules: [] });
      expect(report.findings).toHaveLength(5);
      for (const finding of report.findings) {
        expect(finding).toMatchObject({ verdict: 'error' });
        expect(finding.remedy).toMatch(remedy);
      }
    },
  );
});
