import { ApplicationFailure } from '@temporalio/common';
import { ProblemError } from '../domain/problems.ts';
import { bindOwnerConnection, expireOwnerConnectToken } from '../services/owner-connect/connection.ts';
import type { ServiceDeps } from '../services/deps.ts';
import type { ActivityDeps } from './deps.ts';

export function ownerConnectActivities(deps: ActivityDeps & Pick<ServiceDeps, 'stores'>) {
  return {
    /** Binds the token to the connection it makes; a refusal is final (its problem code as the failure's type). */
    async bindOwnerConnection(jti: string): Promise<{ connected_at: string }> {
      try {
        return await bindOwnerConnection(deps, jti);
      } catch (error) {
        if (error instanceof ProblemError) throw ApplicationFailure.nonRetryable(error.message, error.code);
        throw error;
      }
    },

    /** Marks the token expired unless it was confirmed or revoked meanwhile. */
    async expireOwnerConnectToken(jti: string): Promise<void> {
      await expireOwnerConnectToken(deps, jti);
    },
  };
}
