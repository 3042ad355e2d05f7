import { reproject } from '../db/catalogue/projector.ts';
import {
  channelsShowingProperty,
  propertyLegalSource,
  type PropertyLegalSource,
} from '../db/catalogue/legal-status.ts';
import { findSource, type StoredSource } from '../db/catalogue/sources.ts';
import { startOfLocalDay } from '../domain/availability/zones.ts';
import {
  legalProjection,
  nextLegalChange,
  nextWithdrawal,
  type LegalChange,
  type LegalSource,
} from '../domain/catalogue/legal.ts';
import { ProblemError } from '../domain/problems.ts';
import { localDate } from '../domain/time.ts';
import type { ServiceDeps } from './deps.ts';
import { writeAndNotify } from './durable-processes.ts';

/**
 * Legal identifiers that lapse (the Romanian classification certificate, the Italian CIN): what
 * the certificate-expiry workflow of a property plans and applies, and what the platform is shown
 * of it. Dates are the property's local dates (its location's zone).
 */

/** What a property's certificate-expiry workflow does next; instants in ms. */
export type ExpiryPlan =
  | { state: 'deleted' }
  /** A dated identifier lapses at `at`, the first instant of `change.on` in the property's zone. */
  | { state: 'waiting'; ref: string; change: LegalChange & { at: number } }
  /** Nothing ahead: the legal rules keep it from every channel now (`lapsed`), or nothing it carries has an end date that matters (`none`). */
  | { state: 'lapsed' | 'none'; ref: string };

function legalSource(row: PropertyLegalSource): LegalSource {
  return {
    country: row.country,
    classification: row.legal.classification,
    registration_number: row.legal.registration_number,
    identifiers: row.legal.identifiers,
  };
}

/** The property's next legal change after `now`, read from what is committed. */
export async function planCertificateExpiry(
  deps: Pick<ServiceDeps, 'orm'>,
  propertyId: string,
  now: Date,
): Promise<ExpiryPlan> {
  const row = await propertyLegalSource(deps.orm.em.fork(), { id: propertyId });
  if (!row) return { state: 'deleted' };
  const source = legalSource(row);
  const today = localDate(now, row.timezone);
  const change = nextLegalChange(source, today);
  if (change)
    return { state: 'waiting', ref: row.ref, change: { ...change, at: startOfLocalDay(change.on, row.timezone) } };
  return { state: legalProjection(source, today).publishable ? 'none' : 'lapsed', ref: row.ref };
}

/**
 * Re-projects the property for every channel as of `now` (the instant its workflow woke for):
 * a lapsed identifier withdraws it, with its location and owner following, under the usual
 * channel-log locks. A body that did not change writes nothing, so a retried or repeated call,
 * or one that a renewal overtook, is harmless. Answers the channels shown it before and after.
 */
export async function applyCertificateExpiry(
  deps: Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'secrets'>,
  propertyId: string,
  now: Date,
): Promise<{ before: string[]; after: string[] }> {
  return writeAndNotify(deps, async (tx) => {
    const before = await channelsShowingProperty(tx, propertyId);
    await reproject(tx, { properties: [propertyId] }, { clock: { now: () => now }, secret: deps.secrets.ring.geo });
    return { before, after: await channelsShowingProperty(tx, propertyId) };
  });
}

/** `legal_status` of a property as the platform reads it: the next lapse that withdraws it, and from which channels. */
export interface LegalStatus {
  next_expiry: { on: string; identifier: LegalChange['identifier']; withdraws_from: string[] } | null;
}

/** A property as stored, with its legal status on the property's today. */
export async function getPropertyWithLegalStatus(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  ref: string,
): Promise<{ source: StoredSource; legalStatus: LegalStatus }> {
  const em = deps.orm.em.fork();
  const source = await findSource(em, 'property', ref);
  const row = await propertyLegalSource(em, { ref });
  if (!source || !row) throw new ProblemError('not_found');
  const withdrawal = nextWithdrawal(legalSource(row), localDate(deps.clock.now(), row.timezone));
  return {
    source,
    legalStatus: {
      next_expiry: withdrawal && {
        on: withdrawal.on,
        identifier: withdrawal.identifier,
        withdraws_from: await channelsShowingProperty(em, row.id),
      },
    },
  };
}

/**
 * After a property write committed: arm its workflow (started when it has a dated identifier,
 * else only told, so one running for a date now gone plans again and ends). After a location
 * write, its properties' workflows plan again (their zone may have moved). The write is answered
 * once they are armed, or after `ARM_WAIT_MS` at most: when Temporal is slow or unreachable the
 * write stands, the arming goes on (or its failure is logged) and the next worker start's
 * catch-up (services/certificate-expiry-catch-up.ts) starts what is missing.
 */
export async function armCertificateExpiries(
  deps: Pick<ServiceDeps, 'workflows' | 'log'>,
  arm: { start?: readonly { id: string; ref: string }[]; tell?: readonly string[] },
): Promise<void> {
  const arming = (async () => {
    try {
      for (const property of arm.start ?? []) await deps.workflows.armCertificateExpiry(property.id, property.ref);
      if (arm.tell?.length) await deps.workflows.rearmCertificateExpiries(arm.tell);
    } catch (error) {
      deps.log.warn('could not arm the certificate-expiry workflow of a property', { error: String(error) });
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    arming,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ARM_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
}

/** The longest a platform write waits for its certificate-expiry workflow to be armed. */
export const ARM_WAIT_MS = 2_000;
