import { receiverCases, ruleRemedy, type Case, type CaseId, type Delivery } from './check-receiver-cases.ts';
import { ANSWER_WITHIN_MS, NOT_OBSERVABLE, RECEIVER_RULES, type ReceiverRule } from './receiver-rules.ts';
import { formatMs, transportError, type TransportError, type TransportKind } from './transport-error.ts';

/**
 * `check-receiver`: the cases the receiver rules imply, sent to a channel's own webhook receiver,
 * one verdict per case. A correctly signed delivery goes first: until it is accepted no other
 * case means anything, and none is sent. A request that got no HTTP answer is an error, never a
 * pass. It sees only the answers: what a receiver does after answering is listed as not observable.
 */

export type { CaseId } from './check-receiver-cases.ts';
export { NOT_OBSERVABLE, RECEIVER_RULES, type ReceiverRule } from './receiver-rules.ts';

export interface ReceiverAnswer {
  /** The HTTP status, or null when no answer came (then `error` says why). */
  status: number | null;
  ms: number;
  error: string | null;
}

/** `pass`; `fail`, a wrong answer; `error`, no HTTP answer at all; `not_run`, not sent since the first case failed. */
export type CheckVerdict = 'pass' | 'fail' | 'error' | 'not_run';

export interface ReceiverCheck {
  id: CaseId;
  rule: ReceiverRule;
  check: string;
  expected: 'accepted' | 'refused';
  verdict: CheckVerdict;
  /** `verdict === 'pass'`. */
  passed: boolean;
  answers: ReceiverAnswer[];
  detail: string;
}

/** Why the run stopped after its first, correctly signed, delivery. */
export interface ReceiverStop {
  reason: 'unreachable' | 'refused';
  message: string;
}

/** A rule broken (`fail`), or a case that got no answer (`error`), with what to change. */
export interface ReceiverFinding {
  verdict: 'fail' | 'error';
  rule: ReceiverRule;
  /** The rule in a few words and where it is stated. */
  statement: string;
  checks: string[];
  remedy: string;
}

export interface ReceiverReport {
  url: string;
  passed: boolean;
  /** Set when the first delivery got no answer or was refused: the other checks are `not_run`. */
  stopped: ReceiverStop | null;
  checks: ReceiverCheck[];
  /** The rules whose checks failed, the signature rule first. */
  failedRules: ReceiverRule[];
  /** The failed rules, then the errors, each with its remedy; empty when the run stopped. */
  findings: ReceiverFinding[];
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
  /** Called as each check completes, the answer check last; not called when the run stops at the first. */
  onCheck?: (check: ReceiverCheck) => void;
}

interface Sent {
  answers: ReceiverAnswer[];
  errors: TransportError[];
}

/** Sends every case in turn and judges each answer; resolves with the report, never throws for a failing receiver. */
export async function checkReceiver(options: CheckReceiverOptions): Promise<ReceiverReport> {
  if (!options.secret.startsWith('whsec_')) throw new TypeError('checkReceiver: a secret starts with whsec_');
  const limit = options.answerWithinMs ?? ANSWER_WITHIN_MS;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const [baseline, ...rest] = receiverCases(
    options.secret,
    options.previousSecret,
    options.channel ?? 'channel-kit-check',
  );
  const run = async (scenario: Case): Promise<Sent> => {
    const sent: Sent = { answers: [], errors: [] };
    for (const delivery of scenario.deliveries()) {
      const { answer, error } = await deliver(send, options.url, delivery, limit);
      sent.answers.push(answer);
      if (error) sent.errors.push(error);
    }
    return sent;
  };

  const first = await run(baseline!);
  const answer = judge(baseline!, first.answers);
  if (answer.verdict !== 'pass') {
    const notRun = rest.map((scenario) => ({
      ...about(scenario),
      verdict: 'not_run' as const,
      passed: false,
      answers: [],
      detail: 'not sent: the correctly signed delivery before it was not accepted',
    }));
    const stopped = stop(answer, first.errors[0], options);
    return finish(options.url, [answer, ...notRun], stopped, []);
  }

  const checks: ReceiverCheck[] = [answer];
  const errors = new Map<ReceiverCheck, TransportError>();
  let slowest = { ms: first.answers[0]!.ms, check: baseline!.check };
  for (const scenario of rest) {
    const sent = await run(scenario);
    for (const said of sent.answers) {
      if (isAccepted(said) && said.ms > slowest.ms) slowest = { ms: said.ms, check: scenario.check };
    }
    const check = judge(scenario, sent.answers);
    if (sent.errors[0]) errors.set(check, sent.errors[0]);
    checks.push(check);
    options.onCheck?.(check);
  }
  // The answer rule is judged over every 2xx of the run: the first check's, and the slowest.
  if (slowest.ms > limit) {
    Object.assign(answer, {
      verdict: 'fail',
      passed: false,
      detail: `a 2xx came after ${formatMs(slowest.ms)} (${slowest.check}); the limit is ${formatMs(limit)}`,
    });
  } else answer.detail = `${answer.detail}; slowest 2xx of the run ${formatMs(slowest.ms)}`;
  options.onCheck?.(answer);
  return finish(options.url, checks, null, findings(checks, errors));
}

function about(scenario: Case): Pick<ReceiverCheck, 'id' | 'rule' | 'check' | 'expected'> {
  return { id: scenario.id, rule: scenario.rule, check: scenario.check, expected: scenario.expected };
}

