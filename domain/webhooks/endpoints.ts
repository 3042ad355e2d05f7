// A channel's webhook endpoints: how many, how their secrets rotate, how operators are shown them.

export const MAX_ENDPOINTS = 5;

/** The previous secret signs beside the new one this long after a rotation. */
export const SECRET_OVERLAP_HOURS = 24;
export const SECRET_OVERLAP_MS = SECRET_OVERLAP_HOURS * 3600 * 1000;

/**
 * Why `url` may not be registered beside the channel's live endpoints (a URL once per channel, at
 * most MAX_ENDPOINTS of them), or null when it may.
 */
export function registrationRefusal(
  liveUrls: readonly string[],
  url: string,
): 'webhook_endpoint_exists' | 'webhook_endpoint_limit_reached' | null {
  if (liveUrls.includes(url)) return 'webhook_endpoint_exists';
  return liveUrls.length >= MAX_ENDPOINTS ? 'webhook_endpoint_limit_reached' : null;
}

/**
 * Until when the secret a rotation at `now` replaces keeps signing: SECRET_OVERLAP_MS, or null
 * when it is dropped at once (asked for, or there was no secret to keep).
 */
export function previousSecretExpiry(input: {
  hadSecret: boolean;
  expireImmediately: boolean;
  now: Date;
}): Date | null {
  return input.hadSecret && !input.expireImmediately ? new Date(input.now.getTime() + SECRET_OVERLAP_MS) : null;
}

/** Whether a rotated-out secret still signs beside the current one at `now`. */
export function previousSecretLive(
  endpoint: { previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): boolean {
  return (
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt.getTime() > now.getTime()
  );
}

/**
 * How an endpoint is shown to operators (the CLI, a workflow's summary): by its URL's host (and
 * port), never its path or query, where a receiver may carry a token of its own.
 */
export function endpointHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'unknown host';
  }
}
