import {
  findCertificationRun,
  insertCertificationRun,
  listCertificationRuns,
  runningCertificationOf,
} from '../db/certification-runs.ts';
import { findChannelByName, listChannels, type Channel } from '../db/channels.ts';
import {
  CERTIFICATION_LIST_MAX,
  isCertificationId,
  newCertificationId,
  pendingRows,
  type CertificationRun,
} from '../domain/certification/runs.ts';
import { ProblemError } from '../domain/problems.ts';
import type { CertificationInput, CertificationTiming } from '../workflows/certification.ts';
import { abandonRun } from './certification-judge.ts';
import type { ServiceDeps } from './deps.ts';
import { Refusal } from './refusal.ts';
import { TRIGGER_TYPES } from './sandbox-trigger.ts';
import { findChannelEndpoint } from './webhooks.ts';

/**
 * `POST /sandbox/certifications` and its reads: a channel starts a certification run of one of
 * its webhook endpoints (workflows/certification.ts) and reads its runs back; operators read every
 * channel's (`npm run admin -- certification`). Sandbox only: production answers 404.
 */

/** How long a run waits for the owner-connect confirmation unless told otherwise. */
export const CONNECT_WAIT_SECONDS = 300;

/**
 * The order the run triggers the types in, so each precondition is cheap: the ping, the changes of
 * records that stay, the deletions (each of a record made to be deleted), then the property
 * withdrawn and shown again, and withdrawn last (the run then watches it stay unread).
 */
const TRIGGER_ORDER: readonly string[] = [
  'webhook.ping',
  'property.updated',
  'availability.updated',
  'location.updated',
  'owner.updated',
  'amenity.updated',
  'amenity.deleted',
  'property.deleted',
  'location.deleted',
  'owner.deleted',
  'property.distributed',
  'property.withdrawn',
];

export function triggerOrder(): string[] {
  const rank = (type: string) => (TRIGGER_ORDER.includes(type) ? TRIGGER_ORDER.indexOf(type) : -1);
  const known = TRIGGER_TYPES.filter((type) => rank(type) >= 0).sort((a, b) => rank(a) - rank(b));
  // A type added later is triggered before the withdrawal, which must stay last.
  return [...known.slice(0, -1), ...TRIGGER_TYPES.filter((type) => rank(type) < 0), ...known.slice(-1)];
}

function sandboxOnly(deps: Pick<ServiceDeps, 'config'>): void {
  if (deps.config.environment !== 'sandbox') throw new ProblemError('not_found');
}

const notPossible = (detail: string) => new ProblemError('certification_not_possible', { detail });

export interface StartCertification {
  webhookId: string;
  connectWaitSeconds?: number;
  /** Shorter waits (tests). */
  timing?: Partial<CertificationTiming>;
}

/**
 * Starts a run of the channel's endpoint. Refused: an endpoint not the channel's (`not_found`), not
 * active or not subscribed to every type (`certification_not_possible`), a channel with no
 * redirect URL (`owner_connect_not_configured`), a run of the channel still running
 * (`certification_not_possible`). A run whose workflow ended without its report is ended `failed` first.
 */
export async function startCertification(
  deps: ServiceDeps,
  channel: Channel,
  input: StartCertification,
): Promise<CertificationRun> {
  sandboxOnly(deps);
  const endpoint = await findChannelEndpoint(deps, channel, input.webhookId);
  if (endpoint.status !== 'active')
    throw notPossible(`the endpoint is ${endpoint.status}: enable it first (POST /webhooks/{webhook_id}/enable)`);
  if (!endpoint.events.includes('*'))
    throw notPossible('the endpoint must subscribe to every event type (`*`): the run triggers each one');
  if (!channel.redirectUrl)
    throw new ProblemError('owner_connect_not_configured', {
      detail: 'the run hands off an owner-connect token: register a redirect URL first',
    });
  const em = deps.orm.em.fork();
  const running = await runningCertificationOf(em, channel.id);
  if (running !== null) {
    // A run recorded moments ago may not have its workflow yet: it is running, not lost.
    const young = (await findCertificationRun(em, running))!.startedAt.getTime() > deps.clock.now().getTime() - 60_000;
    if (young || (await deps.workflows.certificationRunning(running)))
      throw notPossible(`run ${running} of this channel is still running: read it, or wait for its end`);
    await abandonRun(deps, running, 'its workflow ended without a report');
  }
  const startedAt = deps.clock.now();
  const id = newCertificationId(startedAt.getTime());
  const step = 'Starting';
  if (
    !(await insertCertificationRun(em, {
      id,
      channelId: channel.id,
      webhookId: endpoint.id,
      step,
      rows: pendingRows(),
      startedAt,
    }))
  )
    throw notPossible('another run of this channel started meanwhile');
  const workflowInput: CertificationInput = {
    certificationId: id,
    channel: channel.name,
    channelId: channel.id,
    webhookId: endpoint.id,
    startedAt: startedAt.toISOString(),
    types: triggerOrder(),
    connectWaitSeconds: input.connectWaitSeconds ?? CONNECT_WAIT_SECONDS,
    ...(input.timing ? { timing: input.timing } : {}),
  };
  try {
    await deps.workflows.startCertificationRun(workflowInput);
  } catch (error) {
    await abandonRun(deps, id, 'its workflow could not be started');
    throw error;
  }
  deps.log.info('certification run started', { certificationId: id, channel: channel.name, webhookId: endpoint.id });
  return (await findCertificationRun(em, id))!;
}

/** One of the channel's runs; any other id, well-formed or not, is `not_found`. */
export async function readCertification(deps: ServiceDeps, channel: Channel, id: string): Promise<CertificationRun> {
  sandboxOnly(deps);
  const run = isCertificationId(id) ? await findCertificationRun(deps.orm.em.fork(), id) : null;
  if (!run || run.channelId !== channel.id) throw new ProblemError('not_found');
  return run;
}

/** The channel's runs, newest first, at most `limit` (no cursor: a channel's newest are what it reads). */
export async function listCertifications(
  deps: ServiceDeps,
  channel: Channel,
  limit: number,
): Promise<CertificationRun[]> {
  sandboxOnly(deps);
  return listCertificationRuns(deps.orm.em.fork(), {
    channelId: channel.id,
    limit: Math.min(limit, CERTIFICATION_LIST_MAX),
  });
}

export class UnknownCertification extends Refusal {}

/** The operator's list: every channel's runs (or one channel's), newest first. */
export async function operatorCertifications(
  deps: Pick<ServiceDeps, 'orm'>,
  filter: { channel?: string; limit: number },
): Promise<(CertificationRun & { channel: string | null })[]> {
  const em = deps.orm.em.fork();
  let channelId: string | null = null;
  if (filter.channel !== undefined) {
    const channel = await findChannelByName(em, filter.channel);
    if (!channel) throw new UnknownCertification(`no channel named "${filter.channel}"`);
    channelId = channel.id;
  }
  const runs = await listCertificationRuns(em, { channelId, limit: filter.limit });
  const names = new Map((await listChannels(em)).map((channel) => [channel.id, channel.name]));
  return runs.map((run) => ({ ...run, channel: names.get(run.channelId) ?? null }));
}

/** The operator's view of one run, whichever channel's. */
export async function operatorCertification(deps: Pick<ServiceDeps, 'orm'>, id: string): Promise<CertificationRun> {
  const run = isCertificationId(id) ? await findCertificationRun(deps.orm.em.fork(), id) : null;
  if (!run) throw new UnknownCertification(`no certification run ${id}`);
  return run;
}
