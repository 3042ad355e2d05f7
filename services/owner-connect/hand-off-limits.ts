import { addToWindow } from '../../db/counters.ts';
import { ProblemError } from '../../domain/problems.ts';
import type { ServiceDeps } from '../deps.ts';

/**
 * Each token minted costs a row, a signature and an hour-long workflow: minting is counted per
 * minute (in the shared request counters, so the limits hold across API processes) per host
 * session and per organization of the owner, whichever door the hand-off came through. Past a
 * limit: `rate_limited` with `Retry-After`, the seconds left in the minute.
 */
export async function chargeHandOff(
  deps: Pick<ServiceDeps, 'orm' | 'clock' | 'config'>,
  by: { organizationRef: string; hostSessionId: string | undefined },
): Promise<void> {
  const { perSession, perOrganization } = deps.config.handOffLimits;
  const em = deps.orm.em.fork();
  const now = deps.clock.now();
  const charge = async (bucket: string, limit: number, detail: string) => {
    const { count, resetSeconds } = await addToWindow(em, bucket, 1, now);
    if (count > limit)
      throw new ProblemError('rate_limited', { detail, headers: { 'Retry-After': String(resetSeconds) } });
  };
  // The session's own count first: a refused session spends nothing of its organization's.
  if (by.hostSessionId !== undefined)
    await charge(
      `hand-off:session:${by.hostSessionId}`,
      perSession,
      `more than ${perSession} owner-connect hand-offs from this session in a minute`,
    );
  await charge(
    `hand-off:organization:${by.organizationRef}`,
    perOrganization,
    `more than ${perOrganization} owner-connect hand-offs for this organization in a minute`,
  );
}
