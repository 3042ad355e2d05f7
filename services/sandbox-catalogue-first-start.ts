import { firstOrganizationCreatedAt } from '../db/catalogue/sources.ts';
import { whileSandboxLockHeld } from '../db/sandbox-lock.ts';
import type { ServiceDeps } from './deps.ts';
import { DEFAULT_SANDBOX_CHANNELS, DEFAULT_SANDBOX_PROPERTIES, generateSandbox } from './sandbox-catalogue.ts';

/**
 * SVC_SANDBOX_CATALOGUE_SEED at an API process's start: a sandbox whose catalogue is empty (no
 * organization at all) generates one, beside serving. At most once across processes: the one
 * holding the advisory lock generates, the others starting with it pass, and every later start
 * finds the catalogue no longer empty, even when a generation stopped half-way (the operator's
 * `sandbox generate` with the same seed completes it). Never throws; production ignores the setting.
 */
export async function generateSandboxAtFirstStart(
  deps: ServiceDeps,
  properties = DEFAULT_SANDBOX_PROPERTIES,
): Promise<'generated' | 'skipped'> {
  const seed = deps.config.sandboxCatalogueSeed;
  if (seed === undefined) return 'skipped';
  if (deps.config.environment !== 'sandbox') {
    deps.log.warn('SVC_SANDBOX_CATALOGUE_SEED is ignored: a production deployment never generates a catalogue');
    return 'skipped';
  }
  try {
    const outcome = await whileSandboxLockHeld(deps.orm.em.fork(), async () => {
      if ((await firstOrganizationCreatedAt(deps.orm.em.fork(), '')) !== null) return null;
      return generateSandbox(deps, {
        seed,
        properties,
        channels: DEFAULT_SANDBOX_CHANNELS,
      });
    });
    if (!outcome.ran) {
      deps.log.info('sandbox catalogue: another process is generating it');
      return 'skipped';
    }
    if (outcome.result === null) {
      deps.log.info('sandbox catalogue: the catalogue is not empty, nothing generated');
      return 'skipped';
    }
    deps.log.info('sandbox catalogue generated', {
      seed,
      properties: outcome.result.records.properties,
      seconds: outcome.result.seconds.total,
    });
    return 'generated';
  } catch (error) {
    deps.log.error('sandbox catalogue: generation failed; `npm run admin -- sandbox generate` completes it', {
      error: String(error),
    });
    return 'skipped';
  }
}
