/** Where the host pages live on the public listener. */
export const HOST_BASE = '/host';

/**
 * The session cookie. `__Host-` makes the browser insist on Secure, Path=/ and no Domain, so no
 * sibling host can set or shadow it.
 */
export const SESSION_COOKIE = '__Host-svc_host_session';
