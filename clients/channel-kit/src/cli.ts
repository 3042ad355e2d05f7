#!/usr/bin/env node
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { browserHandOff, handOffPage } from './browser-hand-off.ts';
import { certify, type CertificationHandOff } from './certify.ts';
import { certifyLineText, certifyReport } from './certify-text.ts';
import { checkReceiver, type ReceiverCheck } from './check-receiver.ts';
import { checkHeading, checkRow, checkSummary } from './check-receiver-text.ts';
import { createChannelClient } from './client.ts';
import { FileCursorStore } from './cursor-file.ts';
import { KEY_IN_CLEAR, whyNotHttps } from './https-only.ts';
import { ANSWER_WITHIN_MS } from './receiver-rules.ts';
import { listen, type ListenLine } from './listen.ts';
import { ProblemError } from './problem.ts';
import { logs, refusalLines, requestLine, trigger, triggerLines } from './sandbox-commands.ts';
import { newWebhookSecret } from './signing.ts';
import { fetchTrusting, type TrustingFetch } from './trusting-fetch.ts';

const USAGE = `channel-kit: the Distribution Service's tools for a channel's developer

  channel-kit listen --base-url URL --forward-to URL [--key KEY] [--secret whsec_…] [--ca FILE]
                     [--cursor C] [--from latest|oldest] [--events p,q] [--state FILE] [--json]
      Tails GET /events with the channel's key and POSTs each event to --forward-to, signed the
      Standard Webhooks way with --secret (one is generated and printed when none is given).
      The key may come from DISTRIBUTION_API_KEY, the base URL from DISTRIBUTION_API_URL, the
      secret from WEBHOOK_SECRET. The base URL is https:// only: a key sent over plain HTTP is
      to be treated as compromised. The position is saved in --state (default
      .channel-kit/listen.json) and the next run resumes from it. --from oldest forwards the
      whole kept log, --from latest only events that come next; given, it wins over the saved
      position, which that run replaces. Without a flag or a saved position: latest.

  channel-kit check-receiver --url URL --secret whsec_… [--previous-secret whsec_…] [--ca FILE]
                             [--answer-within SECONDS] [--json]
      Sends your receiver a correctly signed delivery, then, once that is accepted, the cases
      the receiver rules imply (docs/contract.md#receiving-webhooks), and prints one row per
      case; exits 1 when any fails or gets no answer, or when nothing answers at all.

  channel-kit trigger TYPE --base-url URL [--key KEY] [--ca FILE] [--json]
      Sandbox only: makes an event of TYPE happen in your own corner of the sandbox
      (POST /sandbox/triggers: any event type, or webhook.ping) and prints each event it
      produced, delivered to your endpoints like any other, and the GET /events cursor to read
      them from.

  channel-kit logs --base-url URL [--key KEY] [--status 4xx|429] [--code CODE] [--follow]
                   [--ca FILE] [--json]
      Sandbox only: your own requests of the last day (GET /sandbox/requests), one line each,
      oldest first: instant, method, path, status, problem code, request id, units, duration.
      --follow keeps printing them as they are made (leaving out its own reads) until Ctrl-C.

  channel-kit certify --webhook whk_… --base-url URL [--key KEY] [--connect-wait SECONDS]
                      [--no-browser] [--ca FILE] [--json]
      Sandbox only: certifies your integration (POST /sandbox/certifications): the run sends the
      endpoint (active, subscribed to *) every event type and signature probes, provokes a 429,
      withdraws a property and hands an owner-connect token to your redirect URL, then judges
      your receiver's answers and your own requests. Prints the step as it changes and each rule
      as it is judged, then the report; exits 1 unless the run passed. The hand-off is made as
      the host's browser makes it (the token POSTed to the redirect URL, the page's form
      submitted); with --no-browser a page that makes it is written for you to open instead.
      --connect-wait is how long the run waits for that confirmation (default 300 s).

  --ca FILE trusts that certificate authority too (a development certificate).
`;

