import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { findChannelByName } from '../../db/channels.ts';
import { findReusableToken, insertToken, ownerByRef, ownerView, visiblePropertyIds } from '../../db/owner-connect.ts';
import { writeTransaction } from '../../db/sql.ts';
import {
  CONFIRMATION_WINDOW_SECONDS,
  HAND_OFF_REUSE_SECONDS,
  OWNER_CONNECT_ALG,
  OWNER_CONNECT_TYP,
  TOKEN_LIFETIME_SECONDS,
  type OwnerConnectClaims,
} from '../../domain/owner-connect.ts';
import { ProblemError } from '../../domain/problems.ts';
import { toInstant, wholeSeconds } from '../../domain/time.ts';
import type { ServiceDeps } from '../deps.ts';
import { chargeHandOff } from './hand-off-limits.ts';
import { signingKeyForToken } from './signing-keys.ts';

export interface OwnerConnectStart {
  ownerRef: string;
  /** The channel's name (`channel` of GET /channel). */
  channel: string;
  /** The host's interface language (BCP 47), signed as `locale` when given. */
  locale?: string;
  /** When given, the organization that must own the owner (a host page acting for one organization). */
  organizationRef?: string;
  /** The host session asking (a host page): counted against its limit, and answered again a token it just asked for. */
  hostSessionId?: string;
}

export interface OwnerConnectHandOff {
  redirect_url: string;
  token: string;
  expires_at: string;
}

/**
 * The host starts connecting an owner to its account on a channel: mints the owner-connect token
 * (docs/contract.md#owner-connect, rule 4) and starts its workflow
 * (`owner-connect:<jti>`), which holds the 3600-second confirmation window and the single-use
 * rule. The token is answered only once both are stored; nothing is written on a refusal:
 * `not_found` (no such channel or owner, or an owner of another organization than the one given),
 * `owner_connect_not_configured` (the channel registered no redirect URL in this environment),
 * `channel_suspended` (the channel could not confirm the connection),
 * `owner_not_distributed` (no property of the owner is distributed to the channel now),
 * `rate_limited` (too many tokens minted this minute: hand-off-limits.ts). A host session asking
 * again moments later for the same owner, channel and language is answered the token it was
 * given, still unconfirmed, signed again with the same claims; nothing is minted or counted.
 */
export async function startOwnerConnect(deps: ServiceDeps, input: OwnerConnectStart): Promise<OwnerConnectHandOff> {
  const em = deps.orm.em.fork();
  const channel = await findChannelByName(em, input.channel);
  if (!channel) throw new ProblemError('not_found', { detail: `no channel named "${input.channel}"` });
  if (!channel.redirectUrl)
    throw new ProblemError('owner_connect_not_configured', {
      detail: `channel "${channel.name}" has no owner-connect redirect URL in this environment`,
    });
  // Its confirmation would be refused (`partner_suspended`): the host would be sent to an app that cannot finish.
  if (channel.status !== 'active')
    throw new ProblemError('channel_suspended', { detail: `channel "${channel.name}" is suspended` });
  const owner = await ownerByRef(em, input.ownerRef);
  if (!owner || (input.organizationRef !== undefined && owner.organizationRef !== input.organizationRef)) {
    throw new ProblemError('not_found', {
      detail: `no owner "${input.ownerRef}"${input.organizationRef === undefined ? '' : ` in organization "${input.organizationRef}"`}`,
    });
  }
  const view = await ownerView(em, channel.id, owner.id);
  const propertyIds = view ? await visiblePropertyIds(em, channel.id, owner.id) : [];
  if (!view || propertyIds.length === 0)
    throw new ProblemError('owner_not_distributed', {
      detail: `no property of owner "${input.ownerRef}" is distributed to channel "${channel.name}"`,
    });

  const now = deps.clock.now();
  if (input.hostSessionId !== undefined) {
    const since = new Date(now.getTime() - HAND_OFF_REUSE_SECONDS * 1000);
    const reusable = await findReusableToken(em, {
      channelId: channel.id,
      ownerId: owner.id,
      propertyIds,
      hostSessionId: input.hostSessionId,
      locale: input.locale ?? null,
      since,
    });
    if (reusable) {
      const claims = tokenClaims(
        deps,
        channel.name,
        {
          sub: reusable.ownerExternalId,
          propertyIds: reusable.propertyIds,
          issuedAt: reusable.issuedAt,
          jti: reusable.jti,
        },
        input.locale,
      );
      return handOff(deps, channel.redirectUrl, claims, now);
    }
  }
  await chargeHandOff(deps, { organizationRef: owner.organizationRef, hostSessionId: input.hostSessionId });

  const issuedAt = wholeSeconds(now);
  const claims = tokenClaims(
    deps,
    channel.name,
    { sub: view.externalId, propertyIds, issuedAt, jti: randomBytes(16).toString('hex') },
    input.locale,
  );
  const answer = await handOff(deps, channel.redirectUrl, claims, now);
  const confirmUntil = new Date((claims.iat + CONFIRMATION_WINDOW_SECONDS) * 1000);

  await writeTransaction(em, async (tx) => {
    await insertToken(tx, {
      jti: claims.jti,
      channelId: channel.id,
      ownerId: owner.id,
      ownerExternalId: view.externalId,
      propertyIds,
      issuedAt,
      confirmUntil,
      locale: input.locale ?? null,
      hostSessionId: input.hostSessionId ?? null,
    });
    // Started before the record commits: when Temporal cannot take it, no token is answered and
    // the record is rolled back. A workflow whose record failed to commit expires nothing.
    await deps.workflows.startOwnerConnect({
      jti: claims.jti,
      channel: channel.name,
      ownerId: view.externalId,
      confirmUntil: toInstant(confirmUntil),
    });
  });
  return answer;
}

/** The claims of a token issued at `issuedAt` (whole seconds), valid for the contract's 300 seconds. */
function tokenClaims(
  deps: ServiceDeps,
  channelName: string,
  token: { sub: string; propertyIds: string[]; issuedAt: Date; jti: string },
  locale: string | undefined,
): OwnerConnectClaims {
  const iat = token.issuedAt.getTime() / 1000;
  return {
    iss: deps.config.publicOrigin,
    aud: channelName,
    sub: token.sub,
    property_ids: token.propertyIds,
    iat,
    exp: iat + TOKEN_LIFETIME_SECONDS,
    jti: token.jti,
    ...(locale === undefined ? {} : { locale }),
  };
}

/** What the hand-off answers: where to send the host, the signed token and when it stops being accepted there. */
async function handOff(
  deps: ServiceDeps,
  redirectUrl: string,
  claims: OwnerConnectClaims,
  now: Date,
): Promise<OwnerConnectHandOff> {
  return {
    redirect_url: redirectUrl,
    token: await sign(deps, claims, now),
    expires_at: toInstant(new Date(claims.exp * 1000)),
  };
}

/**
 * Signs with the key that signs at `now`, not at `iat`, which is truncated to the second (and, for
 * a reused token, up to half a minute old): within the second of an emergency rotation the key
 * signing at `iat` is the compromised one, whose private part is already destroyed, while the new
 * key is served from this instant on.
 */
async function sign(deps: ServiceDeps, claims: OwnerConnectClaims, now: Date): Promise<string> {
  const { kid, privateKey } = await signingKeyForToken(deps, now);
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: OWNER_CONNECT_ALG, typ: OWNER_CONNECT_TYP, kid })
    .sign(privateKey);
}
