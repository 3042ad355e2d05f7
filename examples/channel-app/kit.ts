/**
 * The channel kit, from its sources in this repository. In your own project install the package
 * and import `@distribution-service/channel-kit` instead; nothing else changes.
 */
export * from '../../clients/channel-kit/src/index.ts';
