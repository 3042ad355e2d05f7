import { expect, test } from 'vitest';
import { certify, type CertificationRun, type CertifyLine } from '../../clients/channel-kit/src/certify.ts';
import { certifyLineText, certifyReport } from '../../clients/channel-kit/src/certify-text.ts';
import { createChannelClient } from '../../clients/channel-kit/src/index.ts';

/**
 * `certify()` following a run through the kit's client, against answers given here: each change
 * told once, the hand-off made once, a 429 waited out; and the report's table.
 */

const HAND_OFF = {
  owner_id: 'own_1',
  token: 'ey.token',
  redirect_url: 'https://channel.example/owner-connect',
  window_ends_at: '2026-11-28T23:00:00Z',
};

function run(overrides: Partial<CertificationRun>, outcomes: CertificationRun['rules'][number]['outcome'][]) {
  const rules = ['answers_each_event_type', 'refuses_wrong_secret', 'dedupes_on_webhook_id'].map((rule, i) => ({
    rule,
    title: `${rule} title`,
    outcome: outcomes[i]!,
    evidence: outcomes[i] === 'pending' ? '' : `${rule} evidence`,
  }));
  return {
    certification_id: 'crt_1',
    webhook_id: 'whk_1',
    state: 'running' as const,
    started_at: '2026-11-28T22:00:00Z',
    finished_at: null,
    step: null,
    hand_off: null,
    rules,
    ...overrides,
  };
}

test('tells each step and judged rule once, hands off once, waits out a 429, answers the finished run', async () => {
  const answers: (CertificationRun | { status: 429; retryAfter: string })[] = [
    run({ step: 'Triggering property.updated' }, ['pending', 'pending', 'pending']),
    run({ step: 'Triggering property.updated' }, ['passed', 'pending', 'pending']),
    { status: 429, retryAfter: '1' },
    run({ step: 'Waiting for the owner-connect confirmation', hand_off: HAND_OFF }, ['passed', 'failed', 'pending']),
    run({ step: 'Waiting for the owner-connect confirmation', hand_off: HAND_OFF }, ['passed', 'failed', 'pending']),
    run({ state: 'failed', step: 'Judged', finished_at: '2026-11-28T22:05:00Z' }, [
      'passed',
      'failed',
      'self_declared',
    ]),
  ];
  const requests: string[] = [];
  const fetch = async (request: Request) => {
    requests.push(
      `${request.method} ${new URL(request.url).pathname} ${request.method === 'POST' ? await request.text() : ''}`,
    );
    const answer = request.method === 'POST' ? run({}, ['pending', 'pending', 'pending']) : answers.shift()!;
    if ('retryAfter' in answer)
      return Response.json(
        { type: 'about:blank', title: 'Too many', status: 429, code: 'rate_limited' },
        { status: 429, headers: { 'retry-after': answer.retryAfter } },
      );
    return Response.json(answer, { status: request.method === 'POST' ? 202 : 200 });
  };
  const client = createChannelClient({ baseUrl: 'https://api.test/d', key: 'svc_test_x', fetch, retries: false });
  const lines: CertifyLine[] = [];
  const handOffs: string[] = [];
  const finished = await certify(client, {
    webhookId: 'whk_1',
    connectWaitSeconds: 60,
    pollMs: 1,
    handOff: (given) => {
      handOffs.push(given.token);
      return Promise.resolve('confirmed');
    },
    onLine: (line) => lines.push(line),
  });
  expect(finished.state).toBe('failed');
  expect(handOffs).toEqual(['ey.token']);
  expect(requests[0]).toBe('POST /d/sandbox/certifications {"webhook_id":"whk_1","connect_wait_seconds":60}');
  expect(requests.slice(1)).toEqual(Array(6).fill('GET /d/sandbox/certifications/crt_1 '));
  expect(
    lines.map((line) =>
      line.kind === 'rule'
        ? `rule ${line.row.rule} ${line.row.outcome}`
        : line.kind === 'step'
          ? `step ${line.step}`
          : line.kind,
    ),
  ).toEqual([
    'started',
    'step Triggering property.updated',
    'rule answers_each_event_type passed',
    'step Waiting for the owner-connect confirmation',
    'rule refuses_wrong_secret failed',
    'hand_off',
    'hand_off_done',
    'step Judged',
    'rule dedupes_on_webhook_id self_declared',
    'finished',
  ]);
  expect(certifyLineText(lines[4]!)).toMatch(
    /^\d\d:\d\d:\d\d {2}FAILED {8}refuses_wrong_secret: refuses_wrong_secret evidence$/,
  );
});

test('the report: one row per rule with its outcome and evidence, then the verdict', () => {
  const lines = certifyReport(run({ state: 'failed' }, ['passed', 'failed', 'self_declared']));
  expect(lines).toEqual([
    'rule                     outcome        evidence',
    '-'.repeat(48),
    'answers_each_event_type  passed         answers_each_event_type evidence',
    'refuses_wrong_secret     FAILED         refuses_wrong_secret evidence',
    'dedupes_on_webhook_id    self-declared  dedupes_on_webhook_id evidence',
    '',
    'Certification crt_1 failed: 1 rule failed.',
  ]);
});
