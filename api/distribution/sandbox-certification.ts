import { z } from 'zod';
import { ANSWER_WITHIN_MS, REREAD_WITHIN_MS, STALE_TIMESTAMP_SECONDS } from '../../domain/certification/rules.ts';
import { CERTIFICATION_LIST_MAX, type CertificationRun } from '../../domain/certification/runs.ts';
import { CONFIRMATION_WINDOW_SECONDS } from '../../domain/owner-connect.ts';
import { toInstant } from '../../domain/time.ts';
import {
  listCertifications,
  readCertification,
  startCertification,
  CONNECT_WAIT_SECONDS,
} from '../../services/certification.ts';
import { defineOperation } from '../operations.ts';
import { Instant, openEnum } from '../schemas/common.ts';
import { WebhookId } from './webhook-schemas.ts';

/**
 * The sandbox's certification run: a channel has its own integration (its webhook receiver, its
 * sync loop) judged from what the service observes, and reads the report back. Served only in a
 * sandbox deployment (`servedIn`): in production the paths do not exist (404) and the description
 * leaves them out.
 */

const tags = ['Sandbox'];
const servedIn = ['sandbox'] as const;

const HandOff = z
  .object({
    owner_id: z.string().meta({ description: 'The owner (`own_…`) of your sandbox corner the token connects.' }),
    token: z.string().meta({
      description:
        'The owner-connect token, addressed to your channel (`aud`): send it to `redirect_url` as the host would (form field `token`), then confirm it with `PUT /owners/{owner_id}/connection`.',
    }),
    redirect_url: z.string().meta({ description: 'Your registered owner-connect redirect URL.' }),
    window_ends_at: Instant.meta({ description: 'When the run stops waiting for the confirmation.' }),
  })
  .meta({ id: 'CertificationHandOff' });

const RuleRow = z
  .object({
    rule: z.string().meta({ description: 'The rule (`answers_each_event_type`, `honours_retry_after`, …).' }),
    title: z.string().meta({ description: 'What the rule asks, one sentence.' }),
    outcome: openEnum(
      ['pending', 'passed', 'failed', 'self_declared'],
      '`pending` until the run judges it; `self_declared` for a rule nothing the service sees can prove (you state you follow it).',
    ),
    evidence: z.string().meta({ description: 'What was observed: ids, statuses, times.' }),
  })
  .meta({ id: 'CertificationRule' });

const Run = z
  .object({
    certification_id: z.string().meta({ description: 'The run (`crt_…`).' }),
    webhook_id: z.string().meta({ description: 'The endpoint under test.' }),
    state: openEnum(
      ['running', 'passed', 'failed'],
      '`passed` once judged with no rule failed; `failed` when one failed or the run could not finish.',
    ),
    started_at: Instant,
    finished_at: Instant.nullable(),
    step: z.string().nullable().meta({ description: 'What the run does now, one sentence; null once it ended.' }),
    hand_off: HandOff.nullable().meta({
      description:
        'Set while the run waits for you to confirm an owner connection; null otherwise. Showing it to you leaks nothing: the token is addressed to your channel.',
    }),
    rules: z.array(RuleRow).meta({ description: "Every rule of the run, in the report's order, from the start." }),
  })
  .meta({ id: 'CertificationRun' });

function runRecord(run: CertificationRun): z.infer<typeof Run> {
  return {
    certification_id: run.id,
    webhook_id: run.webhookId,
    state: run.state,
    started_at: toInstant(run.startedAt),
    finished_at: run.finishedAt === null ? null : toInstant(run.finishedAt),
    step: run.step,
    hand_off: run.handOff && {
      owner_id: run.handOff.ownerId,
      token: run.handOff.token,
      redirect_url: run.handOff.redirectUrl,
      window_ends_at: toInstant(run.handOff.windowEndsAt),
    },
    rules: run.rows.map((row) => ({ rule: row.rule, title: row.title, outcome: row.outcome, evidence: row.evidence })),
  };
}

