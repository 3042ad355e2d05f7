import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import express, { type Request, type Response } from 'express';
import { describe, expect, test } from 'vitest';
import {
  checkReceiver,
  newWebhookSecret,
  verifyWebhook,
  WebhookVerificationError,
  type ReceiverReport,
  type ReceiverRule,
} from '../../clients/channel-kit/src/index.ts';
import { onCleanup } from '../support/cleanup.ts';

/**
 * `check-receiver` against receivers on this machine written as channels write them: one that
 * keeps every receiver rule, and one broken receiver per rule, each failing that rule alone.
 */

const CLI = path.resolve(import.meta.dirname, '../../clients/channel-kit/src/cli.ts');
const run = promisify(execFile);

type Handler = (req: Request<object, unknown, Buffer>, res: Response) => void | Promise<void>;

/** An Express receiver on loopback taking the raw body, as the kit's README shows. */
async function receiver(handler: Handler): Promise<string> {
  const app = express();
  app.post('/hooks', express.raw({ type: '*/*' }), (req, res, next) => {
    Promise.resolve(handler(req as Request<object, unknown, Buffer>, res)).catch(next);
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  onCleanup(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

const body = (req: Request<object, unknown, Buffer>) => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));

/** Keeps every rule: verifies with the kit, answers at once, deduplicates on webhook-id. */
function correct(secrets: string[]): Handler {
  const seen = new Set<string>();
  return (req, res) => {
    try {
      const event = verifyWebhook(body(req), req.headers, secrets);
      if (!seen.has(event.id)) seen.add(event.id); // the work would be queued here, once
      res.sendStatus(204);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      res.status(400).send(error.reason);
    }
  };
}

/** The HMAC of the contract, computed by hand, so that broken receivers can leave one rule out. */
function hmacMatches(secret: string, id: string, timestamp: string, payload: string, signatures: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${payload}`).digest('base64'));
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function header(req: { headers: Request['headers'] }, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(' ') : (value ?? '');
}

const failedRules = (report: ReceiverReport) => report.failedRules;
const failing = (report: ReceiverReport) => report.checks.filter((check) => !check.passed).map((check) => check.check);

describe('check-receiver', () => {
  test('a receiver that keeps every rule passes every check, with what cannot be observed listed', async () => {
    const secret = newWebhookSecret();
    const url = await receiver(correct([secret]));
    const report = await checkReceiver({ url, secret });
    expect(failing(report)).toEqual([]);
    expect(report.passed).toBe(true);
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
    expect(report.notObservable.join(' ')).toMatch(/repeated webhook-id ran once/);
  });

  test('during a rotation a delivery signed with the previous secret alone is checked too', async () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const both = await checkReceiver({
      url: await receiver(correct([current, previous])),
      secret: current,
      previousSecret: previous,
    });
    expect(both.passed).toBe(true);
    const onlyCurrent = await checkReceiver({
      url: await receiver(correct([current])),
      secret: current,
      previousSecret: previous,
    });
    expect(failedRules(onlyCurrent)).toEqual(['rotation']);
    expect(failing(onlyCurrent)).toEqual(['a delivery signed with the previous secret alone is accepted']);
  });

  const broken: [string, ReceiverRule[], (secret: string) => Handler][] = [
    ['accepts anything', ['signature', 'timestamp'], () => (_req, res) => void res.sendStatus(200)],
    [
      'checks the signature but not the timestamp',
      ['timestamp'],
      (secret) => (req, res) => {
        const ok = hmacMatches(
          secret,
          header(req, 'webhook-id'),
          header(req, 'webhook-timestamp'),
          body(req).toString(),
          header(req, 'webhook-signature'),
        );
        res.sendStatus(ok ? 204 : 401);
      },
    ],
    [
      'verifies re-serialized JSON instead of the raw body',
      ['raw-body'],
      (secret) => {
        const verify = correct([secret]);
        return (req, res) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(body(req).toString());
          } catch {
            return void res.sendStatus(400);
          }
          req.body = Buffer.from(JSON.stringify(parsed));
          return verify(req, res);
        };
      },
    ],
    [
      'reads only the first of two signatures',
      ['rotation'],
      (secret) => {
        const verify = correct([secret]);
        return (req, res) => {
          req.headers['webhook-signature'] = header(req, 'webhook-signature').split(' ')[0];
          return verify(req, res);
        };
      },
    ],
    [
      'refuses a webhook-id it has seen',
      ['duplicates'],
      (secret) => {
        const seen = new Set<string>();
        const verify = correct([secret]);
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
      (secret) => (req, res) => {
        const event = verifyWebhook(body(req), req.headers, [secret]) as unknown as Record<string, unknown>;
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

  test.each(broken)('a receiver that %s fails exactly the rules it breaks', async (_name, rules, make) => {
    const secret = newWebhookSecret();
    const handler = make(secret);
    // A refusal that throws (not a verification failure) is a 500: still a refusal, never a pass.
    const url = await receiver(async (req, res) => {
      try {
        await handler(req, res);
      } catch {
        res.sendStatus(500);
      }
    });
    const report = await checkReceiver({ url, secret });
    expect(failedRules(report)).toEqual(rules);
    expect(report.passed).toBe(false);
  });

  test('a receiver answering 2xx only after the limit fails the answer rule alone, naming the slowest answer', async () => {
    const secret = newWebhookSecret();
    const verify = correct([secret]);
    let slowed = 0;
    const url = await receiver(async (req, res) => {
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
  });

  test('the command prints a row per check and exits 0 for a correct receiver', async () => {
    const secret = newWebhookSecret();
    const url = await receiver(correct([secret]));
    const { stdout } = await run(process.execPath, [CLI, 'check-receiver', '--url', url, '--secret', secret]);
    const rows = stdout.split('\n').filter((line) => /^ {2}(PASS|FAIL) /.test(line));
    expect(rows).toHaveLength(12);
    expect(rows.every((row) => row.startsWith('  PASS '))).toBe(true);
    expect(stdout).toMatch(/12 checks: 12 passed, 0 failed/);
  });

  test('the command fails loudly for a receiver that accepts anything, the signature rule first', async () => {
    const url = await receiver((_req, res) => void res.sendStatus(202));
    const failure = await run(process.execPath, [
      CLI,
      'check-receiver',
      '--url',
      url,
      '--secret',
      newWebhookSecret(),
    ]).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const output = failure!.stdout;
    expect(output).toMatch(
      /FAIL {2}signature +a delivery signed with another secret is refused +202 in \d+ ms: accepted, should be refused/,
    );
    const verdicts = output.slice(output.indexOf('12 checks'));
    expect(verdicts).toMatch(
      /^12 checks: 7 passed, 5 failed\n\nFAILED receiver rule 3: accept only when a v1 signature matches\n {2}Your receiver accepts deliveries whose signature does not match/,
    );
    expect(verdicts).toMatch(/FAILED receiver rule 1: reject a timestamp/);
  });

  test('with --json the command prints the report as one document', async () => {
    const url = await receiver((_req, res) => void res.sendStatus(204));
    const failure = await run(process.execPath, [
      CLI,
      'check-receiver',
      '--json',
      '--url',
      url,
      '--secret',
      newWebhookSecret(),
    ]).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const report = JSON.parse(failure!.stdout) as ReceiverReport;
    expect(report).toMatchObject({ url, passed: false, failedRules: ['signature', 'timestamp'] });
    expect(report.checks).toHaveLength(12);
  });
});
