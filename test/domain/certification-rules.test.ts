import { describe, expect, test } from 'vitest';
import { coveredUntil } from '../../domain/certification/reading-rules.ts';
import {
  CERTIFICATION_RULES,
  judge,
  RULE_TITLES,
  runPassed,
  SELF_DECLARED_RULES,
  type CertificationRule,
} from '../../domain/certification/rules.ts';
import {
  at,
  describeRuleCases,
  judgedRow,
  passingObservations,
  type RuleCase,
} from './fixtures/certification-observations.ts';

// Each rule's table: the passing observations (fixtures/certification-observations.ts) changed one
// way, and the outcome and evidence the rule then gives. The rules judged from the channel's
// requests have their tables in certification-reading-rules.test.ts.

const CASES: Partial<Record<CertificationRule, RuleCase[]>> = {
  answers_each_event_type: [
    {
      name: 'three types answered 2xx',
      change: () => {},
      outcome: 'passed',
      evidence: /3 types answered 2xx, slowest 850 ms \(availability.updated evt_au\)/,
    },
    {
      name: 'a 500 fails',
      change: (o) => void (o.attempts['property.updated']!.status = 500),
      outcome: 'failed',
      evidence: /property.updated evt_pu: answered 500 in 120 ms/,
    },
    {
      name: 'a 2xx after 10 s fails',
      change: (o) => void (o.attempts['property.withdrawn']!.durationMs = 10_001),
      outcome: 'failed',
      evidence: /evt_pw: answered 200 in 10001 ms, over 10000 ms/,
    },
    {
      name: 'a 2xx at 10 s passes',
      change: (o) => void (o.attempts['property.withdrawn']!.durationMs = 10_000),
      outcome: 'passed',
      evidence: /slowest 10000 ms/,
    },
    {
      name: 'a timeout fails',
      change: (o) => {
        o.attempts['property.updated'] = {
          type: 'property.updated',
          eventId: 'evt_pu',
          status: null,
          durationMs: 10_000,
          error: 'timeout',
        };
      },
      outcome: 'failed',
      evidence: /evt_pu: no answer \(timeout\) after 10000 ms/,
    },
    {
      name: 'a type never attempted fails',
      change: (o) => void (o.attempts['owner.updated'] = null),
      outcome: 'failed',
      evidence: /1 of 4 types .*owner.updated: no delivery attempt was observed/,
    },
    {
      name: 'no type triggered fails',
      change: (o) => void (o.attempts = {}),
      outcome: 'failed',
      evidence: /No event type was triggered/,
    },
  ],
  refuses_wrong_secret: [
    {
      name: 'a 401 is a refusal',
      change: () => {},
      outcome: 'passed',
      evidence: /evt_ws \(signed with a wrong secret\) was refused: answered 401 in 12 ms/,
    },
    {
      name: 'a 2xx fails',
      change: (o) => void (o.wrongSecret.status = 200),
      outcome: 'failed',
      evidence: /evt_ws .* was accepted: answered 200/,
    },
    {
      name: 'a timeout is not a refusal',
      change: (o) => void Object.assign(o.wrongSecret, { status: null, error: 'timeout', durationMs: 10_000 }),
      outcome: 'failed',
      evidence: /no answer \(timeout\) after 10000 ms; a timeout or no answer is not a refusal/,
    },
    {
      name: 'a refused connection is not a refusal',
      change: (o) => void Object.assign(o.wrongSecret, { status: null, error: 'connection refused' }),
      outcome: 'failed',
      evidence: /no answer \(connection refused\)/,
    },
  ],
  refuses_stale_timestamp: [
    {
      name: 'a 400 is a refusal',
      change: () => {},
      outcome: 'passed',
      evidence: /evt_st \(webhook-timestamp 600 s in the past\) was refused: answered 400/,
    },
    {
      name: 'a 2xx fails',
      change: (o) => void (o.staleTimestamp.status = 204),
      outcome: 'failed',
      evidence: /evt_st .* was accepted: answered 204/,
    },
    {
      name: 'a timeout is not a refusal',
      change: (o) => void Object.assign(o.staleTimestamp, { status: null, error: 'timeout' }),
      outcome: 'failed',
      evidence: /not a refusal/,
    },
  ],
  accepts_rotation_signatures: [
    {
      name: 'a quick 2xx passes',
      change: () => {},
      outcome: 'passed',
      evidence: /evt_ro .* was accepted: answered 204 in 30 ms/,
    },
    {
      name: 'a 401 fails',
      change: (o) => void (o.rotation.status = 401),
      outcome: 'failed',
      evidence: /evt_ro .* was refused: answered 401/,
    },
    {
      name: 'a slow 2xx fails',
      change: (o) => void (o.rotation.durationMs = 12_000),
      outcome: 'failed',
      evidence: /answered 204 in 12000 ms, over 10000 ms/,
    },
    {
      name: 'a timeout fails',
      change: (o) => void Object.assign(o.rotation, { status: null, error: 'timeout' }),
      outcome: 'failed',
      evidence: /no answer \(timeout\)/,
    },
  ],
  completes_owner_connect: [
    {
      name: 'a confirmation within the window passes',
      change: () => {},
      outcome: 'passed',
      evidence: /Token tok_1 for owner own_1 was confirmed 10.0 s after the hand-off, 290.0 s before its window ends/,
    },
    {
      name: 'a confirmation at the window end passes',
      change: (o) => void (o.ownerConnect!.confirmedAt = at(390)),
      outcome: 'passed',
      evidence: /confirmed 300.0 s after the hand-off/,
    },
    {
      name: 'a confirmation after the window fails',
      change: (o) => void (o.ownerConnect!.confirmedAt = at(391)),
      outcome: 'failed',
      evidence: /1.0 s after its window ended/,
    },
    {
      name: 'no confirmation fails',
      change: (o) => void (o.ownerConnect!.confirmedAt = null),
      outcome: 'failed',
      evidence: /was not confirmed \(PUT \/owners\/own_1\/connection\) during the run/,
    },
    {
      name: 'no hand-off fails',
      change: (o) => void (o.ownerConnect = null),
      outcome: 'failed',
      evidence: /handed off no owner-connect token/,
    },
  ],
};

