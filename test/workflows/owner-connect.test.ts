import type { MikroORM } from '@mikro-orm/postgresql';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { OwnerConnectTokenSchema } from '../../db/entities/index.ts';
import { ProblemError } from '../../domain/problems.ts';
import { confirmOwnerConnection, removeOwnerConnection } from '../../services/owner-connect/connection.ts';
import { startOwnerConnect } from '../../services/owner-connect/hand-off.ts';
import { confirmOwnerConnectionUpdate } from '../../workflows/definitions.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { SA_STATE } from '../../workflows/search-attributes.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TestClock } from '../support/clock.ts';
import { recordHistory, timeSkippingEnvironment } from '../support/time-skipping.ts';
import { runTestWorker } from '../support/worker.ts';

const SECOND = 1000;
let env: TestWorkflowEnvironment;
let orm: MikroORM;
let ctx: AdminContext;
let taskQueue: string;
/** The service's clock, set to the test server's before each step, so `iat` and the workflow's timer agree. */
const clock = new TestClock();
let channel: { id: string; name: string };

beforeAll(async () => {
  env = await timeSkippingEnvironment();
  clock.set(new Date(await env.currentTimeMs()));
  const bed = await apiTestBed({
    clock,
    temporal: env.client,
    taskQueue: 'owner-connect',
    env: { HORIZON_ROLLS_FROM_API: 'false' },
  });
  ({ ctx, orm } = bed);
  taskQueue = bed.taskQueue!;
  const made = await bed.channel();
  channel = { id: made.channel.id, name: made.channel.name };
  const { host } = bed;
  await host.organization('wf-org');
  await host.owner('wf-own', { organization: 'wf-org' });
  await host.location('wf-loc', { organization: 'wf-org', owner: 'wf-own' });
  await host.property('wf-prp', { location: 'wf-loc', owner: 'wf-own' });
  await host.distribute('wf-prp', [channel.name]);
  // Running before any token is minted: bundling takes real seconds, which the test server's
  // clock would count into the tokens' windows.
  await runTestWorker(env, orm, { taskQueue, clock });
}, 120_000);

/** Moves workflow time, and the service's clock with it. */
async function sleep(ms: number): Promise<void> {
  await env.sleep(ms);
  clock.set(new Date(await env.currentTimeMs()));
}

async function mint() {
  clock.set(new Date(await env.currentTimeMs()));
  const { token } = await startOwnerConnect(ctx, { ownerRef: 'wf-own', channel: channel.name });
  const claims = decodeJwt(token);
  return {
    token,
    jti: claims.jti!,
    ownerId: claims.sub!,
    iat: claims.iat!,
    handle: env.client.workflow.getHandle(workflowIds.ownerConnect(claims.jti!)),
  };
}

const caller = () => ({ channelId: channel.id, channelName: channel.name });
const stateOf = async (jti: string) => (await orm.em.fork().findOneOrFail(OwnerConnectTokenSchema, jti)).state;

async function refusal(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProblemError);
  return (error as ProblemError).code;
}

describe('owner-connect workflow', () => {
  test('an unconfirmed token waits out its 3600 seconds, then is marked expired; a confirmation after the workflow closed is refused as expired', async () => {
    const { token, jti, ownerId, iat, handle } = await mint();
    await sleep((iat + 3599) * SECOND - (await env.currentTimeMs()));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await stateOf(jti)).toBe('waiting');
    await sleep(2 * SECOND);
    expect(await handle.result()).toBe('expired');
    await recordHistory(handle, 'owner-connect-expired');
    expect(await stateOf(jti)).toBe('expired');
    expect((await handle.describe()).typedSearchAttributes.get(SA_STATE)).toBe('expired');
    // The API's clock still inside the window (a clock behind the workflow's): the record answers.
    clock.set(new Date((iat + 600) * SECOND));
    expect(await refusal(confirmOwnerConnection(ctx, caller(), ownerId, token))).toBe('owner_connect_token_expired');
  });

  test('the first confirmation binds; the same again answers it; another use is refused by the validator before it is accepted; after the window the token counts as used', async () => {
    const { token, jti, ownerId, handle } = await mint();
    await sleep(1800 * SECOND);
    const first = await confirmOwnerConnection(ctx, caller(), ownerId, token);
    expect(first).toMatchObject({ owner_id: ownerId, token_id: jti });
    expect((await handle.describe()).typedSearchAttributes.get(SA_STATE)).toBe('confirmed');
    await sleep(60 * SECOND);
    expect(await confirmOwnerConnection(ctx, caller(), ownerId, token)).toEqual(first);

    const rejected = await handle
      .executeUpdate(confirmOwnerConnectionUpdate, { args: [{ channel: channel.name, ownerId: 'own_someone_else' }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((rejected as WorkflowUpdateFailedError & { cause: { type: string } }).cause.type).toBe(
      'owner_connect_token_used',
    );

    await sleep(1800 * SECOND);
    expect(await handle.result()).toBe('confirmed');
    await recordHistory(handle, 'owner-connect-confirmed');
    // A validator's refusal is not in the history: the two confirmations of the token only.
    const history = await handle.fetchHistory();
    expect(history.events?.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length).toBe(2);
    expect(await stateOf(jti)).toBe('confirmed');
    expect(await refusal(confirmOwnerConnection(ctx, caller(), ownerId, token))).toBe('owner_connect_token_used');
  });

  test('removing the connection ends the workflow early as revoked, and the token is refused from then on', async () => {
    const { token, jti, ownerId, handle } = await mint();
    await confirmOwnerConnection(ctx, caller(), ownerId, token);
    await removeOwnerConnection(ctx, caller(), ownerId);
    expect(await handle.result()).toBe('revoked');
    expect(await stateOf(jti)).toBe('revoked');
    expect((await handle.describe()).typedSearchAttributes.get(SA_STATE)).toBe('revoked');
    expect(await refusal(confirmOwnerConnection(ctx, caller(), ownerId, token))).toBe('owner_connect_token_used');
  });
});
