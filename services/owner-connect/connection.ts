import { reproject } from '../../db/catalogue/projector.ts';
import {
  deleteConnection,
  expireToken,
  findToken,
  lockConnection,
  ownerOfExternalId,
  putConnection,
  setTokenState,
} from '../../db/owner-connect.ts';
import { writeTransaction } from '../../db/sql.ts';
import { confirmationRefusal } from '../../domain/owner-connect.ts';
import { ProblemError } from '../../domain/problems.ts';
import { toInstant, wholeSeconds } from '../../domain/time.ts';
import { projectorDeps } from '../catalogue.ts';
import type { ServiceDeps } from '../deps.ts';
import { notifyDispatcher } from '../durable-processes.ts';
import { verifyOwnerConnectToken } from './verify.ts';

/** The connection a confirmed token made, as `PUT /owners/{owner_id}/connection` answers it. */
export interface OwnerConnection {
  owner_id: string;
  connected_at: string;
  /** The token's `property_ids`: the owner's properties on the channel when the host started. */
  property_ids: string[];
  /** The token's `jti`. */
  token_id: string;
}

export interface ChannelCaller {
  channelId: string;
  channelName: string;
}

const VISIBLE = new Set(['active', 'inactive']);

/**
 * A channel confirms a token for the owner in the path: every check of the token first
 * (services/owner-connect/verify.ts), then the owner (unknown to the channel: `not_found`; no
 * longer distributed: `owner_not_distributed`), then the token's record (`owner_connect_token_used`
 * / `_expired`, see domain/owner-connect.ts), then its workflow's Update, which binds it once.
 * Nothing is written on a refusal.
 */
export async function confirmOwnerConnection(
  deps: ServiceDeps,
  caller: ChannelCaller,
  ownerId: string,
  token: string,
): Promise<OwnerConnection> {
  const claims = await verifyOwnerConnectToken(deps, token, { channel: caller.channelName, ownerId });
  const em = deps.orm.em.fork();
  const owner = await ownerOfExternalId(em, caller.channelId, ownerId);
  if (!owner) throw new ProblemError('not_found');
  if (!VISIBLE.has(owner.status))
    throw new ProblemError('owner_not_distributed', {
      detail: 'no property of the owner is distributed to the channel now',
    });
  const record = await findToken(em, claims.jti);
  if (!record || record.channelId !== caller.channelId || record.ownerExternalId !== ownerId)
    throw new ProblemError('invalid_owner_connect_token', { detail: 'no such token was issued' });
  const early = confirmationRefusal(record.state, deps.clock.now() <= record.confirmUntil);
  if (early) throw new ProblemError(early);

  const outcome = await deps.workflows.confirmOwnerConnect(claims.jti, { channel: caller.channelName, ownerId });
  if ('refused' in outcome) throw new ProblemError(outcome.refused as 'owner_connect_token_used');
  if ('closed' in outcome) {
    // The window closed by the workflow's clock: the record says how it ended.
    const closed = await findToken(deps.orm.em.fork(), claims.jti);
    throw new ProblemError(confirmationRefusal(closed?.state ?? 'expired', false) ?? 'owner_connect_token_expired');
  }
  return {
    owner_id: ownerId,
    connected_at: outcome.binding.connected_at,
    property_ids: record.propertyIds,
    token_id: record.jti,
  };
}

/**
 * The workflow's binding of its token (activity `bindOwnerConnection`): connects the owner in the
 * token's channel, replacing an earlier connection (whose token is then revoked), and re-projects
 * that channel's view of the owner, so `connected_at` changes there only and `owner.updated` is
 * written under the channel's log lock. Idempotent: a token already confirmed answers its
 * connection. Refuses with a ProblemError when the record moved on.
 */
export async function bindOwnerConnection(
  deps: Pick<ServiceDeps, 'orm' | 'clock' | 'secrets' | 'workflows' | 'log'>,
  jti: string,
): Promise<{ connected_at: string }> {
  let replaced: string | null = null;
  const connectedAt = await writeTransaction(deps.orm.em, async (tx) => {
    replaced = null;
    const record = await findToken(tx, jti, { lock: true });
    if (!record) throw new ProblemError('invalid_owner_connect_token', { detail: 'no such token was issued' });
    if (record.state === 'confirmed' && record.connectedAt) return record.connectedAt;
    const refusal = confirmationRefusal(record.state, true);
    if (refusal) throw new ProblemError(refusal);
    const owner = await ownerOfExternalId(tx, record.channelId, record.ownerExternalId);
    if (!owner || !VISIBLE.has(owner.status)) throw new ProblemError('owner_not_distributed');
    const previous = await lockConnection(tx, record.channelId, record.ownerId);
    const now = wholeSeconds(deps.clock.now());
    await putConnection(tx, record.channelId, record.ownerId, jti, now);
    await setTokenState(tx, jti, 'confirmed', now);
    if (previous && previous.jti !== jti) {
      await setTokenState(tx, previous.jti, 'revoked');
      replaced = previous.jti;
    }
    await reproject(tx, { owners: [record.ownerId], channelId: record.channelId }, projectorDeps(deps));
    return now;
  });
  notifyDispatcher(deps);
  if (replaced) await revokeQuietly(deps, replaced);
  return { connected_at: toInstant(connectedAt) };
}

/**
 * Removes the owner's connection on the channel: `connected_at` becomes null in the channel's view
 * (`owner.updated`) and the token that made it is never accepted again. No connection, or an owner
 * the channel does not know, changes nothing: the answer is the same 204.
 */
export async function removeOwnerConnection(deps: ServiceDeps, caller: ChannelCaller, ownerId: string): Promise<void> {
  const owner = await ownerOfExternalId(deps.orm.em.fork(), caller.channelId, ownerId);
  if (!owner) return;
  const removed = await writeTransaction(deps.orm.em, async (tx) => {
    const existing = await lockConnection(tx, caller.channelId, owner.ownerId);
    if (!existing) return null;
    await deleteConnection(tx, caller.channelId, owner.ownerId);
    await setTokenState(tx, existing.jti, 'revoked');
    await reproject(tx, { owners: [owner.ownerId], channelId: caller.channelId }, projectorDeps(deps));
    return existing.jti;
  });
  if (!removed) return;
  notifyDispatcher(deps);
  await revokeQuietly(deps, removed);
}

/** The workflow's window closed unconfirmed (activity `expireOwnerConnectToken`). */
export async function expireOwnerConnectToken(deps: Pick<ServiceDeps, 'orm'>, jti: string): Promise<void> {
  await expireToken(deps.orm.em.fork(), jti);
}

/** Best effort: the record already refuses the token; the signal only ends its workflow early. */
async function revokeQuietly(deps: Pick<ServiceDeps, 'workflows' | 'log'>, jti: string): Promise<void> {
  try {
    await deps.workflows.signalOwnerConnectionRevoked(jti);
  } catch (error) {
    deps.log.warn(
      'could not tell an owner-connect workflow its connection is gone; the token record refuses it anyway',
      { jti, error: String(error) },
    );
  }
}
