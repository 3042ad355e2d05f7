import { z } from 'zod';
import { ID_PATTERNS } from '../../domain/catalogue/ids.ts';
import { EVENT_TYPES } from '../../domain/events.ts';
import { Instant, openEnum } from './common.ts';

/** The event log's records, for the OpenAPI description only. */

export const Event = z
  .object({
    id: z.string().regex(ID_PATTERNS.event).meta({ description: '`evt_` id.' }),
    type: openEnum(EVENT_TYPES, 'Event type, `<kind>.<change>`.'),
    occurred_at: Instant,
    channel: z.string().meta({ description: "The channel's name." }),
    data: z.object({
      object: z.string().meta({
        description: 'Resource kind. Open enum: unknown values must be accepted.',
        examples: ['property', 'location', 'owner'],
      }),
      id: z.string().meta({ description: "The resource's id." }),
      version: z
        .int()
        .min(1)
        .optional()
        .meta({ description: 'Version of the resource this event announces; absent on `availability.updated`.' }),
      from: z.iso.date().optional().meta({ description: '`availability.updated` only: first changed night.' }),
      to: z.iso
        .date()
        .optional()
        .meta({ description: '`availability.updated` only: end of the changed nights (exclusive).' }),
    }),
  })
  .meta({ id: 'Event', description: 'A change visible to the channel.' });

export const EventPage = z
  .object({
    data: z.array(Event),
    next_cursor: z.string().meta({ description: 'Always present: the position to resume from.' }),
    has_more: z.boolean(),
  })
  .meta({ id: 'EventPage', description: 'A page of events.' });
