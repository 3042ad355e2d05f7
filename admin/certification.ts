import { parseArgs } from 'node:util';
import { CERTIFICATION_LIST_MAX, type CertificationRun } from '../domain/certification/runs.ts';
import { toInstant } from '../domain/time.ts';
import { operatorCertification, operatorCertifications } from '../services/certification.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

/**
 * `certification list [--channel NAME] [--limit N]` and `certification show ID`: the sandbox's
 * certification runs, newest first, and one run's report, one row per rule with its evidence. The
 * owner-connect token a waiting run holds is not printed: it is the channel's.
 */

const instant = (at: Date | null) => (at === null ? null : toInstant(at));

function summary(run: CertificationRun & { channel?: string | null }) {
  const count = (outcome: string) => run.rows.filter((row) => row.outcome === outcome).length;
  return {
    certification_id: run.id,
    ...(run.channel !== undefined ? { channel: run.channel } : {}),
    webhook_id: run.webhookId,
    state: run.state,
    step: run.step,
    started_at: instant(run.startedAt),
    finished_at: instant(run.finishedAt),
    rules: {
      passed: count('passed'),
      failed: count('failed'),
      self_declared: count('self_declared'),
      pending: count('pending'),
    },
  };
}

async function list(args: string[], ctx: AdminContext) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { channel: { type: 'string' }, limit: { type: 'string', default: String(CERTIFICATION_LIST_MAX) } },
  });
  if (positionals.length > 0) throw new AdminError(`unexpected argument: ${positionals[0]}`);
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw new AdminError('--limit: a whole number from 1 to 500');
  const runs = await operatorCertifications(ctx, { ...(values.channel ? { channel: values.channel } : {}), limit });
  return { runs: runs.map(summary) };
}

async function show(args: string[], ctx: AdminContext) {
  const { positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: {} });
  const [id, extra] = positionals;
  if (id === undefined || extra !== undefined) throw new AdminError('certification show <certification-id>');
  const run = await operatorCertification(ctx, id);
  return {
    ...summary(run),
    channel_id: run.channelId,
    waiting_for_owner_connect: run.handOff !== null,
    rules: run.rows.map((row) => ({ rule: row.rule, outcome: row.outcome, title: row.title, evidence: row.evidence })),
  };
}

/** The `certification` command group of the operator CLI (scripts/admin.ts). */
export const certificationCommands = { list, show };