const OPTIONS = {
  'base-url': { type: 'string' },
  key: { type: 'string' },
  'forward-to': { type: 'string' },
  secret: { type: 'string' },
  'previous-secret': { type: 'string' },
  ca: { type: 'string' },
  cursor: { type: 'string' },
  from: { type: 'string' },
  events: { type: 'string' },
  state: { type: 'string' },
  url: { type: 'string' },
  'answer-within': { type: 'string' },
  json: { type: 'boolean' },
  status: { type: 'string' },
  code: { type: 'string' },
  follow: { type: 'boolean' },
  webhook: { type: 'string' },
  'connect-wait': { type: 'string' },
  'no-browser': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

class UsageError extends Error {}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  if (values.version) {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    console.log(manifest.version);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    console.log(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const [type, ...extra] = command === 'trigger' ? rest : [undefined, ...rest];
  if (command === 'trigger' && type === undefined) throw new UsageError('trigger needs an event type');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  const trusting = values.ca ? fetchTrusting(readFileSync(values.ca)) : undefined;
  try {
    if (command === 'trigger' || command === 'logs') return await runSandbox(command, type, values, trusting);
    if (command === 'listen') return await runListen(values, trusting);
    if (command === 'check-receiver') return await runCheck(values, trusting);
    if (command === 'certify') return await runCertify(values, trusting);
    throw new UsageError(`unknown command ${command}`);
  } finally {
    trusting?.close();
  }
}

function required(value: string | undefined, name: string, env?: string): string {
  const given = value ?? (env ? process.env[env] : undefined);
  if (!given) throw new UsageError(`--${name} is required${env ? ` (or ${env})` : ''}`);
  return given;
}

function secretOption(value: string, name: string): string {
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(value)) throw new UsageError(`--${name} must be whsec_ and base64`);
  return value;
}

async function runListen(values: Values, trusting: TrustingFetch | undefined): Promise<number> {
  const baseUrl = required(values['base-url'], 'base-url', 'DISTRIBUTION_API_URL');
  // Checked before anything else happens (a secret printed, a state file read): the client would refuse it too.
  const plain = whyNotHttps(baseUrl);
  if (plain !== undefined) throw new UsageError(`--base-url (or DISTRIBUTION_API_URL) ${plain}: ${KEY_IN_CLEAR}`);
  const key = required(values.key, 'key', 'DISTRIBUTION_API_KEY');
  const forwardTo = required(values['forward-to'], 'forward-to');
  if (!/^https?:\/\//.test(forwardTo)) throw new UsageError('--forward-to must be an http:// or https:// address');
  const from = values.from;
  if (from !== undefined && from !== 'latest' && from !== 'oldest') throw new UsageError('--from is latest or oldest');
  if (from !== undefined && values.cursor)
    throw new UsageError('--cursor and --from each name where to start: give one');
  const givenSecret = values.secret ?? process.env.WEBHOOK_SECRET;
  const secret = givenSecret ? secretOption(givenSecret, 'secret') : newWebhookSecret();
  const json = values.json === true;
  const print = (record: object, text: string) => console.log(json ? JSON.stringify(record) : text);

  if (!givenSecret) {
    print(
      { kind: 'secret', secret, generated: true },
      `Signing secret ${secret} (generated: give it to your receiver, and --secret ${secret} next time to keep it)`,
    );
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const result = await listen({
      client: createChannelClient({ baseUrl, key, ...(trusting ? { fetch: trusting } : {}) }),
      forwardTo,
      secret,
      ...(from ? { from } : {}),
      ...(values.cursor ? { cursor: values.cursor } : {}),
      ...(values.events ? { events: values.events.split(',').map((pattern) => pattern.trim()) } : {}),
      cursorStore: new FileCursorStore(values.state ?? '.channel-kit/listen.json', baseUrl, key),
      ...(trusting ? { forwardFetch: trusting } : {}),
      signal: controller.signal,
      onLine: (line) => print(line, listenText(line, baseUrl)),
    });
    print(
      { kind: 'stopped', ...result },
      `Stopped: ${result.forwarded} forwarded, ${result.failed} failed; the next run resumes from here.`,
    );
    return 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

function listenText(line: ListenLine, baseUrl: string): string {
  const time = new Date().toTimeString().slice(0, 8);
  switch (line.kind) {
    case 'start': {
      const where = {
        cursor: 'from the cursor given',
        saved: 'from where the last run stopped',
        oldest: "from the log's oldest kept event",
        latest: "from the log's end",
      }[line.from];
      const replaced =
        line.replaced === null
          ? ''
          : `; the saved position (${shortCursor(line.replaced)}, where the last run stopped) is replaced`;
      return `Forwarding the events of ${baseUrl} to ${line.forwardTo}, starting ${where}${replaced}. Ctrl-C stops.`;
    }
    case 'skipped':
      return `${line.events} earlier events passed over (--from oldest forwards them).`;
    case 'forwarded':
      return `${time}  ${line.event.type.padEnd(22)} ${line.event.id}  -> ${line.status} in ${line.ms} ms${line.tries > 1 ? ` (try ${line.tries})` : ''}`;
    case 'failed':
      return `${time}  ${line.event.type.padEnd(22)} ${line.event.id}  -> FAILED ${line.status ?? line.error} after ${line.tries} tries; passed over`;
    case 'receiver_down':
      return `Nothing listens at ${line.forwardTo} (${line.error}): waiting for it, every second.`;
    case 'cursor_expired':
      return 'The position is no longer in the log (older than its 35 days, or the log was restored): starting again at its end.';
    case 'api_unreachable':
      return `The interface is unreachable (${line.error}); trying again in ${line.retryInSeconds} s.`;
  }
}

function shortCursor(cursor: string): string {
  return cursor.length > 16 ? `cursor ${cursor.slice(0, 12)}…` : `cursor ${cursor}`;
}

async function runSandbox(
  command: 'trigger' | 'logs',
  type: string | undefined,
  values: Values,
  trusting: TrustingFetch | undefined,
): Promise<number> {
  const baseUrl = required(values['base-url'], 'base-url', 'DISTRIBUTION_API_URL');
  const plain = whyNotHttps(baseUrl);
  if (plain !== undefined) throw new UsageError(`--base-url (or DISTRIBUTION_API_URL) ${plain}: ${KEY_IN_CLEAR}`);
  const key = required(values.key, 'key', 'DISTRIBUTION_API_KEY');
  const client = createChannelClient({ baseUrl, key, ...(trusting ? { fetch: trusting } : {}) });
  const json = values.json === true;
  if (command === 'trigger') {
    try {
      const outcome = await trigger(client, type!);
      console.log(json ? JSON.stringify(outcome, null, 2) : triggerLines(outcome).join('\n'));
      return 0;
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      console.error(`channel-kit: ${refusalLines(error).join('\n')}`);
      return 1;
    }
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    await logs(client, {
      ...(values.status ? { status: values.status } : {}),
      ...(values.code ? { code: values.code } : {}),
      follow: values.follow === true,
      signal: controller.signal,
      onRequest: (request) => console.log(json ? JSON.stringify(request) : requestLine(request)),
    });
    return 0;
  } finally {
    process.off('SIGINT', stop);
  }
}

async function runCheck(values: Values, trusting: TrustingFetch | undefined): Promise<number> {
  const url = required(values.url, 'url');
  const secret = secretOption(required(values.secret, 'secret', 'WEBHOOK_SECRET'), 'secret');
  const previous = values['previous-secret'];
  const most = ANSWER_WITHIN_MS / 1000;
  const within = values['answer-within'] === undefined ? most : Number(values['answer-within']);
  if (!(within > 0 && within <= most)) throw new UsageError(`--answer-within is seconds, above 0 and at most ${most}`);
  const json = values.json === true;
  if (!json) console.log(checkHeading(url));
  const report = await checkReceiver({
    url,
    secret,
    ...(previous ? { previousSecret: secretOption(previous, 'previous-secret') } : {}),
    answerWithinMs: within * 1000,
    ...(trusting ? { fetch: trusting } : {}),
    ...(json ? {} : { onCheck: (check: ReceiverCheck) => console.log(checkRow(check)) }),
  });
  if (json) console.log(JSON.stringify(report, null, 2));
  else console.log(checkSummary(report));
  return report.passed ? 0 : 1;
}

async function runCertify(values: Values, trusting: TrustingFetch | undefined): Promise<number> {
  const baseUrl = required(values['base-url'], 'base-url', 'DISTRIBUTION_API_URL');
  const plain = whyNotHttps(baseUrl);
  if (plain !== undefined) throw new UsageError(`--base-url (or DISTRIBUTION_API_URL) ${plain}: ${KEY_IN_CLEAR}`);
  const key = required(values.key, 'key', 'DISTRIBUTION_API_KEY');
  const webhookId = required(values.webhook, 'webhook');
  if (!/^whk_\w+$/.test(webhookId)) throw new UsageError('--webhook is an endpoint id: whk_…');
  const wait = values['connect-wait'];
  if (wait !== undefined && !/^[1-9]\d{0,4}$/.test(wait)) throw new UsageError('--connect-wait is whole seconds');
  const json = values.json === true;
  const handOff = async (given: CertificationHandOff): Promise<string> => {
    if (values['no-browser']) {
      // The page holds the token: readable by its owner only.
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'channel-kit-certify-')), 'hand-off.html');
      writeFileSync(file, handOffPage({ token: given.token, redirectUrl: given.redirect_url }), { mode: 0o600 });
      return `open file://${file} in a browser and confirm there, by ${given.window_ends_at}`;
    }
    const done = await browserHandOff({
      token: given.token,
      redirectUrl: given.redirect_url,
      ...(trusting ? { fetch: trusting } : {}),
    });
    const steps = done.steps.map((step) => `${step.method} ${step.url} ${step.status}`).join(', ');
    return `confirmed as a browser would (${steps}): ${done.text}`;
  };
  try {
    const run = await certify(createChannelClient({ baseUrl, key, ...(trusting ? { fetch: trusting } : {}) }), {
      webhookId,
      ...(wait === undefined ? {} : { connectWaitSeconds: Number(wait) }),
      handOff,
      onLine: (line) => {
        if (json) console.log(JSON.stringify(line));
        else if (line.kind !== 'finished') console.log(certifyLineText(line));
      },
    });
    if (!json) console.log(['', ...certifyReport(run)].join('\n'));
    return run.state === 'passed' ? 0 : 1;
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    console.error(`channel-kit: ${refusalLines(error).join('\n')}`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`channel-kit: ${(error as Error).message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    console.error(`channel-kit: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
