import { asyncLocalStorage } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CertificationState } from '../domain/certification/runs.ts';
import { ProblemError } from '../domain/problems.ts';
import { createWebhookSender, type WebhookSender } from '../infra/webhook-sender.ts';
import { abandonRun, judgeRun, type GatheredObservations } from '../services/certification-judge.ts';
import { sendProbe, type ProbeKind } from '../services/certification-probes.ts';
import {
  awaitConfirmation,
  fillWindow,
  handOffOwner,
  prepareCorner,
  setStep,
  triggerAndObserve,
  windowLeftMs,
  type RunRef,
} from '../services/certification-steps.ts';
import type { ServiceDeps } from '../services/deps.ts';
import type { TriggerType } from '../services/sandbox-trigger.ts';
import type { ActivityDeps } from './deps.ts';

/** The failure's `type` when a worker without the deployment's configuration is asked to run one. */
export const CERTIFICATION_UNAVAILABLE = 'CertificationUnavailable';

/**
 * A certification run's activities (workflows/certification.ts): each step of
 * services/certification-*.ts with the service dependencies it needs. The run triggers events,
 * issues owner-connect tokens and sends probes, so it needs the deployment's configuration
 * (`config`: its origin, hand-off limits and webhook transport settings); a worker without it
 * fails the step for good, and the run ends `failed`. A refusal (a problem) is final too.
 */
export function certificationActivities(deps: ActivityDeps & Pick<ServiceDeps, 'stores'>) {
  let pingSender: WebhookSender | undefined;
  const service = (): ServiceDeps => {
    const { config } = deps;
    if (!config)
      throw ApplicationFailure.nonRetryable(
        'this worker was given no configuration to run certifications',
        CERTIFICATION_UNAVAILABLE,
      );
    pingSender ??= createWebhookSender({
      secrets: deps.secrets,
      clock: deps.clock,
      settings: config.webhooks,
      kind: 'ping',
    });
    return { ...deps, config, pingSender };
  };
  const final = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ProblemError) throw ApplicationFailure.nonRetryable(error.message, error.code);
      throw error;
    }
  };
  const beat = () => asyncLocalStorage.getStore()?.heartbeat();
  return {
    async setCertificationStep(certificationId: string, step: string): Promise<void> {
      await setStep(deps, certificationId, step);
    },
    async prepareCertification(run: RunRef): Promise<void> {
      await final(() => prepareCorner(service(), run));
    },
    async sendCertificationProbe(run: RunRef, kind: ProbeKind) {
      return final(() => sendProbe(service(), run, kind));
    },
    /** Triggers `type` and, with `observe`, watches its delivery's first attempt (heartbeating). */
    async triggerCertificationEvent(run: RunRef, type: string, observe: boolean) {
      return final(() => triggerAndObserve(service(), run, type as TriggerType, { observe, beat }));
    },
    certificationWindowLeft(): Promise<number> {
      return Promise.resolve(windowLeftMs(deps));
    },
    async fillCertificationWindow(run: RunRef) {
      return fillWindow(deps, run);
    },
    async handOffCertificationOwner(run: RunRef, connectWaitSeconds: number, step: string) {
      return final(() => handOffOwner(service(), run, connectWaitSeconds, step));
    },
    /** Waits for the token's confirmation until `waitUntil` (heartbeating): when it came, or null. */
    async awaitCertificationOwner(tokenId: string, waitUntil: string): Promise<string | null> {
      return awaitConfirmation(deps, tokenId, waitUntil, beat);
    },
    async judgeCertification(
      run: RunRef & { channelId: string },
      gathered: GatheredObservations,
    ): Promise<CertificationState> {
      return judgeRun(deps, run, gathered);
    },
    async abandonCertification(certificationId: string, reason: string): Promise<void> {
      await abandonRun(deps, certificationId, reason);
    },
  };
}
