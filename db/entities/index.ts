import { ApiKeySchema } from './api-key.ts';
import { ChannelSchema } from './channel.ts';
import { RequestCounterSchema } from './request-counter.ts';

/** Listed explicitly: no folder discovery, so the bundle and the config see the same set. */
export const entities = [ChannelSchema, ApiKeySchema, RequestCounterSchema];

export { ApiKeySchema, ChannelSchema, RequestCounterSchema };
export type { ApiKey } from './api-key.ts';
export type { Channel } from './channel.ts';
