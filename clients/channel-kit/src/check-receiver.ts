import { newId, newWebhookSecret, signedHeaders } from './signing.ts';

/**
 * `check-receiver`: the cases the contract's receiver rules imply, sent to a channel's own
 * webhook receiver, one verdict per case. It sees only the answers: what a receiver does after
 * answering is listed in the report as not observable.
 */

/** The rule a check holds a receiver to: the contract's receiver rules (Events, Delivery) and v1's growth. */
export type ReceiverRule =
  | 'answer' // rule 6: any 2xx within 10 seconds, the work afterwards
  | 'raw-body' // rule 2: the signature is over the raw body exactly as received
  | 'signature' // rule 3: accepted only when a v1 signature matches
  | 'timestamp' // rule 1: a timestamp more than 5 minutes from the receiver's clock is refused
  | 'rotation' // rule 3: while a secret rotates two signatures are sent; either matching is enough
  | 'duplicates' // rule 4: at least once; a repeated webhook-id is answered, deduplicated
  | 'unknown-types' // Versioning 2: new event types appear without a new version
  | 'unknown-fields'; // Versioning 2: new fields appear without a new version

export const RECEIVER_RULES: Record<ReceiverRule, string> = {
  answer: 'receiver rule 6: answer any 2xx within 10 seconds and do the work afterwards',
  'raw-body': 'receiver rule 2: compute the HMAC over the raw body exactly as received, before JSON parsing',
  signature: 'receiver rule 3: accept only when a v1 signature matches',
  timestamp: "receiver rule 1: reject a timestamp more than 5 minutes from the receiver's clock",
  rotation: 'receiver rule 3: while a secret rotates two signatures are sent; accept when either matches',
  duplicates: 'receiver rule 4: delivery is at least once; deduplicate on webhook-id',
  'unknown-types': 'versioning rule 2: new event types appear without a new version; accept them',
  'unknown-fields': 'versioning rule 2: new fields appear without a new version; accept them',
};

export interface ReceiverAnswer {
  status: number | null;
  ms: number;
  error: string | null;
}

export interface ReceiverCheck {
  rule: ReceiverRule;
  check: string;
  expected: 'accepted' | 'refused';
  passed: boolean;
  answers: ReceiverAnswer[];
  detail: string;
}

export interface ReceiverReport {
  url: string;
  passed: boolean;
  checks: ReceiverCheck[];
  /** The rules whose checks failed, the signature rule first. */
  failedRules: ReceiverRule[];
  /** What the receiver must do that no request from outside can observe. */
  notObservable: string[];
}

export interface CheckReceiverOptions {
  url: string;
  /** The receiver's current secret (`whsec_…`). */
  secret: string;
  /** Its previous secret, while one rotates: adds a delivery signed with that one alone. */
  previousSecret?: string;
  /** The `channel` the events carry (default `channel-kit-check`). */
  channel?: string;
  /** The contract's 10 seconds; lower it to leave headroom. */
  answerWithinMs?: number;
  fetch?: (input: Request) => Promise<Response>;
  /** Called as each check completes. */
  onCheck?: (check: ReceiverCheck) => void;
}

export const NOT_OBSERVABLE = [
  'whether the work of a repeated webhook-id ran once (receiver rule 4)',
  'whether the work runs after the answer rather than before it (receiver rule 6)',
  'whether the named resource is read and applied only at a higher version (receiver rule 5)',
  'whether signatures are compared in constant time (receiver rule 3)',
];

interface Delivery {
  id: string;
  body: string;
  /** Unix seconds signed and sent. */
  at: Date;
  signature?: string | null;
}

interface Case {
  rule: ReceiverRule;
  check: string;
  expected: 'accepted' | 'refused';
  deliveries: () => Delivery[];
}

const SIX_MINUTES = 6 * 60 * 1000;

/** Sends every case in turn and judges each answer; resolves with the report, never throws for a failing receiver. */
export async function checkReceiver(options: CheckReceiverOptions): Promise<ReceiverReport> {
  if (!options.secret.startsWith('whsec_')) throw new TypeError('checkReceiver: a secret starts with whsec_');
  const limit = options.answerWithinMs ?? 10_000;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const checks: ReceiverCheck[] = [];
  let slowest: { ms: number; check: string } | undefined;

  for (const scenario of cases(options)) {
    const answers: ReceiverAnswer[] = [];
    for (const delivery of scenario.deliveries()) answers.push(await deliver(send, options.url, delivery, limit));
    for (const answer of answers) {
      if (isAccepted(answer) && (!slowest || answer.ms > slowest.ms))
        slowest = { ms: answer.ms, check: scenario.check };
    }
    const passed = answers.every((answer) => isAccepted(answer) === (scenario.expected === 'accepted'));
    const { deliveries: _sent, ...about } = scenario;
    const check = { ...about, passed, answers, detail: verdict(scenario.expected, answers) };
    checks.push(check);
    if (scenario.rule !== 'answer') options.onCheck?.(check);
  }

  // The answer rule is judged over every 2xx of the run: the first check's, and the slowest.
  const answer = checks[0]!;
  if (answer.passed && slowest && slowest.ms > limit) {
    answer.passed = false;
    answer.detail = `a 2xx came after ${formatMs(slowest.ms)} (${slowest.check}); the limit is ${formatMs(limit)}`;
  } else if (answer.passed && slowest) {
    answer.detail = `${answer.detail}; slowest 2xx of the run ${formatMs(slowest.ms)}`;
  }
  options.onCheck?.(answer);

  const failedRules = [...new Set(checks.filter((check) => !check.passed).map((check) => check.rule))].sort(
    (a, b) => Number(b === 'signature') - Number(a === 'signature'),
  );
  return { url: options.url, passed: failedRules.length === 0, checks, failedRules, notObservable: NOT_OBSERVABLE };
}

