/**
 * The Distribution Service's channel kit: a typed client of the distribution interface, the
 * verifiers of what the service sends a channel (webhooks, owner-connect tokens), and a sync
 * helper that keeps a channel's copy right.
 */
export { createChannelClient, type ChannelClient, type ChannelClientOptions } from './client.ts';
export { MemoryEtagStore, type CachedAnswer, type EtagStore } from './etag-cache.ts';
export {
  linkedCursor,
  type ListArgs,
  type ListInit,
  type ListItem,
  type ListPage,
  type ListPath,
  type Pager,
} from './pages.ts';
export { isProblem, ProblemError, type ParameterError, type Problem } from './problem.ts';
export { retries, type RetryOptions } from './retry.ts';
export {
  isKnownWebhookEvent,
  verifyWebhook,
  WEBHOOK_EVENT_TYPES,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookRefusal,
} from './webhooks.ts';
export {
  MemoryJtiStore,
  OWNER_CONNECT_TYP,
  OwnerConnectTokenError,
  verifyOwnerConnectToken,
  type OwnerConnectClaims,
  type OwnerConnectOptions,
  type OwnerConnectRefusal,
  type SeenJtiStore,
} from './owner-connect.ts';
export {
  ChannelSync,
  type ChannelEvent,
  type EventOutcome,
  type SyncAnomaly,
  type SyncOptions,
  type SyncReport,
} from './sync.ts';
export {
  CATALOGUE_LISTS,
  isVisible,
  MemorySyncStore,
  type AvailabilityRecord,
  type CatalogueList,
  type HeldRecord,
  type Night,
  type SyncStore,
} from './sync-store.ts';
export {
  listen,
  matchesEventPatterns,
  type CursorStore,
  type EventSummary,
  type ListenLine,
  type ListenOptions,
  type ListenResult,
  type LogEvent,
} from './listen.ts';
export {
  checkReceiver,
  NOT_OBSERVABLE,
  RECEIVER_RULES,
  type CaseId,
  type CheckReceiverOptions,
  type CheckVerdict,
  type ReceiverAnswer,
  type ReceiverCheck,
  type ReceiverFinding,
  type ReceiverReport,
  type ReceiverRule,
  type ReceiverStop,
} from './check-receiver.ts';
export { isFullRecord, isTombstone, type FullRecord, type Tombstone, type TombstoneOf } from './records.ts';
export { newId, newWebhookSecret, signedHeaders } from './signing.ts';
export type { components, operations, paths, webhooks } from './generated/schema.ts';
import type { components } from './generated/schema.ts';

/** A record type of the description by its schema name: `Schema<'Property'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