describe('judge', () => {
  describeRuleCases(CASES);

  test('a row per rule, in order, each with its title; the passing set passes', () => {
    const rows = judge(passingObservations());
    expect(rows.map((row) => row.rule)).toEqual([...CERTIFICATION_RULES]);
    for (const row of rows) expect(row.title).toBe(RULE_TITLES[row.rule]);
    expect(rows.filter((row) => row.outcome !== 'passed').map((row) => row.rule)).toEqual([...SELF_DECLARED_RULES]);
    expect(runPassed(rows)).toBe(true);
  });

  test.each([
    ['dedupes_on_webhook_id', /contract\.md#receiving-webhooks, rule 4 .*deduplicate on webhook-id/],
    ['applies_higher_versions_only', /contract\.md#receiving-webhooks, rule 5 .*version is higher/],
  ] as const)('%s is self-declared, naming the receiver rule', (rule, evidence) => {
    const row = judgedRow(rule, () => {});
    expect(row.outcome).toBe('self_declared');
    expect(row.evidence).toMatch(evidence);
  });

  test('one failed rule fails the run', () => {
    const observations = passingObservations();
    observations.rotation.status = 401;
    expect(runPassed(judge(observations))).toBe(false);
  });

  test('every title is one sentence', () => {
    for (const title of Object.values(RULE_TITLES)) expect(title).toMatch(/^[A-Z][^.]*(?:\.[^ .][^.]*)*\.$/);
  });
});

describe('coveredUntil: the first night the reads leave unread', () => {
  test.each([
    [[{ from: '2026-12-10', to: '2026-12-20' }], '2026-12-20'],
    [
      [
        { from: '2026-12-15', to: '2026-12-20' },
        { from: '2026-12-10', to: '2026-12-15' },
      ],
      '2026-12-20',
    ],
    [
      [
        { from: '2026-12-10', to: '2026-12-14' },
        { from: '2026-12-15', to: '2026-12-20' },
      ],
      '2026-12-14',
    ],
    [[{ from: '2026-12-11', to: '2026-12-20' }], '2026-12-10'],
    [[{ from: null, to: null }], '2026-12-20'],
    [[{ from: null, to: '2026-12-12' }], '2026-12-12'],
    [[], '2026-12-10'],
  ])('%j over 2026-12-10 to 2026-12-20: %s', (ranges, expected) => {
    expect(coveredUntil(ranges, '2026-12-10', '2026-12-20')).toBe(expected);
  });
});
