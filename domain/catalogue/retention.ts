/** `updated_since`, event cursors and events are kept this long. */
export const RETENTION_DAYS = 35;
export const RETENTION_MS = RETENTION_DAYS * 24 * 3600 * 1000;
