import { compactVerify, decodeProtectedHeader } from 'jose';
import {
  CLOCK_SKEW_SECONDS,
  OWNER_CONNECT_ALG,
  OWNER_CONNECT_TYP,
  TOKEN_LIFETIME_SECONDS,
  type OwnerConnectClaims,
} from '../../domain/owner-connect.ts';
import { ProblemError } from '../../domain/problems.ts';
import type { ServiceDeps } from '../deps.ts';
import { verificationKey } from './signing-keys.ts';

const invalid = (detail: string) => new ProblemError('invalid_owner_connect_token', { detail });

/**
 * What the token must say: this service as `iss`, the calling channel as `aud`, the path's owner as
 * `sub` (any owner when the caller names none: the sandbox's expire-now takes the token alone).
 */
export interface Expected {
  channel: string;
  ownerId?: string;
}

/**
 * Verifies an owner-connect token before trusting any claim (RFC 8725): the protected header first
 * (`alg` exactly ES256, `typ` exactly owner-connect+jwt, a `kid`: `none`, HS256 and the rest are
 * refused before any key is looked up), the key by `kid` among the published ones, the signature,
 * then `iss`, `aud`, `sub`, `iat` (at most 60 s ahead) and the claims' shapes. The confirmation
 * window (`iat` + 3600 s) is judged by the caller with the token's record; `exp` bounds only the
 * channel's redirect page, so it is checked for shape here, not against the clock.
 */
export async function verifyOwnerConnectToken(
  deps: Pick<ServiceDeps, 'stores' | 'clock' | 'config'>,
  token: string,
  expected: Expected,
): Promise<OwnerConnectClaims> {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token))
    throw invalid('not a JWS in compact serialization');
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw invalid('the protected header is not a JSON object');
  }
  if (header.alg !== OWNER_CONNECT_ALG) throw invalid(`alg must be ${OWNER_CONNECT_ALG}`);
  if (header.typ !== OWNER_CONNECT_TYP) throw invalid(`typ must be ${OWNER_CONNECT_TYP}`);
  if (typeof header.kid !== 'string' || header.kid.length === 0) throw invalid('kid is missing');

  const now = deps.clock.now();
  const key = await verificationKey(deps, header.kid, now);
  if (!key) throw invalid('kid names no published key');
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(token, key, { algorithms: [OWNER_CONNECT_ALG] }));
  } catch {
    throw invalid('the signature does not verify');
  }
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload)) as Record<string, unknown>;
  } catch {
    throw invalid('the payload is not JSON');
  }
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims))
    throw invalid('the payload is not a JSON object');

  if (claims.iss !== deps.config.publicOrigin) throw invalid('iss is not this service');
  if (claims.aud !== expected.channel) throw invalid('aud is not the calling channel');
  if (typeof claims.sub !== 'string') throw invalid('sub is missing');
  if (expected.ownerId !== undefined && claims.sub !== expected.ownerId)
    throw invalid('sub is not the owner in the path');
  const { iat, exp, jti } = claims;
  if (typeof iat !== 'number' || !Number.isInteger(iat)) throw invalid('iat is missing');
  if (typeof exp !== 'number' || !Number.isInteger(exp) || exp < iat || exp - iat > TOKEN_LIFETIME_SECONDS)
    throw invalid('exp is not within 300 seconds of iat');
  if (iat > now.getTime() / 1000 + CLOCK_SKEW_SECONDS) throw invalid('iat is in the future');
  if (typeof jti !== 'string' || !/^[0-9a-f]{32}$/.test(jti)) throw invalid('jti is not 128 bits in hex');
  const propertyIds = claims.property_ids;
  if (!Array.isArray(propertyIds) || !propertyIds.every((id) => typeof id === 'string'))
    throw invalid('property_ids is not a list of ids');
  return {
    iss: claims.iss,
    aud: claims.aud,
    sub: claims.sub,
    property_ids: propertyIds,
    iat,
    exp,
    jti,
    ...(typeof claims.locale === 'string' ? { locale: claims.locale } : {}),
  };
}