const WHAT_A_RUN_DOES =
  'The run probes your receiver (deliveries shaped as `webhook.ping`, each with its own `webhook-id`: one signed with a wrong secret, one ' +
  `whose \`webhook-timestamp\` is ${STALE_TIMESTAMP_SECONDS} seconds old, one carrying a wrong signature before the valid one), triggers every event type in your corner of the sandbox ` +
  `(as \`POST /sandbox/triggers\` does) and watches the first attempt of each delivery (answered 2xx within ${ANSWER_WITHIN_MS / 1000} seconds), ` +
  `watches your requests (reading again what an event names within ${REREAD_WITHIN_MS / 1000} seconds, paging, resuming with \`updated_since\`, nothing read below a withdrawn property), ` +
  'fills your rate window near its end so that your next request is refused 429 `rate_limited` (wait as `Retry-After` says), and hands off an owner-connect token (`hand_off`) for you to confirm. ' +
  'Then it judges, one row per rule, and keeps the report.';

export const startSandboxCertification = defineOperation({
  operationId: 'startSandboxCertification',
  method: 'post',
  path: '/sandbox/certifications',
  summary: 'Start a certification run of your integration (sandbox only)',
  description:
    `${WHAT_A_RUN_DOES} Answered at once, the run \`running\`: read it until it ends (a few minutes, up to ${CONNECT_WAIT_SECONDS} seconds more waiting for the owner connection). ` +
    'Refused: an endpoint not yours (`not_found`), not `active` or not subscribed to every type `*` (`certification_not_possible`), a channel without an owner-connect redirect URL (`owner_connect_not_configured`), a run of your channel still running (`certification_not_possible`). Not served in production.',
  tags,
  scopes: ['read:catalog', 'manage:webhooks'],
  servedIn,
  body: z
    .object({
      webhook_id: WebhookId,
      connect_wait_seconds: z
        .int()
        .min(1)
        .max(CONFIRMATION_WINDOW_SECONDS)
        .optional()
        .meta({
          description: `How long the run waits for you to confirm the owner connection it hands off; ${CONNECT_WAIT_SECONDS} unless given.`,
        }),
    })
    .strict(),
  responses: { 202: { description: 'The run, started', schema: Run } },
  problems: ['invalid_parameters', 'not_found', 'certification_not_possible', 'owner_connect_not_configured'],
  handler: async ({ body, caller, deps }) => ({
    status: 202,
    body: runRecord(
      await startCertification(deps, caller.channel, {
        webhookId: body.webhook_id,
        ...(body.connect_wait_seconds === undefined ? {} : { connectWaitSeconds: body.connect_wait_seconds }),
      }),
    ),
  }),
});

export const getSandboxCertification = defineOperation({
  operationId: 'getSandboxCertification',
  method: 'get',
  path: '/sandbox/certifications/{certification_id}',
  summary: 'A certification run and its report (sandbox only)',
  description:
    "One of your channel's runs: its state, the step under way, the owner-connect hand-off while it waits for one, and every rule's row (`pending` until judged). Any other id is `not_found`. Not served in production.",
  tags,
  scopes: ['read:catalog'],
  servedIn,
  params: z.object({
    certification_id: z.string().meta({ description: 'A `crt_` id of your channel; any other value is `not_found`.' }),
  }),
  responses: { 200: { description: 'The run', schema: Run } },
  problems: ['not_found'],
  handler: async ({ params, caller, deps }) => ({
    body: runRecord(await readCertification(deps, caller.channel, params.certification_id)),
  }),
});

export const listSandboxCertifications = defineOperation({
  operationId: 'listSandboxCertifications',
  method: 'get',
  path: '/sandbox/certifications',
  summary: 'Your certification runs (sandbox only)',
  description: `Your channel's runs, newest first, at most \`limit\` (${CERTIFICATION_LIST_MAX} at most): one page, no cursor. Reports are kept. Not served in production.`,
  tags,
  scopes: ['read:catalog'],
  servedIn,
  query: z
    .object({ limit: z.coerce.number().int().min(1).max(CERTIFICATION_LIST_MAX).default(CERTIFICATION_LIST_MAX) })
    .strict(),
  responses: {
    200: {
      description: 'Your runs',
      schema: z.object({ data: z.array(Run) }).meta({ id: 'CertificationRunList' }),
    },
  },
  problems: ['invalid_parameters'],
  handler: async ({ query, caller, deps }) => ({
    body: { data: (await listCertifications(deps, caller.channel, query.limit)).map(runRecord) },
  }),
});

export const sandboxCertificationOperations = [
  startSandboxCertification,
  getSandboxCertification,
  listSandboxCertifications,
];
