import { Migration20261122021406Foundation } from './Migration20261122021406Foundation.ts';
import { Migration20261122025508Catalogue } from './Migration20261122025508Catalogue.ts';
import { Migration20261122031938Webhooks } from './Migration20261122031938Webhooks.ts';
import { Migration20261122034457WebhooksSuspendedByPlatform } from './Migration20261122034457WebhooksSuspendedByPlatform.ts';
import { Migration20261122034907Availability } from './Migration20261122034907Availability.ts';
import { Migration20261122185025EndpointResumePosition } from './Migration20261122185025EndpointResumePosition.ts';
import { Migration20261122185301Integration } from './Migration20261122185301Integration.ts';
import { Migration20261122190900TypedNights } from './Migration20261122190900TypedNights.ts';
import { Migration20261122191252AmenityRelease } from './Migration20261122191252AmenityRelease.ts';
import { Migration20261122192050VatRates } from './Migration20261122192050VatRates.ts';
import { Migration20261122193000RequestCounterUnlogged } from './Migration20261122193000RequestCounterUnlogged.ts';
import { Migration20261122204903ListingReports } from './Migration20261122204903ListingReports.ts';
import { Migration20261122204906HostSessions } from './Migration20261122204906HostSessions.ts';
import { Migration20261122204907OwnerConnectKeys } from './Migration20261122204907OwnerConnectKeys.ts';
import { Migration20261122204945OwnerConnect } from './Migration20261122204945OwnerConnect.ts';
import { Migration20261123090000AvailabilityChangeOrder } from './Migration20261123090000AvailabilityChangeOrder.ts';
import { Migration20261123120000HandOffReuse } from './Migration20261123120000HandOffReuse.ts';
import { Migration20261125150000AmenityDefinition } from './Migration20261125150000AmenityDefinition.ts';
import { Migration20261126090000HostOverviewIndexes } from './Migration20261126090000HostOverviewIndexes.ts';
import { Migration20261127090000DeliveryPendingDue } from './Migration20261127090000DeliveryPendingDue.ts';
import { Migration20261127100000EventTraceparent } from './Migration20261127100000EventTraceparent.ts';
import { Migration20261128090000ChannelLogTransaction } from './Migration20261128090000ChannelLogTransaction.ts';
import { Migration20261129090000ChannelViewTally } from './Migration20261129090000ChannelViewTally.ts';
import { Migration20261129090100DeliveryPageIndex } from './Migration20261129090100DeliveryPageIndex.ts';
import { Migration20261129090200RollZoneOrder } from './Migration20261129090200RollZoneOrder.ts';
import { Migration20261129090300EventPageIndexes } from './Migration20261129090300EventPageIndexes.ts';
import { Migration20261129090400CertificateExpiryCatchUp } from './Migration20261129090400CertificateExpiryCatchUp.ts';
import { Migration20261129090500DispatchStamp } from './Migration20261129090500DispatchStamp.ts';
import { Migration20261129091000AvailabilityTombstones } from './Migration20261129091000AvailabilityTombstones.ts';
import { Migration20261129092000ListingReportRejected } from './Migration20261129092000ListingReportRejected.ts';
import { Migration20261130090000CatalogueReprojection } from './Migration20261130090000CatalogueReprojection.ts';
import { Migration20261130100000EndpointTimeFactor } from './Migration20261130100000EndpointTimeFactor.ts';
import { Migration20261201090000SandboxRequests } from './Migration20261201090000SandboxRequests.ts';
import { Migration20261202090000CertificationRuns } from './Migration20261202090000CertificationRuns.ts';

/** Applied in this order; a migration missing here is a migration that never runs. */
export const migrationsList = [
  { name: 'Migration20261122021406Foundation', class: Migration20261122021406Foundation },
  { name: 'Migration20261122025508Catalogue', class: Migration20261122025508Catalogue },
  { name: 'Migration20261122031938Webhooks', class: Migration20261122031938Webhooks },
  {
    name: 'Migration20261122034457WebhooksSuspendedByPlatform',
    class: Migration20261122034457WebhooksSuspendedByPlatform,
  },
  { name: 'Migration20261122034907Availability', class: Migration20261122034907Availability },
  { name: 'Migration20261122185025EndpointResumePosition', class: Migration20261122185025EndpointResumePosition },
  { name: 'Migration20261122185301Integration', class: Migration20261122185301Integration },
  { name: 'Migration20261122190900TypedNights', class: Migration20261122190900TypedNights },
  { name: 'Migration20261122191252AmenityRelease', class: Migration20261122191252AmenityRelease },
  { name: 'Migration20261122192050VatRates', class: Migration20261122192050VatRates },
  { name: 'Migration20261122193000RequestCounterUnlogged', class: Migration20261122193000RequestCounterUnlogged },
  { name: 'Migration20261122204903ListingReports', class: Migration20261122204903ListingReports },
  { name: 'Migration20261122204906HostSessions', class: Migration20261122204906HostSessions },
  { name: 'Migration20261122204907OwnerConnectKeys', class: Migration20261122204907OwnerConnectKeys },
  { name: 'Migration20261122204945OwnerConnect', class: Migration20261122204945OwnerConnect },
  { name: 'Migration20261123090000AvailabilityChangeOrder', class: Migration20261123090000AvailabilityChangeOrder },
  { name: 'Migration20261123120000HandOffReuse', class: Migration20261123120000HandOffReuse },
  { name: 'Migration20261125150000AmenityDefinition', class: Migration20261125150000AmenityDefinition },
  { name: 'Migration20261126090000HostOverviewIndexes', class: Migration20261126090000HostOverviewIndexes },
  { name: 'Migration20261127090000DeliveryPendingDue', class: Migration20261127090000DeliveryPendingDue },
  { name: 'Migration20261127100000EventTraceparent', class: Migration20261127100000EventTraceparent },
  { name: 'Migration20261128090000ChannelLogTransaction', class: Migration20261128090000ChannelLogTransaction },
  { name: 'Migration20261129090000ChannelViewTally', class: Migration20261129090000ChannelViewTally },
  { name: 'Migration20261129090100DeliveryPageIndex', class: Migration20261129090100DeliveryPageIndex },
  { name: 'Migration20261129090200RollZoneOrder', class: Migration20261129090200RollZoneOrder },
  { name: 'Migration20261129090300EventPageIndexes', class: Migration20261129090300EventPageIndexes },
  {
    name: 'Migration20261129090400CertificateExpiryCatchUp',
    class: Migration20261129090400CertificateExpiryCatchUp,
  },
  { name: 'Migration20261129090500DispatchStamp', class: Migration20261129090500DispatchStamp },
  { name: 'Migration20261129091000AvailabilityTombstones', class: Migration20261129091000AvailabilityTombstones },
  { name: 'Migration20261129092000ListingReportRejected', class: Migration20261129092000ListingReportRejected },
  { name: 'Migration20261130090000CatalogueReprojection', class: Migration20261130090000CatalogueReprojection },
  { name: 'Migration20261130100000EndpointTimeFactor', class: Migration20261130100000EndpointTimeFactor },
  { name: 'Migration20261201090000SandboxRequests', class: Migration20261201090000SandboxRequests },
  { name: 'Migration20261202090000CertificationRuns', class: Migration20261202090000CertificationRuns },
];
