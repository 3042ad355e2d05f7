import type { Operation } from '../operations.ts';
import {
  getProperty,
  listAmenities,
  listEventsOperation,
  listLocations,
  listOwners,
  listProperties,
} from './catalogue.ts';
import { listAvailability } from './availability.ts';
import { getChannel } from './channel.ts';
import { listingOperations } from './listings.ts';
import { ownerConnectOperations } from './owner-connect.ts';
import { getOwnerConnectKeys } from './owner-connect-keys.ts';
import { getQuote } from './quotes.ts';
import { webhookOperations } from './webhooks.ts';
import { plannedOperations } from './planned.ts';
import { sandboxOperations } from './sandbox.ts';
import { sandboxTimeOperations } from './sandbox-time.ts';
import { sandboxCertificationOperations } from './sandbox-certification.ts';

export const DISTRIBUTION_BASE = '/api/v1/distribution';

/** Every operation of the distribution interface, served or planned. */
export const distributionOperations: Operation[] = [
  getChannel,
  listLocations,
  listOwners,
  listProperties,
  getProperty,
  listAmenities,
  listEventsOperation,
  listAvailability,
  getQuote,
  getOwnerConnectKeys,
  ...webhookOperations,
  ...listingOperations,
  ...ownerConnectOperations,
  ...plannedOperations,
  ...sandboxOperations,
  ...sandboxTimeOperations,
  ...sandboxCertificationOperations,
];