function finish(
  url: string,
  checks: ReceiverCheck[],
  stopped: ReceiverStop | null,
  found: ReceiverFinding[],
): ReceiverReport {
  const failedRules = [...new Set(checks.filter((check) => check.verdict === 'fail').map((check) => check.rule))].sort(
    (a, b) => Number(b === 'signature') - Number(a === 'signature'),
  );
  const passed = checks.every((check) => check.verdict === 'pass');
  return { url, passed, stopped, checks, failedRules, findings: found, notObservable: NOT_OBSERVABLE };
}

/** What the first delivery's failure means, and only that. */
function stop(answer: ReceiverCheck, error: TransportError | undefined, options: CheckReceiverOptions): ReceiverStop {
  const unsent = 'None of the other cases was sent: no verdict means anything until this delivery is accepted.';
  if (error) {
    return {
      reason: 'unreachable',
      message: `No answer from ${options.url}: ${error.text}${error.kind === 'timeout' ? ` after ${formatMs(answer.answers[0]!.ms)}` : ''}. ${UNREACHABLE[error.kind]} ${unsent}`,
    };
  }
  const status = answer.answers[0]!.status!;
  const extra =
    status >= 300 && status < 400
      ? ' A redirect is never followed: give the address it redirects to.'
      : status === 404 || status === 405
        ? ' Or does your receiver take POSTs at another path?'
        : '';
  return {
    reason: 'refused',
    message:
      `Your receiver refused a delivery signed with the secret you gave (it answered ${status}): same secret? ` +
      `The secret given ends in …${options.secret.slice(-4)}.${extra} ${unsent}`,
  };
}

const UNREACHABLE: Record<TransportKind, string> = {
  refused: 'Is your receiver running, listening at this address and port?',
  closed:
    'Something took the connection and closed it: is this the address of your receiver, http:// or https:// as it serves?',
  timeout: 'A correctly signed delivery must be answered 2xx within 10 seconds, the work done afterwards.',
  tls: 'For a development certificate give --ca FILE (or start Node with NODE_EXTRA_CA_CERTS=FILE); a receiver without TLS is http://.',
  dns: 'Check the host name of the address.',
  other: 'Is this the address of your receiver?',
};

const ERROR_REMEDY: Record<TransportKind, string> = {
  refused:
    'Nothing listened any more when this case was sent: did your receiver stop, or crash on a delivery before it?',
  closed:
    'Your receiver closed the connection without answering: answer every delivery with a status, 2xx to accept, 4xx to refuse.',
  timeout:
    'Your receiver gave no answer: answer every delivery with a status at once (4xx to refuse) and do the work afterwards.',
  tls: 'The TLS handshake failed for this case alone: does your receiver serve one certificate to every request?',
  dns: 'The host name stopped resolving during the run.',
  other: 'No HTTP answer came: answer every delivery with a status, 2xx to accept, 4xx to refuse.',
};

function findings(checks: ReceiverCheck[], errors: Map<ReceiverCheck, TransportError>): ReceiverFinding[] {
  const found: ReceiverFinding[] = [];
  const failed = checks.filter((check) => check.verdict === 'fail');
  const rules = [...new Set(failed.map((check) => check.rule))].sort(
    (a, b) => Number(b === 'signature') - Number(a === 'signature'),
  );
  for (const rule of rules) {
    const ofRule = failed.filter((check) => check.rule === rule);
    const duplicate = ofRule.find((check) => check.id === 'duplicate');
    const refusedSecond =
      duplicate !== undefined && isAccepted(duplicate.answers[0]!) && !isAccepted(duplicate.answers[1]!);
    found.push({
      verdict: 'fail',
      rule,
      statement: RECEIVER_RULES[rule],
      checks: ofRule.map((check) => check.check),
      remedy: ruleRemedy(rule, new Set(ofRule.map((check) => check.id)), refusedSecond),
    });
  }
  for (const [check, error] of errors) {
    found.push({
      verdict: 'error',
      rule: check.rule,
      statement: RECEIVER_RULES[check.rule],
      checks: [check.check],
      remedy: `${ERROR_REMEDY[error.kind]} (${error.text})`,
    });
  }
  return found;
}

function judge(scenario: Case, answers: ReceiverAnswer[]): ReceiverCheck {
  const said = answers
    .map((answer) =>
      answer.status === null
        ? `${answer.error} after ${formatMs(answer.ms)}`
        : `${answer.status} in ${formatMs(answer.ms)}`,
    )
    .join(', then ');
  const wanted = scenario.expected === 'accepted';
  const verdict: CheckVerdict = answers.some((answer) => answer.status === null)
    ? 'error'
    : answers.every((answer) => isAccepted(answer) === wanted)
      ? 'pass'
      : 'fail';
  const detail =
    verdict === 'error'
      ? `${said}: no HTTP answer`
      : verdict === 'pass'
        ? said
        : `${said}: ${wanted ? 'not accepted' : 'accepted, should be refused'}`;
  return { ...about(scenario), verdict, passed: verdict === 'pass', answers, detail };
}

async function deliver(
  send: (request: Request) => Promise<Response>,
  url: string,
  delivery: Delivery,
  limit: number,
): Promise<{ answer: ReceiverAnswer; error?: TransportError }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'webhook-id': delivery.id,
    'webhook-timestamp': String(Math.floor(delivery.at.getTime() / 1000)),
  };
  if (delivery.signature) headers['webhook-signature'] = delivery.signature;
  const started = performance.now();
  try {
    // A receiver slower than the limit is still waited for a while, to tell slow from not answering.
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
    return { answer: { status: answer.status, ms: Math.round(performance.now() - started), error: null } };
  } catch (thrown) {
    const ms = Math.round(performance.now() - started);
    const error = transportError(thrown);
    return { answer: { status: null, ms, error: error.text }, error };
  }
}

function isAccepted(answer: ReceiverAnswer): boolean {
  return answer.status !== null && answer.status >= 200 && answer.status < 300;
}
