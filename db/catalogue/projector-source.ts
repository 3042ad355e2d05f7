import { type IdKind } from '../../domain/catalogue/ids.ts';
import { type ProjectedBody, type PublishedPlace } from '../../domain/catalogue/projection.ts';
import type { LocationInput, OwnerInput, PropertyInput } from '../../domain/catalogue/source.ts';
import type { ResourceStatus } from '../../domain/catalogue/status.ts';
import type { ViewKind } from '../../domain/catalogue/event-type.ts';

/** What the projector reads of the source records and of a channel's current view before it writes the view. */

export interface PropertyRow {
  id: string;
  location_id: string;
  owner_id: string;
  content: PropertyInput;
}
export interface LocationRow {
  id: string;
  owner_id: string;
  content: LocationInput;
}
export interface OwnerRow {
  id: string;
  content: OwnerInput;
}
export interface ViewRow {
  kind: ViewKind;
  internal_id: string;
  external_id: string;
  status: ResourceStatus;
  body: ProjectedBody;
  location_id: string | null;
  owner_id: string | null;
}

export interface Source {
  properties: Map<string, PropertyRow>;
  locations: Map<string, LocationRow>;
  owners: Map<string, OwnerRow>;
  places: Map<string, PublishedPlace>;
  /** `connected_at` of each owner in this channel's view only (`owner_connection`). */
  connections: Map<string, string>;
}

export const ID_KIND: Record<ViewKind, IdKind> = { property: 'property', location: 'location', owner: 'owner' };
