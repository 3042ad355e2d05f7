import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CONFIRMATION_WINDOW_SECONDS } from '../../domain/owner-connect.ts';
import { confirmOwnerConnectionUpdate, ownerConnectionRevokedSignal } from '../../workflows/definitions.ts';
import type { ownerConnect } from '../../workflows/owner-connect.ts';
import { SA_STATE } from '../../workflows/search-attributes.ts';
import {
  described,
  idle,
  SLACK_MS,
  startStandInWorker,
  type StandInWorker,
  type StandIns,
} from '../support/workflow-stand-ins.ts';

const WINDOW_MS = CONFIRMATION_WINDOW_SECONDS * 1000;
const CONNECTED_AT = '2026-01-01T00:00:00.000Z';
const CONFIRMATION = { channel: 'partner', ownerId: 'own_1' };

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

const binds: StandIns = {
  bindOwnerConnection: () => ({ connected_at: CONNECTED_AT }),
  expireOwnerConnectToken: async () => {},
};

/** Starts the workflow of token `jti_1`, minted now (the test server's), for `own_1` on `partner`. */
async function start(standIns: StandIns = binds) {
  const { workflowId, calls } = worker.workflow(standIns);
  const deadline = (await worker.env.currentTimeMs()) + WINDOW_MS;
  const handle = await worker.env.client.workflow.start<typeof ownerConnect>('ownerConnect', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [{ jti: 'jti_1', ...CONFIRMATION, confirmUntil: new Date(deadline).toISOString() }],
  });
  return { handle, calls, deadline };
}

/** What a confirmation update is refused with (its failure's type), or `accepted`. */
async function confirm(handle: Awaited<ReturnType<typeof start>>['handle'], request = CONFIRMATION) {
  return handle.executeUpdate(confirmOwnerConnectionUpdate, { args: [request] }).then(
    (binding) => binding,
    (error: unknown) => {
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      return { refused: ((error as WorkflowUpdateFailedError).cause as ApplicationFailure).type };
    },
  );
}

const stateOf = async (handle: Awaited<ReturnType<typeof start>>['handle']) =>
  (await handle.describe()).typedSearchAttributes.get(SA_STATE);

describe('ownerConnect with stand-in activities', () => {
  test('an unconfirmed token is marked expired when its 3600-second window ends, not before; SvcState expired', async () => {
    const { handle, calls, deadline } = await start();
    await worker.env.sleep(WINDOW_MS - 10_000);
    expect(calls).toEqual([]);
    expect(await handle.result()).toBe('expired');
    expect(described(calls)).toEqual(['expireOwnerConnectToken("jti_1")']);
    expect(calls[0]!.atMs).toBeGreaterThanOrEqual(deadline);
    expect(calls[0]!.atMs - deadline).toBeLessThan(SLACK_MS);
    expect(await stateOf(handle)).toBe('expired');
  });

  test('the first confirmation binds the token; the same again answers that binding without binding twice; the workflow ends confirmed at the window end', async () => {
    const { handle, calls, deadline } = await start();
    await worker.env.sleep(1800_000);
    expect(await confirm(handle)).toEqual({ connected_at: CONNECTED_AT });
    expect(await stateOf(handle)).toBe('confirmed');
    expect(await confirm(handle)).toEqual({ connected_at: CONNECTED_AT });
    expect(described(calls)).toEqual(['bindOwnerConnection("jti_1")']);
    expect(await handle.result()).toBe('confirmed');
    expect((await handle.describe()).closeTime!.getTime()).toBeGreaterThanOrEqual(deadline);
  });

  test.each([
    ['another channel', { channel: 'other', ownerId: 'own_1' }],
    ['another owner', { channel: 'partner', ownerId: 'own_2' }],
  ])(
    'a confirmation for %s is refused by the validator as used, before it is accepted, and binds nothing',
    async (_label, request) => {
      const { handle, calls } = await start();
      expect(await confirm(handle, request)).toEqual({ refused: 'owner_connect_token_used' });
      const events = (await handle.fetchHistory()).events ?? [];
      expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toEqual([]);
      expect(calls).toEqual([]);
      await idle(handle);
      await handle.terminate();
    },
  );

  test('a bind the activity refuses fails the confirmation with its code; the token then expires at the window end', async () => {
    const { handle, calls } = await start({
      ...binds,
      bindOwnerConnection: () => {
        throw ApplicationFailure.nonRetryable('the owner moved on', 'owner_connect_token_used');
      },
    });
    expect(await confirm(handle)).toEqual({ refused: 'owner_connect_token_used' });
    expect(await handle.result()).toBe('expired');
    expect(described(calls)).toEqual(['bindOwnerConnection("jti_1")', 'expireOwnerConnectToken("jti_1")']);
  });

  test('a removed connection ends the workflow at once as revoked, long before the window end, without expiring the token; the closed workflow takes no later confirmation', async () => {
    const { handle, calls, deadline } = await start();
    expect(await confirm(handle)).toEqual({ connected_at: CONNECTED_AT });
    await handle.signal(ownerConnectionRevokedSignal);
    expect(await handle.result()).toBe('revoked');
    expect((await handle.describe()).closeTime!.getTime()).toBeLessThan(deadline - WINDOW_MS / 2);
    expect(await stateOf(handle)).toBe('revoked');
    expect(described(calls)).toEqual(['bindOwnerConnection("jti_1")']);
    await expect(handle.executeUpdate(confirmOwnerConnectionUpdate, { args: [CONFIRMATION] })).rejects.toThrow();
  });
});
