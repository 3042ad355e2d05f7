import { ApiKeySchema } from './api-key.ts';
import {
  ChannelIdSchema,
  ChannelLogSchema,
  ChannelResourceSchema,
  DistributionSchema,
  EventSchema,
  LocationSchema,
  OrganizationSchema,
  OwnerSchema,
  PropertySchema,
} from './catalogue.ts';
import { ChannelSchema } from './channel.ts';
import { RequestCounterSchema } from './request-counter.ts';

/** Listed explicitly: no folder discovery, so the bundle and the config see the same set. */
export const entities = [
  ChannelSchema,
  ApiKeySchema,
  RequestCounterSchema,
  OrganizationSchema,
  OwnerSchema,
  LocationSchema,
  PropertySchema,
  DistributionSchema,
  ChannelIdSchema,
  ChannelResourceSchema,
  ChannelLogSchema,
  EventSchema,
];

export {
  ApiKeySchema,
  ChannelSchema,
  RequestCounterSchema,
  OrganizationSchema,
  OwnerSchema,
  LocationSchema,
  PropertySchema,
  DistributionSchema,
  ChannelIdSchema,
  ChannelResourceSchema,
  ChannelLogSchema,
  EventSchema,
};
export type { ApiKey } from './api-key.ts';
export type { Channel } from './channel.ts';
export type { Organization, Owner, Location, Property } from './catalogue.ts';
