import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { confirmationRefusal } from '../domain/owner-connect.ts';
import {
  confirmOwnerConnectionUpdate,
  endOwnerConnectWindowUpdate,
  ownerConnectionRevokedSignal,
  type OwnerConnectBinding,
  type OwnerConnectConfirmation,
} from './definitions.ts';
import { SA_STATE } from './search-attributes.ts';

const { bindOwnerConnection, expireOwnerConnectToken } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
});

export interface OwnerConnectInput {
  jti: string;
  channel: string;
  /** The token's `sub`. */
  ownerId: string;
  /** `iat` + 3600 s (RFC 3339): the last instant a confirmation is accepted. */
  confirmUntil: string;
}

export type OwnerConnectOutcome = 'confirmed' | 'expired' | 'revoked';

type State = 'waiting' | 'confirmed' | 'revoked';

/**
 * One per owner-connect token (`owner-connect:<jti>`, SvcState `waiting`, `confirmed`, `expired`,
 * `revoked`): accepts the token's confirmation until `confirmUntil`. The confirmation is an Update
 * whose validator refuses, before it is accepted, a token used elsewhere, revoked, or past its
 * window; the first accepted one binds the token (activity `bindOwnerConnection`), and any later
 * one answers the same connection. It ends at `confirmUntil`, marking an unconfirmed token
 * expired, or as soon as its connection is removed; in a sandbox, also when `endOwnerConnectWindow`
 * ends its window early (a history without that Update replays as before).
 */
export async function ownerConnect(input: OwnerConnectInput): Promise<OwnerConnectOutcome> {
  const deadline = Date.parse(input.confirmUntil);
  let state: State = 'waiting';
  let binding: Promise<OwnerConnectBinding> | undefined;
  /** The window was ended early (the sandbox's expire-now); a history without that Update never sets it. */
  let windowEnded = false;

  const bind = async (): Promise<OwnerConnectBinding> => {
    try {
      const result = await bindOwnerConnection(input.jti);
      state = 'confirmed';
      upsertSearchAttributes([{ key: SA_STATE, value: 'confirmed' }]);
      return result;
    } catch (error) {
      binding = undefined;
      // A refusal the activity decided (the record moved on meanwhile) keeps its code.
      const refusal =
        error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause.type : undefined;
      throw ApplicationFailure.nonRetryable('the token could not be bound', refusal ?? 'owner_connect_bind_failed');
    }
  };

  setHandler(confirmOwnerConnectionUpdate, async () => (binding ??= bind()), {
    validator: (request: OwnerConnectConfirmation) => {
      if (request.channel !== input.channel || request.ownerId !== input.ownerId)
        throw ApplicationFailure.nonRetryable('the token was issued for another use', 'owner_connect_token_used');
      const refusal = confirmationRefusal(state, !windowEnded && Date.now() <= deadline);
      if (refusal) throw ApplicationFailure.nonRetryable(refusal, refusal);
    },
  });
  setHandler(ownerConnectionRevokedSignal, () => {
    state = 'revoked';
  });
  setHandler(endOwnerConnectWindowUpdate, () => {
    windowEnded = true;
  });

  const remaining = deadline - Date.now();
  if (remaining > 0) await condition(() => state === 'revoked' || windowEnded, remaining);
  await condition(allHandlersFinished);

  if (state === 'waiting') {
    await expireOwnerConnectToken(input.jti);
    upsertSearchAttributes([{ key: SA_STATE, value: 'expired' }]);
    return 'expired';
  }
  if (state === 'revoked') upsertSearchAttributes([{ key: SA_STATE, value: 'revoked' }]);
  return state;
}
