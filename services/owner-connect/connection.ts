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
  deps: Pick<ServiceDeps, 'stores' | 'clock' | 'config' | 'workflows'>,
  caller: ChannelCaller,
  ownerId: string,
  token: string,
): Promise<OwnerConnection> {
  const claims = await verifyOwnerConnectToken(deps, token, { channel: caller.channelName, ownerId });
  const store = deps.stores.ownerConnections;
  const owner = await store.ownerOfExternalId(caller.channelId, ownerId);
  if (!owner) throw new ProblemError('not_found');
  if (!VISIBLE.has(owner.status))
    throw new ProblemError('owner_not_distributed', {
      detail: 'no property of the owner is distributed to the channel now',
    });
  const record = await store.findToken(claims.jti);
  if (!record || record.channelId !== caller.channelId || record.ownerExternalId !== ownerId)
    throw new ProblemError('invalid_owner_connect_token', { detail: 'no such token was issued' });
  const early = confirmationRefusal(record.state, deps.clock.now() <= record.confirmUntil);
  if (early) throw new ProblemError(early);

  const outcome = await deps.workflows.confirmOwnerConnect(claims.jti, { channel: caller.channelName, ownerId });
  if ('refused' in outcome) throw new ProblemError(outcome.refused as 'owner_connect_token_used');
  if ('closed' in outcome) {
    // The window closed by the workflow's clock: the record says how it ended.
    const closed = await store.findToken(claims.jti);
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
  deps: Pick<ServiceDeps, 'stores' | 'clock' | 'secrets' | 'workflows' | 'log'>,
  jti: string,
): Promise<{ connected_at: string }> {
  let replaced: string | null = null;
  const connectedAt = await deps.stores.ownerConnections.transaction(async (tx) => {
    replaced = null;
    const record = await tx.findToken(jti, { lock: true });
    if (!record) throw new ProblemError('invalid_owner_connect_token', { detail: 'no such token was issued' });
    if (record.state === 'confirmed' && record.connectedAt) return record.connectedAt;
    const refusal = confirmationRefusal(record.state, true);
    if (refusal) throw new ProblemError(refusal);
    const owner = await tx.ownerOfExternalId(record.channelId, record.ownerExternalId);
    if (!owner || !VISIBLE.has(owner.status)) throw new ProblemError('owner_not_distributed');
    const previous = await tx.lockConnection(record.channelId, record.ownerId);
    const now = wholeSeconds(deps.clock.now());
    await tx.putConnection(record.channelId, record.ownerId, jti, now);
    await tx.setTokenState(jti, 'confirmed', now);
    if (previous && previous.jti !== jti) {
      await tx.setTokenState(previous.jti, 'revoked');
      replaced = previous.jti;
    }
    await tx.reproject({ owners: [record.ownerId], channelId: record.channelId }, projectorDeps(deps));
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
export async function removeOwnerConnection(
  deps: Pick<ServiceDeps, 'stores' | 'clock' | 'secrets' | 'workflows' | 'log'>,
  caller: ChannelCaller,
  ownerId: string,
): Promise<void> {
  const store = deps.stores.ownerConnections;
  const owner = await store.ownerOfExternalId(caller.channelId, ownerId);
  if (!owner) return;
  const removed = await store.transaction(async (tx) => {
    const existing = await tx.lockConnection(caller.channelId, owner.ownerId);
    if (!existing) return null;
    await tx.deleteConnection(caller.channelId, owner.ownerId);
    await tx.setTokenState(existing.jti, 'revoked');
    await tx.reproject({ owners: [owner.ownerId], channelId: caller.channelId }, projectorDeps(deps));
    return existing.jti;
  });
  if (!removed) return;
  notifyDispatcher(deps);
  await revokeQuietly(deps, removed);
}

/** The workflow's window closed unconfirmed (activity `expireOwnerConnectToken`). */
export async function expireOwnerConnectToken(deps: Pick<ServiceDeps, 'stores'>, jti: string): Promise<void> {
  await deps.stores.ownerConnections.expireToken(jti);
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
