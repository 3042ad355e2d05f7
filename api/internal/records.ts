import { z } from 'zod';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
  Ref,
} from '../../domain/catalogue/source.ts';
import { INTEGRATION_SCOPES } from '../../domain/integration-tokens.ts';
import { toInstant } from '../../domain/time.ts';
import type { StoredSource } from '../../services/catalogue.ts';
import { Instant } from '../schemas/common.ts';

/**
 * What the platform interface answers, for its description: a record is what the platform wrote
 * (its write's schema, defaults filled) with what the service adds. Built from the write schemas,
 * so a field added to a write is described in its answer too.
 */

const stored = {
  ref: Ref,
  created_at: Instant.meta({ description: 'When the platform first wrote the record.' }),
  updated_at: Instant.meta({ description: 'When a write last changed it; an identical write keeps it.' }),
};

/** What each kind of record holds as the platform wrote it: its write's schema, parsed before it was stored. */
interface Written {
  organization: z.output<typeof OrganizationInput>;
  owner: z.output<typeof OwnerInput>;
  location: z.output<typeof LocationInput>;
  property: z.output<typeof PropertyInput>;
}
export type SourceKind = keyof Written;

/**
 * A record as the platform wrote it, with its reference and when it was created and last changed.
 * Its content is the stored JSON of what its write's schema parsed, read back as that schema's type.
 */
export function platformRecord<K extends SourceKind>(
  _kind: K,
  source: StoredSource,
): { ref: string } & Written[K] & { created_at: string; updated_at: string } {
  return {
    ref: source.ref,
    ...(source.content as Written[K]),
    created_at: toInstant(source.createdAt),
    updated_at: toInstant(source.updatedAt),
  };
}

export const OrganizationRecord = OrganizationInput.safeExtend(stored).meta({ id: 'PlatformOrganization' });
export const OwnerRecord = OwnerInput.safeExtend(stored).meta({ id: 'PlatformOwner' });
export const LocationRecord = LocationInput.safeExtend(stored).meta({ id: 'PlatformLocation' });

const Identifier = z.object({ scheme: z.string(), value: z.string(), valid_until: z.iso.date() });

export const LegalStatus = z
  .object({
    next_expiry: z
      .object({
        on: z.iso.date().meta({ description: 'The first local date on which the identifier is no longer valid.' }),
        identifier: Identifier,
        withdraws_from: z
          .array(z.string())
          .meta({ description: 'The channels shown the property now, which get `property.withdrawn` that day.' }),
      })
      .nullable(),
  })
  .meta({ id: 'LegalStatus', description: "Read-only, computed on the property's today in its location's zone." });

/** The PUT answers the property as written; its GET adds the legal status, computed on each read. */
export const PropertyRecord = PropertyInput.safeExtend(stored).meta({ id: 'PlatformProperty' });
export const PropertyWithLegalStatus = PropertyInput.safeExtend({ ...stored, legal_status: LegalStatus }).meta({
  id: 'PlatformPropertyWithLegalStatus',
});

export const Distribution = DistributionInput.safeExtend({ property: Ref }).meta({ id: 'PlatformDistribution' });

export const AvailabilityOutcome = z
  .object({
    results: z.array(
      z.object({
        property: Ref,
        changed_nights: z.int().min(0),
        ranges: z.array(z.object({ from: z.iso.date(), to: z.iso.date().meta({ description: 'Exclusive.' }) })).meta({
          description:
            "The changed nights as contiguous ranges, each announced to channels as one `availability.updated` up to the horizon they read (365 nights from the property's today): a changed night past it is announced when it enters it.",
        }),
      }),
    ),
  })
  .meta({ id: 'AvailabilityOutcome' });

export const HandOffParts = z
  .object({
    redirect_url: z.url(),
    token: z.string().meta({ description: 'The owner-connect token (a compact JWS) to POST as form field `token`.' }),
    expires_at: Instant,
  })
  .meta({ id: 'OwnerConnectHandOff' });

export const Installation = z
  .object({
    id: z.uuid(),
    organization: Ref,
    app: z.string(),
    scopes: z.array(z.enum(INTEGRATION_SCOPES)),
    status: z.enum(['active', 'disabled', 'error']),
    created_at: Instant,
    updated_at: Instant,
  })
  .meta({ id: 'Installation' });

export const IssuedToken = z
  .object({
    token: z.string().meta({ description: 'Shown once; only its SHA-256 is stored.' }),
    scopes: z.array(z.enum(INTEGRATION_SCOPES)),
  })
  .meta({ id: 'IssuedIntegrationToken' });

export const PlatformGuest = z
  .object({
    ref: Ref,
    id: z.uuid().meta({ description: 'The id the integration interface answers the guest by.' }),
    organization: Ref,
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    phone: z.string(),
    created_at: Instant,
    updated_at: Instant,
  })
  .meta({ id: 'PlatformGuest' });

const ReportedState = {
  status: z.string(),
  public_url: z.string().nullable(),
  promoted: z.boolean(),
  promoted_until: Instant.nullable(),
  rejection: z.object({ reason: z.string(), text: z.string().nullable() }).nullable(),
};

export const PropertyListings = z
  .object({
    property: Ref,
    data: z.array(
      z.object({
        channel: z.string(),
        property_id: z.string().nullable().meta({ description: 'The id the channel knows the property by.' }),
        ...ReportedState,
        updated_at: Instant,
        received_at: Instant,
        history: z.array(z.object({ ...ReportedState, changed_at: Instant })),
      }),
    ),
  })
  .meta({ id: 'PropertyListings' });

export const PropertyStats = z
  .object({
    property: Ref,
    from: z.iso.date(),
    to: z.iso.date(),
    data: z.array(
      z.object({
        channel: z.string(),
        days: z.array(z.object({ date: z.iso.date(), views: z.int().min(0), clicks_to_booking: z.int().min(0) })),
      }),
    ),
  })
  .meta({ id: 'PropertyStats' });
