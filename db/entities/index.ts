import { AmenityReleaseSchema } from './amenity.ts';
import { ApiKeySchema } from './api-key.ts';
import { AriNightSchema, AriPropertyGoneSchema, AriPropertySchema, VatRateSchema } from './availability.ts';
import {
  ChannelIdSchema,
  ChannelLogSchema,
  ChannelResourceSchema,
  ChannelViewTallySchema,
  DistributionSchema,
  EventSchema,
  LocationSchema,
  OrganizationSchema,
  OwnerSchema,
  PropertySchema,
} from './catalogue.ts';
import { CatalogueReprojectionSchema } from './catalogue-reprojection.ts';
import { CertificateExpiryCatchUpSchema } from './certificate-expiry-catch-up.ts';
import { CertificationRunSchema } from './certification-run.ts';
import { ChannelSchema } from './channel.ts';
import { HostLinkSchema, HostSessionSchema } from './host-session.ts';
import { GuestSchema, InstallationSchema, IntegrationTokenSchema } from './integration.ts';
import { ListingReportChangeSchema, ListingReportSchema, ListingStatSchema } from './listings.ts';
import { OwnerConnectKeySchema } from './owner-connect-key.ts';
import { OwnerConnectionSchema, OwnerConnectTokenSchema } from './owner-connect.ts';
import { RequestCounterSchema } from './request-counter.ts';
import { SandboxRequestSchema } from './sandbox-request.ts';
import {
  DispatchProgressSchema,
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
} from './webhooks.ts';

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
  ChannelViewTallySchema,
  ChannelLogSchema,
  EventSchema,
  WebhookEndpointSchema,
  WebhookDeliverySchema,
  WebhookAttemptSchema,
  DispatchProgressSchema,
  AriPropertySchema,
  AriNightSchema,
  AriPropertyGoneSchema,
  VatRateSchema,
  InstallationSchema,
  IntegrationTokenSchema,
  GuestSchema,
  AmenityReleaseSchema,
  ListingReportSchema,
  ListingReportChangeSchema,
  ListingStatSchema,
  HostLinkSchema,
  HostSessionSchema,
  OwnerConnectKeySchema,
  OwnerConnectTokenSchema,
  OwnerConnectionSchema,
  CertificateExpiryCatchUpSchema,
  CatalogueReprojectionSchema,
  SandboxRequestSchema,
  CertificationRunSchema,
];

export * from './amenity.ts';
export * from './api-key.ts';
export * from './availability.ts';
export * from './catalogue.ts';
export * from './catalogue-reprojection.ts';
export * from './certificate-expiry-catch-up.ts';
export * from './certification-run.ts';
export * from './channel.ts';
export * from './host-session.ts';
export * from './integration.ts';
export * from './listings.ts';
export * from './owner-connect-key.ts';
export * from './owner-connect.ts';
export * from './request-counter.ts';
export * from './sandbox-request.ts';
export * from './webhooks.ts';
