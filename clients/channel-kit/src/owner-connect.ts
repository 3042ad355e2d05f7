import {
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { requireHttps } from './https-only.ts';

/** The claims of a verified owner-connect token. */
export interface OwnerConnectClaims {
  /** The API's origin. */
  iss: string;
  /** The channel (`channel` of `GET /channel`). */
  aud: string | string[];
  /** The owner's id (`own_…`) as this channel sees it: bind it to the host's account once they confirm. */
  sub: string;
  /** That owner's properties distributed to the channel when the host started. */
  property_ids: string[];
  iat: number;
  exp: number;
  /** 128 random bits as 32 hexadecimal digits; single use. */
  jti: string;
  /** The host's interface language (BCP 47), when given. */
  locale?: string;
}

/** The check a token failed, in the contract's order of verification. */
export type OwnerConnectRefusal =
  | 'malformed'
  | 'alg'
  | 'typ'
  | 'kid'
  | 'signature'
  | 'iss'
  | 'aud'
  | 'exp'
  | 'iat'
  | 'lifetime'
  | 'jti'
  | 'claims'
  | 'replayed';

/** A token refused: show the host one message whatever `reason` is, and log it. */
export class OwnerConnectTokenError extends Error {
  override readonly name = 'OwnerConnectTokenError';
  readonly reason: OwnerConnectRefusal;
  constructor(reason: OwnerConnectRefusal, message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * The `jti`s accepted so far. `add` records one until `expiresAt` (Unix seconds) and answers
 * false when it is already recorded and not expired at `now`: a replay. It must be atomic; a
 * channel with several processes backs it with a shared store (`SET key 1 NX EXAT expiresAt`).
 */
export interface SeenJtiStore {
  add(jti: string, expiresAt: number, now: number): boolean | Promise<boolean>;
}

/** In this process's memory: enough for one process. */
export class MemoryJtiStore implements SeenJtiStore {
  readonly #seen = new Map<string, number>();
  add(jti: string, expiresAt: number, now: number): boolean {
    for (const [seen, until] of this.#seen) if (until < now) this.#seen.delete(seen);
    if (this.#seen.has(jti)) return false;
    this.#seen.set(jti, expiresAt);
    return true;
  }
}

export interface OwnerConnectOptions {
  /** The interface's base (`https://…/api/v1/distribution`): the keys are at `<baseUrl>/owner-connect/keys`, the issuer is its origin. */
  baseUrl?: string;
  /** The key set's `https:` address, when not under `baseUrl`. */
  jwksUrl?: string;
  /** Keys to verify with instead of fetching them (jose's `createLocalJWKSet`, say). */
  keys?: JWTVerifyGetKey;
  /** This channel's name, `channel` of `GET /channel`: required, or `aud` would go unchecked. */
  audience: string;
  /** The API's origin; default the origin of `baseUrl`. */
  issuer?: string;
  /** Accepted `jti`s; default one in-memory store for the process. */
  seenJti?: SeenJtiStore;
  now?: () => Date;
  /** The `fetch` the key set is read with (default `globalThis.fetch`). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

export const OWNER_CONNECT_TYP = 'owner-connect+jwt';
/** The contract's owner-connect limits; test/domain/contract-limits.test.ts holds them to the service's. */
export const CLOCK_SKEW_SECONDS = 60;
export const MAX_LIFETIME_SECONDS = 300;
const JTI_128_BITS = /^[0-9a-f]{32}$/;

const defaultStore = new MemoryJtiStore();
// One key set per address (and fetch): jose keeps the keys, refetches on an unknown `kid` (at most
// every 30 s) and after 10 minutes, within the `max-age` the set is served with.
const keySets = new Map<string, { fetch: OwnerConnectOptions['fetch']; keys: JWTVerifyGetKey }>();

function keySet(url: string, fetch: OwnerConnectOptions['fetch']): JWTVerifyGetKey {
  const known = keySets.get(url);
  if (known && known.fetch === fetch) return known.keys;
  const keys = createRemoteJWKSet(new URL(url), fetch ? { [customFetch]: fetch } : {});
  keySets.set(url, { fetch, keys });
  return keys;
}

const KEYS_IN_CLEAR =
  'a key set read over plain HTTP can be replaced on the way, and tokens forged with it would verify';

const refuse = (reason: OwnerConnectRefusal, message: string) => new OwnerConnectTokenError(reason, message);

/** jose's verdicts in the contract's terms; anything else (the keys could not be read) is no verdict. */
function refusalOf(error: unknown): OwnerConnectTokenError | undefined {
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return refuse('kid', 'kid names no published key');
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return refuse('signature', 'the signature does not verify');
  if (error instanceof errors.JWTExpired) return refuse('exp', 'exp is past, beyond 60 seconds of skew');
  if (error instanceof errors.JOSEAlgNotAllowed) return refuse('alg', 'alg must be ES256');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const claim = error.claim;
    if (claim === 'iss' || claim === 'aud' || claim === 'iat' || claim === 'exp')
      return refuse(claim, `${claim}: ${error.message}`);
    return refuse('claims', `${claim}: ${error.message}`);
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return refuse('malformed', error.message);
  return undefined;
}

function checkClaims(payload: JWTPayload, nowSeconds: number): OwnerConnectClaims {
  const { iat, exp, sub, jti } = payload;
  if (typeof iat !== 'number') throw refuse('iat', 'iat is missing');
  if (iat > nowSeconds + CLOCK_SKEW_SECONDS) throw refuse('iat', 'iat is in the future, beyond 60 seconds of skew');
  if (typeof exp !== 'number' || exp - iat > MAX_LIFETIME_SECONDS)
    throw refuse('lifetime', 'exp is more than 300 seconds after iat');
  if (typeof jti !== 'string' || !JTI_128_BITS.test(jti)) throw refuse('jti', 'jti is not 128 bits in hex');
  const propertyIds = payload.property_ids;
  if (typeof sub !== 'string' || !Array.isArray(propertyIds) || propertyIds.some((id) => typeof id !== 'string'))
    throw refuse('claims', 'sub is not a string, or property_ids not an array of strings');
  if (payload.locale !== undefined && typeof payload.locale !== 'string')
    throw refuse('claims', 'locale is not a string');
  return payload as unknown as OwnerConnectClaims;
}

/**
 * Verifies an owner-connect token by every rule of the contract, all before trusting a claim:
 * a compact JWS whose header says `alg` ES256 and `typ` `owner-connect+jwt` exactly (`none` and
 * anything else refused first); the signature with the key `kid` names in `GET /owner-connect/keys`
 * (fetched again on an unknown `kid`); `iss` the API's origin, `aud` this channel; `exp` not past
 * and `iat` not ahead, with 60 seconds of clock skew, `exp` at most 300 seconds after `iat`; a
 * 128-bit `jti` never accepted before (kept until `exp` and the skew). Returns the claims, or
 * throws an `OwnerConnectTokenError`; an error reading the keys is thrown as it is.
 *
 * Left to the channel: that `sub` is an owner distributed to it (page `GET /owners`), and the
 * host's confirmation before `PUT /owners/{owner_id}/connection`.
 */
export async function verifyOwnerConnectToken(
  token: string,
  options: OwnerConnectOptions,
): Promise<OwnerConnectClaims> {
  // jose checks `aud` only when given an audience: a JavaScript caller leaving it out would accept
  // a token minted for any channel.
  if (typeof options.audience !== 'string' || options.audience === '')
    throw new TypeError(
      "verifyOwnerConnectToken: audience is required (this channel's name, `channel` of GET /channel)",
    );
  if (options.baseUrl !== undefined) requireHttps(options.baseUrl, 'verifyOwnerConnectToken: baseUrl', KEYS_IN_CLEAR);
  if (options.jwksUrl !== undefined) requireHttps(options.jwksUrl, 'verifyOwnerConnectToken: jwksUrl', KEYS_IN_CLEAR);
  const base = options.baseUrl?.replace(/\/+$/, '');
  const issuer = options.issuer ?? (base === undefined ? undefined : new URL(base).origin);
  if (issuer === undefined) throw new TypeError('verifyOwnerConnectToken: give issuer, or baseUrl');
  const jwksUrl = options.jwksUrl ?? (base === undefined ? undefined : `${base}/owner-connect/keys`);
  if (options.keys === undefined && jwksUrl === undefined)
    throw new TypeError('verifyOwnerConnectToken: give baseUrl, jwksUrl or keys');

  if (typeof token !== 'string' || token.split('.').length !== 3)
    throw refuse('malformed', 'not a JWS in compact serialization');
  let header;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw refuse('malformed', 'not a JWS in compact serialization');
  }
  if (header.alg !== 'ES256') throw refuse('alg', `alg ${String(header.alg)} is not ES256`);
  if (header.typ !== OWNER_CONNECT_TYP) throw refuse('typ', `typ ${String(header.typ)} is not ${OWNER_CONNECT_TYP}`);
  if (typeof header.kid !== 'string' || header.kid === '') throw refuse('kid', 'the header names no kid');

  const now = options.now?.() ?? new Date();
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, options.keys ?? keySet(jwksUrl!, options.fetch), {
      algorithms: ['ES256'],
      issuer,
      audience: options.audience,
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['iss', 'aud', 'sub', 'iat', 'exp', 'jti'],
      currentDate: now,
    }));
  } catch (error) {
    throw refusalOf(error) ?? error;
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const claims = checkClaims(payload, nowSeconds);
  const store = options.seenJti ?? defaultStore;
  if (!(await store.add(claims.jti, claims.exp + CLOCK_SKEW_SECONDS, nowSeconds)))
    throw refuse('replayed', 'jti was already accepted: a token is single use');
  return claims;
}
