import type { ChannelClient } from './client.ts';
import type { components } from './generated/schema.ts';
import { isProblem } from './problem.ts';

/**
 * `channel-kit certify`: starts a sandbox certification run of one of the channel's endpoints
 * (`POST /sandbox/certifications`), then follows it (`GET /sandbox/certifications/{id}`) until it
 * ends, telling each change once: the step the run is at, each rule as it is judged, and the
 * owner-connect hand-off, which `handOff` completes as the host's browser would.
 */

export type CertificationRun = components['schemas']['CertificationRun'];
export type CertificationHandOff = components['schemas']['CertificationHandOff'];
export type CertificationRow = components['schemas']['CertificationRule'];
export type RuleOutcome = CertificationRow['outcome'];

export type CertifyLine =
  | { kind: 'started'; run: CertificationRun }
  | { kind: 'step'; step: string }
  | { kind: 'rule'; row: CertificationRow }
  | { kind: 'hand_off'; handOff: CertificationHandOff }
  | { kind: 'hand_off_done'; detail: string }
  | { kind: 'hand_off_failed'; error: string }
  | { kind: 'finished'; run: CertificationRun };

export interface CertifyOptions {
  webhookId: string;
  /** How long the run waits for the owner-connect confirmation (the service's default: 300 s). */
  connectWaitSeconds?: number;
  /** Between two reads of the run; default 2000. */
  pollMs?: number;
  /** Completes the hand-off (a browser's two requests, or a page for a person); answers what to print. */
  handOff: (handOff: CertificationHandOff) => Promise<string>;
  onLine: (line: CertifyLine) => void;
  signal?: AbortSignal;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function startCertification(
  client: ChannelClient,
  webhookId: string,
  connectWaitSeconds?: number,
): Promise<CertificationRun> {
  const body = {
    webhook_id: webhookId,
    ...(connectWaitSeconds === undefined ? {} : { connect_wait_seconds: connectWaitSeconds }),
  };
  const { data } = await client.POST('/sandbox/certifications', { body });
  return data!;
}

/**
 * One read of the run; a 429 or 503 the client's own retries gave up on is waited out here (a run
 * provokes 429s on purpose), by `Retry-After` or 5 s.
 */
async function readRun(client: ChannelClient, id: string, signal: AbortSignal | undefined): Promise<CertificationRun> {
  for (;;) {
    try {
      const { data } = await client.GET('/sandbox/certifications/{certification_id}', {
        params: { path: { certification_id: id } },
        ...(signal ? { signal } : {}),
      });
      return data!;
    } catch (error) {
      if (!isProblem(error) || (error.status !== 429 && error.status !== 503) || signal?.aborted) throw error;
      await sleep((error.retryAfter ?? 5) * 1000, signal);
    }
  }
}

/** Tells what changed from `before` to `now`: the step, then the rules judged since, in the report's order. */
export function changes(before: CertificationRun | undefined, now: CertificationRun): CertifyLine[] {
  const lines: CertifyLine[] = [];
  if (now.step !== null && now.step !== before?.step) lines.push({ kind: 'step', step: now.step });
  const was = new Map(before?.rules.map((row) => [row.rule, row.outcome]));
  for (const row of now.rules)
    if (row.outcome !== 'pending' && was.get(row.rule) !== row.outcome) lines.push({ kind: 'rule', row });
  return lines;
}

/** Runs a certification to its end and answers the finished run (`state` passed or failed). */
export async function certify(client: ChannelClient, options: CertifyOptions): Promise<CertificationRun> {
  let run = await startCertification(client, options.webhookId, options.connectWaitSeconds);
  options.onLine({ kind: 'started', run });
  let before: CertificationRun | undefined;
  const handedOff = new Set<string>();
  for (;;) {
    for (const line of changes(before, run)) options.onLine(line);
    before = run;
    const handOff = run.hand_off;
    if (run.state === 'running' && handOff && !handedOff.has(handOff.token)) {
      handedOff.add(handOff.token);
      options.onLine({ kind: 'hand_off', handOff });
      try {
        options.onLine({ kind: 'hand_off_done', detail: await options.handOff(handOff) });
      } catch (error) {
        options.onLine({ kind: 'hand_off_failed', error: error instanceof Error ? error.message : String(error) });
      }
    }
    if (run.state !== 'running') {
      options.onLine({ kind: 'finished', run });
      return run;
    }
    if (options.signal?.aborted) throw options.signal.reason as Error;
    await sleep(options.pollMs ?? 2000, options.signal);
    run = await readRun(client, run.certification_id, options.signal);
  }
}
