import { advanceKeyRotation } from '../services/owner-connect/key-rotation.ts';
import type { ActivityDeps } from './deps.ts';

export function ownerConnectKeyActivities(deps: ActivityDeps) {
  return {
    /**
     * Applies what the signing-key schedule has due at `atMs` (the instant the workflow woke for,
     * so a retried or late call decides as the schedule did) and answers when to look again.
     */
    async advanceOwnerConnectKeys(atMs: number, rotationDays: number): Promise<{ applied: string[]; nextAtMs: number }> {
      const { applied, nextAt } = await advanceKeyRotation(deps, new Date(atMs), rotationDays);
      return { applied, nextAtMs: nextAt.getTime() };
    },
  };
}