function cases(options: CheckReceiverOptions): Case[] {
  const channel = options.channel ?? 'channel-kit-check';
  const secret = options.secret;
  const stranger = newWebhookSecret();
  const event = (type = 'property.updated', extra: Record<string, unknown> = {}, data: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: newId('evt_'),
      type,
      occurred_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      channel,
      data: { object: 'property', id: newId('prp_'), version: 2, ...data },
      ...extra,
    });
  const signed = (body: string, secrets: string[] = [secret], at = new Date()): Delivery => {
    const id = (JSON.parse(body) as { id: string }).id;
    return { id, body, at, signature: signedHeaders(secrets, id, at, body)['webhook-signature'] };
  };
  const list: Case[] = [
    {
      rule: 'answer',
      check: 'a valid delivery is answered 2xx in time',
      expected: 'accepted',
      deliveries: () => [signed(event())],
    },
    {
      rule: 'raw-body',
      check: 'a valid delivery laid out with spaces and another key order is accepted',
      expected: 'accepted',
      deliveries: () => {
        const parsed = JSON.parse(event()) as Record<string, unknown>;
        const reordered = { data: parsed.data, type: parsed.type, id: parsed.id };
        const body = JSON.stringify({ ...reordered, occurred_at: parsed.occurred_at, channel }, null, 1) + '\n';
        return [signed(body)];
      },
    },
    {
      rule: 'signature',
      check: 'a delivery signed with another secret is refused',
      expected: 'refused',
      deliveries: () => [signed(event(), [stranger])],
    },
    {
      rule: 'signature',
      check: 'a delivery without webhook-signature is refused',
      expected: 'refused',
      deliveries: () => [{ ...signed(event()), signature: null }],
    },
    {
      rule: 'signature',
      check: 'a delivery whose body changed after signing is refused',
      expected: 'refused',
      deliveries: () => {
        const delivery = signed(event());
        return [{ ...delivery, body: delivery.body.replace('"version":2', '"version":3') }];
      },
    },
    {
      rule: 'timestamp',
      check: 'a delivery signed six minutes ago is refused',
      expected: 'refused',
      deliveries: () => [signed(event(), [secret], new Date(Date.now() - SIX_MINUTES))],
    },
    {
      rule: 'timestamp',
      check: 'a delivery signed six minutes ahead is refused',
      expected: 'refused',
      deliveries: () => [signed(event(), [secret], new Date(Date.now() + SIX_MINUTES))],
    },
    {
      rule: 'rotation',
      check: 'two signatures, the second matching, are accepted',
      expected: 'accepted',
      deliveries: () => [signed(event(), [stranger, secret])],
    },
    {
      rule: 'rotation',
      check: 'two signatures, the first matching, are accepted',
      expected: 'accepted',
      deliveries: () => [signed(event(), [secret, stranger])],
    },
  ];
  if (options.previousSecret) {
    const previous = options.previousSecret;
    list.push({
      rule: 'rotation',
      check: 'a delivery signed with the previous secret alone is accepted',
      expected: 'accepted',
      deliveries: () => [signed(event(), [previous])],
    });
  }
  list.push(
    {
      rule: 'duplicates',
      check: 'the same webhook-id delivered twice is answered 2xx both times',
      expected: 'accepted',
      deliveries: () => {
        const body = event();
        // The second is signed again, later, as a retry is.
        return [signed(body), signed(body, [secret], new Date(Date.now() + 1000))];
      },
    },
    {
      rule: 'unknown-types',
      check: 'an event type this receiver cannot know is accepted',
      expected: 'accepted',
      deliveries: () => [signed(event('listing.checked', {}, { object: 'listing' }))],
    },
    {
      rule: 'unknown-fields',
      check: 'an event with fields this receiver cannot know is accepted',
      expected: 'accepted',
      deliveries: () => [
        signed(event('property.updated', { region: 'eu-1' }, { changed: ['name'], previous_version: 1 })),
      ],
    },
  );
  return list;
}

async function deliver(
  send: (request: Request) => Promise<Response>,
  url: string,
  delivery: Delivery,
  limit: number,
): Promise<ReceiverAnswer> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'webhook-id': delivery.id,
    'webhook-timestamp': String(Math.floor(delivery.at.getTime() / 1000)),
  };
  if (delivery.signature) headers['webhook-signature'] = delivery.signature;
  const started = performance.now();
  try {
    // A receiver slower than the limit is still waited for a while, to tell slow from refusing.
    const answer = await send(
      new Request(url, {
        method: 'POST',
        headers,
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(limit * 2),
      }),
    );
    await answer.arrayBuffer();
    return { status: answer.status, ms: Math.round(performance.now() - started), error: null };
  } catch (error) {
    const ms = Math.round(performance.now() - started);
    if (error instanceof Error && error.name === 'TimeoutError') return { status: null, ms, error: 'no answer' };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { status: null, ms, error: cause?.code ?? cause?.message ?? String(error) };
  }
}

function isAccepted(answer: ReceiverAnswer): boolean {
  return answer.status !== null && answer.status >= 200 && answer.status < 300;
}

function verdict(expected: 'accepted' | 'refused', answers: ReceiverAnswer[]): string {
  const said = answers
    .map((answer) =>
      answer.status === null
        ? `${answer.error} after ${formatMs(answer.ms)}`
        : `${answer.status} in ${formatMs(answer.ms)}`,
    )
    .join(', then ');
  const wrong = answers.some((answer) => isAccepted(answer) !== (expected === 'accepted'));
  if (!wrong) return said;
  return expected === 'refused' ? `${said}: accepted, should be refused` : `${said}: not accepted`;
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
