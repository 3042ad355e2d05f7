/**
 * Owner-connect rules (docs/contract.md#owner-connect, rules 4 to 6; #limits): the token's
 * header, its lifetimes, and what a confirmation of a token in each recorded state answers.
 */

export const OWNER_CONNECT_ALG = 'ES256';
export const OWNER_CONNECT_TYP = 'owner-connect+jwt';
/** `exp` - `iat`: the channel's redirect page accepts the token this long. */
export const TOKEN_LIFETIME_SECONDS = 300;
/** The confirming PUT accepts an unconfirmed token until `iat` + this. */
export const CONFIRMATION_WINDOW_SECONDS = 3600;
/**
 * A hand-off asked again for the same owner, channel and language within this long of the last
 * (from the same host session) answers that token while it waits unconfirmed, instead of minting
 * another: a double press or a reload. Its `exp` still leaves 270 seconds for the channel.
 */
export const HAND_OFF_REUSE_SECONDS = 30;
/** Tolerated clock difference for `iat` in the future. */
export const CLOCK_SKEW_SECONDS = 60;

export type TokenState = 'waiting' | 'confirmed' | 'expired' | 'revoked';

export type ConfirmationRefusal = 'owner_connect_token_expired' | 'owner_connect_token_used';

/**
 * What a confirmation of a token in `state` answers once its checks passed: null when it may go
 * on to the token's workflow, else the refusal. After the window a confirmed (or removed) token
 * is `used`, an unconfirmed one `expired`; a removed connection's token is `used` at any time.
 */
export function confirmationRefusal(state: TokenState, windowOpen: boolean): ConfirmationRefusal | null {
  if (state === 'revoked') return 'owner_connect_token_used';
  if (state === 'expired') return 'owner_connect_token_expired';
  if (windowOpen) return null;
  return state === 'confirmed' ? 'owner_connect_token_used' : 'owner_connect_token_expired';
}

/** The claims the service signs. */
export interface OwnerConnectClaims {
  iss: string;
  aud: string;
  sub: string;
  property_ids: string[];
  iat: number;
  exp: number;
  jti: string;
  locale?: string;
}

/** BCP 47 as far as the token needs: letters, digits and hyphens, 2-35 characters, starting with a language. */
export const LOCALE_PATTERN = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,5}$/;
