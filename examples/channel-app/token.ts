import { decodeProtectedHeader, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';

/**
 * Verifying an owner-connect token (contract: Authentication, "Owner-connect token"), all before
 * trusting any claim:
 * 1. the header: `alg` exactly `ES256`, `typ` exactly `owner-connect+jwt` (anything else, `none`
 *    included, is refused before a key is even looked up);
 * 2. the signature, with the key `kid` names in the service's JWKS;
 * 3. `iss` the API's origin, `aud` this channel's name;
 * 4. `exp` in the future and `iat` not in the future, 60 seconds of clock skew allowed; `exp` at
 *    most 300 seconds after `iat`;
 * 5. `jti` never seen before: every accepted `jti` is kept until its `exp` and a second use is refused.
 * The last check, `sub` an owner distributed to this channel, needs the API: see app.ts.
 */

export const TOKEN_TYPE = 'owner-connect+jwt';
const CLOCK_SKEW_SECONDS = 60;
const MAX_LIFETIME_SECONDS = 300;

export interface OwnerConnectClaims {
  iss: string;
  aud: string;
  /** The owner's id (`own_...`) as this channel sees it. */
  sub: string;
  property_ids: string[];
  iat: number;
  exp: number;
  jti: string;
  locale?: string;
}

/** Why a token was refused, in words for the log; the host is shown one message for all. */
export class TokenRefused extends Error {}

export function tokenVerifier(options: { keys: JWTVerifyGetKey; issuer: string; channel: string; now?: () => Date }) {
  const now = options.now ?? (() => new Date());
  /** Accepted `jti` → its `exp` (seconds). In memory here; a channel with several processes keeps it in a shared store. */
  const seen = new Map<string, number>();

  function forgetExpired(nowSeconds: number): void {
    for (const [jti, exp] of seen) if (exp + CLOCK_SKEW_SECONDS < nowSeconds) seen.delete(jti);
  }

  return async function verify(token: string): Promise<OwnerConnectClaims> {
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new TokenRefused('not a JWS in compact serialization');
    }
    if (header.alg !== 'ES256') throw new TokenRefused(`alg ${String(header.alg)} is not ES256`);
    if (header.typ !== TOKEN_TYPE) throw new TokenRefused(`typ ${String(header.typ)} is not ${TOKEN_TYPE}`);

    let payload;
    try {
      ({ payload } = await jwtVerify(token, options.keys, {
        algorithms: ['ES256'],
        typ: TOKEN_TYPE,
        issuer: options.issuer,
        audience: options.channel,
        clockTolerance: CLOCK_SKEW_SECONDS,
        // With maxTokenAge, jose also refuses an `iat` in the future (beyond the skew).
        maxTokenAge: MAX_LIFETIME_SECONDS,
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
        currentDate: now(),
      }));
    } catch (error) {
      if (error instanceof errors.JOSEError) throw new TokenRefused(`${error.code}: ${error.message}`);
      throw error; // the keys could not be fetched: not the token's fault
    }
    const claims = payload as unknown as OwnerConnectClaims;
    if (typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || !Array.isArray(claims.property_ids))
      throw new TokenRefused('claims of the wrong type');
    if (claims.exp - claims.iat > MAX_LIFETIME_SECONDS) throw new TokenRefused('exp more than 300 seconds after iat');

    const nowSeconds = Math.floor(now().getTime() / 1000);
    forgetExpired(nowSeconds);
    if (seen.has(claims.jti)) throw new TokenRefused('jti already used');
    seen.set(claims.jti, claims.exp);
    return claims;
  };
}
