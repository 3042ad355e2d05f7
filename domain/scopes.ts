export const SCOPES = ['read:catalog', 'read:ari', 'manage:webhooks', 'write:listings', 'write:bookings'] as const;
export type Scope = (typeof SCOPES)[number];

/** `write:bookings` is reserved for a later stage: the contract says it is not granted. */
export const GRANTABLE_SCOPES: readonly Scope[] = SCOPES.filter((scope) => scope !== 'write:bookings');

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function missingScopes(held: readonly string[], required: readonly Scope[]): Scope[] {
  return required.filter((scope) => !held.includes(scope));
}
