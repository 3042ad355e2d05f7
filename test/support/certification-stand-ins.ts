import type { TriggerSeen } from '../../services/certification-steps.ts';
import type { CertificationInput } from '../../workflows/certification.ts';
import type { StandIns } from './workflow-stand-ins.ts';

// A certification run's stand-in activities, answering what the real ones answer in shape: every
// delivery 204, every probe refused 401, a rate window with 50 s left, the owner confirmed.

export const AT = '2026-11-28T12:00:00.000Z';
export const TYPES = ['webhook.ping', 'property.updated', 'availability.updated', 'property.withdrawn'];

/** A probe's answer: refused 401. */
export const probe = (kind: string) => ({ eventId: `evt_${kind}`, status: 401, durationMs: 5, error: null });

export function seen(type: string): TriggerSeen {
  const subject =
    type === 'availability.updated'
      ? { id: 'prp_1', from: '2026-12-05', to: '2026-12-06' }
      : { id: type === 'webhook.ping' ? 'whk_1' : 'prp_1', from: null, to: null };
  return {
    type,
    attempt: { type, eventId: `evt_${type}`, status: 204, durationMs: 12, error: null },
    answeredAt: AT,
    subject,
  };
}

export function certificationStandIns(overrides: StandIns = {}): StandIns {
  return {
    setCertificationStep: () => undefined,
    prepareCertification: () => undefined,
    sendCertificationProbe: (_run, kind) => probe(kind),
    triggerCertificationEvent: (_run, type) => seen(type),
    certificationWindowLeft: () => 50_000,
    fillCertificationWindow: () => ({ filledAt: AT, windowEndsAt: '2026-11-28T12:00:15.000Z', leftMs: 15_000 }),
    handOffCertificationOwner: () => ({
      ownerId: 'own_1',
      tokenId: 'jti-1',
      handedOffAt: AT,
      windowEndsAt: '2026-11-28T13:00:00.000Z',
      waitUntil: '2026-11-28T12:05:00.000Z',
    }),
    awaitCertificationOwner: () => '2026-11-28T12:00:30.000Z',
    judgeCertification: () => 'passed',
    abandonCertification: () => undefined,
    ...overrides,
  };
}

/** The run's input, as services/certification.ts starts it. */
export const CERTIFICATION_INPUT: CertificationInput = {
  certificationId: 'crt_1',
  channel: 'travel',
  channelId: 'c-1',
  webhookId: 'whk_1',
  startedAt: AT,
  types: TYPES,
  connectWaitSeconds: 300,
};
