import { advanceKeyRotation } from '../services/owner-connect/key-rotation.ts';
import type { ActivityDeps } from './deps.ts';

export function ownerConnectKeyActivities(deps: ActivityDeps) {
  return {
    /**
     * Applies what the signing-key schedule has due at the instant the workflow woke (`atMs`, its
     * time, so the time-skipping server moves it) and answers when to look again. A call retried
     * later (the database was away) acts at its own later instant, never earlier: a key's
     * publication is stamped no earlier than it became visible, so its 24 hours are whole.
     */
    async advanceOwnerConnectKeys(
      atMs: number,
      rotationDays: number,
    ): Promise<{ applied: string[]; nextAtMs: number }> {
      const at = new Date(Math.max(atMs, deps.clock.now().getTime()));
      const { applied, nextAt } = await advanceKeyRotation(deps, at, rotationDays);
      return { applied, nextAtMs: nextAt.getTime() };
    },
  };
}
